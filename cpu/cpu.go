package cpu

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// Level is a kernel tier; a higher level needs every CPU feature of the lower ones.
type Level int

// The levels, lowest first.
const (
	Portable      Level = iota // pure Go
	PCLMUL                     // scalar PCLMULQDQ (SSE2 is part of amd64)
	AVX2                       // AVX and AVX2 with PCLMULQDQ
	AVX2VPCLMUL                // VPCLMULQDQ on ymm with AVX2
	AVX512VPCLMUL              // AVX-512 F, BW and VL with VPCLMULQDQ on zmm
	AVX512GFNI                 // AVX512VPCLMUL with GFNI and AVX-512 VBMI
	numLevels
)

var names = [numLevels]string{"portable", "pclmul", "avx2", "avx2-vpclmul", "avx512-vpclmul", "avx512-gfni"}

func (l Level) String() string {
	if l >= 0 && l < numLevels {
		return names[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// ErrLevel reports an unknown level name.
var ErrLevel = errors.New("cpu: unknown kernel level")

// ParseLevel returns the level named s (as Level.String prints it; "generic" is
// accepted for portable).
func ParseLevel(s string) (Level, error) {
	if s == "generic" {
		return Portable, nil
	}
	for l := Portable; l < numLevels; l++ {
		if names[l] == s {
			return l, nil
		}
	}
	return Portable, fmt.Errorf("%w %q (want one of %s)", ErrLevel, s, strings.Join(names[:], ", "))
}

// EnvCap names the environment variable that caps the level for every kernel family,
// e.g. LEANPIPE_SIMD=portable to run the pure-Go kernels on any machine.
const EnvCap = "LEANPIPE_SIMD"

var (
	hardware = detect()
	capped   Level // hardware, capped by $LEANPIPE_SIMD
	envErr   error
	active   Level
)

func init() {
	capped, envErr = capLevel(hardware, os.Getenv(EnvCap))
	active = capped
}

// capLevel lowers l to the level named by env (empty: no cap). An unknown name is an
// error and leaves l uncapped.
func capLevel(l Level, env string) (Level, error) {
	if env == "" {
		return l, nil
	}
	c, err := ParseLevel(env)
	if err != nil {
		return l, fmt.Errorf("%w, in $%s", err, EnvCap)
	}
	return min(l, c), nil
}

// Check reports a $LEANPIPE_SIMD value that names no level. Programs call it before
// any work and refuse to start on an error (the kernels meanwhile run uncapped).
func Check() error { return envErr }

// Hardware is the highest level this CPU and build support, before any cap (portable
// in a purego build or off amd64).
func Hardware() Level { return hardware }

// Detected is Hardware capped by $LEANPIPE_SIMD: the highest level tests may select.
func Detected() Level { return capped }

// Active is the level in use.
func Active() Level { return active }

// Levels lists Portable through Detected.
func Levels() []Level {
	out := make([]Level, 0, capped+1)
	for l := Portable; l <= capped; l++ {
		out = append(out, l)
	}
	return out
}

// SetLevel makes every family use level l (or its best kernel below l) and returns a
// function restoring the previous level. It is a hook for tests and benchmarks: not
// safe while kernels run concurrently; it panics if l is above Detected.
func SetLevel(l Level) (restore func()) {
	if l < Portable || l > capped {
		panic(fmt.Sprintf("cpu: level %v is not available (detected %v)", l, capped))
	}
	prev := active
	setActive(l)
	return func() { setActive(prev) }
}

func setActive(l Level) {
	mu.Lock()
	defer mu.Unlock()
	active = l
	for _, f := range families {
		f.level = f.best(l)
	}
}

// Family is one kernel family's dispatch: the levels it has kernels for in this build.
type Family struct {
	name  string
	impl  []Level // ascending, Portable first
	level Level
}

var (
	mu       sync.Mutex
	families []*Family
)

// NewFamily registers the kernel family name with the levels it implements in this
// build (Portable is implied). Registering a name twice with the same levels returns
// the same Family (two packages may share one, as the lincheck and the ring switch
// share "reduce"); with other levels it panics.
func NewFamily(name string, impl ...Level) *Family {
	ls := append([]Level{Portable}, impl...)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	mu.Lock()
	defer mu.Unlock()
	for _, f := range families {
		if f.name == name {
			if !slices.Equal(f.impl, ls) {
				panic(fmt.Sprintf("cpu: family %q registered with levels %v and %v", name, f.impl, ls))
			}
			return f
		}
	}
	f := &Family{name: name, impl: ls}
	f.level = f.best(active)
	families = append(families, f)
	return f
}

func (f *Family) best(l Level) Level {
	b := Portable
	for _, x := range f.impl {
		if x <= l {
			b = x
		}
	}
	return b
}

// Name is the family's name.
func (f *Family) Name() string { return f.name }

// Level is the highest level the family implements at or below Active: the kernels
// it runs. Dispatch compares it with >=.
func (f *Family) Level() Level { return f.level }

// Implemented lists the levels the family has kernels for in this build, lowest first.
func (f *Family) Implemented() []Level { return slices.Clone(f.impl) }

// Levels lists the levels the family implements up to Detected, lowest first: the
// ones a test can run here.
func (f *Family) Levels() []Level {
	var out []Level
	for _, x := range f.impl {
		if x <= capped {
			out = append(out, x)
		}
	}
	return out
}

// Families lists the registered families in registration order.
func Families() []*Family {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(families)
}

// Kernels formats every family's level in use as "name=level" pairs, families in
// the order given first, then the rest by name.
func Kernels(order ...string) string {
	fs := Families()
	slices.SortStableFunc(fs, func(a, b *Family) int {
		ia, ib := slices.Index(order, a.name), slices.Index(order, b.name)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.name + "=" + f.Level().String()
	}
	return strings.Join(parts, " ")
}

package simd

import (
	"errors"
	"fmt"
	"os"
)

// Level is a kernel implementation tier; higher levels need more CPU features.
type Level int

// The dispatch levels.
const (
	Generic     Level = iota // portable Go
	PCLMUL                   // scalar PCLMULQDQ
	AVX2VPCLMUL              // VPCLMULQDQ on ymm with AVX2
)

func (l Level) String() string {
	switch l {
	case Generic:
		return "generic"
	case PCLMUL:
		return "pclmul"
	case AVX2VPCLMUL:
		return "avx2-vpclmul"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// ErrLevel reports an unknown level name.
var ErrLevel = errors.New("simd: unknown level")

// ParseLevel returns the level named s (as printed by Level.String).
func ParseLevel(s string) (Level, error) {
	for l := Generic; l <= AVX2VPCLMUL; l++ {
		if l.String() == s {
			return l, nil
		}
	}
	return Generic, fmt.Errorf("%w %q (want generic, pclmul or avx2-vpclmul)", ErrLevel, s)
}

// EnvLevel names the environment variable that caps the detected level, e.g.
// LEANPIPE_SIMD=generic to run the portable kernels on any machine. An unknown value
// is ignored at start-up; ParseLevel reports it.
const EnvLevel = "LEANPIPE_SIMD"

// detected is the best level this build and CPU support, capped by $LEANPIPE_SIMD;
// level is the one in use.
var (
	detected = capLevel(detect(), os.Getenv(EnvLevel))
	level    = detected
)

func capLevel(l Level, env string) Level {
	if env == "" {
		return l
	}
	if c, err := ParseLevel(env); err == nil && c < l {
		return c
	}
	return l
}

// Detected returns the best level this build and CPU support (capped by $LEANPIPE_SIMD).
func Detected() Level { return detected }

// Active returns the level the kernels currently use.
func Active() Level { return level }

// Levels returns every level this build and CPU support, lowest first.
func Levels() []Level {
	out := make([]Level, 0, detected+1)
	for l := Generic; l <= detected; l++ {
		out = append(out, l)
	}
	return out
}

// SetLevel makes the kernels use level l and returns a function restoring the previous
// level. It is a hook for tests and benchmarks, not safe to call while kernels run
// concurrently, and panics if l is above Detected().
func SetLevel(l Level) (restore func()) {
	if l < Generic || l > detected {
		panic(fmt.Sprintf("simd: level %v is not available (detected %v)", l, detected))
	}
	prev := level
	level = l
	return func() { level = prev }
}

package simd

import "fmt"

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

// detected is the best level this build and CPU support; level is the one in use.
var (
	detected = detect()
	level    = detected
)

// Detected returns the best level this build and CPU support.
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

package simd

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the field kernel family ("field" in cpu's registry): the levels this
// build has kernels for, and the one in use.
var Kernels = cpu.NewFamily("field", archLevels...)

// Active is the level the field kernels run at.
//
// Deprecated: transitional for packages not yet on their own cpu.Family.
func Active() cpu.Level { return Kernels.Level() }

// AVX2VPCLMUL is cpu.AVX2VPCLMUL.
//
// Deprecated: transitional, see Active.
const AVX2VPCLMUL = cpu.AVX2VPCLMUL

package simd

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the field kernel family ("field" in cpu's registry): the levels this
// build has kernels for, and the one in use.
var Kernels = cpu.NewFamily("field", archLevels...)

package blake2s

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the BLAKE2s kernel family ("blake2s" in cpu's registry): portable Go and,
// where this build has the assembly, the AVX2 level (an 8-lane kernel and a
// single-message 128-bit AVX kernel) and the AVX-512 level (a 16-lane kernel on zmm for
// SumMany and NodeMany; it needs only AVX-512F, which cpu.AVX512VPCLMUL implies).
var Kernels = cpu.NewFamily("blake2s", archLevels...)

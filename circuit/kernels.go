package circuit

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the circuit package's kernel family ("circuit" in cpu's registry): the
// 64×64 bit transposes of PackRows, portable and, where this build has the
// assembly, AVX2 (avx2) and AVX-512 with VBMI and GFNI (avx512-gfni); and
// SolveMany's bit-sliced walk of 2 or 4 vectors and the bilinear walk's kernel
// (bilinear.go), each portable and AVX2 (at every level from avx2 up).
var Kernels = cpu.NewFamily("circuit", archLevels...)

package circuit

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the circuit package's kernel family ("circuit" in cpu's registry): the
// 64×64 bit transposes of PackRows, portable and, where this build has the
// assembly, AVX2 (avx2) and AVX-512 with VBMI and GFNI (avx512-gfni); and
// SolveMany's bit-sliced walk of 2 or 4 vectors, the bilinear walk's kernel
// (bilinear.go), the transpose's backward walk (reverseGo) and PackLanesRange's
// streaming stores of the packed runs (storeLanes), each portable and AVX2 (at
// every level from avx2 up); and the tensor walk's row flush into
// unreduced accumulators (flush.go), portable, avx2 and avx512-gfni.
var Kernels = cpu.NewFamily("circuit", archLevels...)

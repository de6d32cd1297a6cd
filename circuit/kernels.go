package circuit

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the circuit package's kernel family ("circuit" in cpu's registry): the
// 64×64 bit transposes of PackRows, portable and, where this build has the
// assembly, AVX2 (avx2) and AVX-512 with VBMI and GFNI (avx512-gfni).
var Kernels = cpu.NewFamily("circuit", archLevels...)

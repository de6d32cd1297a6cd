package zerocheck

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the zerocheck's kernel family ("zerocheck" in cpu's registry): the coset
// extension, the byte-table evaluations and the medium sums, portable and, where this
// build has the assembly, AVX2 (and the group kernel with AVX-512 and GFNI).
var Kernels = cpu.NewFamily("zerocheck", archLevels...)

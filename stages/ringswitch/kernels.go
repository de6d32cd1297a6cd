package ringswitch

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the reduction kernel family ("reduce" in cpu's registry, shared by the
// lincheck and the ring switch): here the ring weight's byte-table pairs (Weights),
// portable and, where this build has the assembly, AVX2 and AVX-512 with GFNI.
var Kernels = cpu.NewFamily("reduce", archLevels...)

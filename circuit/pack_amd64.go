//go:build !purego

package circuit

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// storeLanesNT copies, for j < lanes, the n words at src[j] to dst + stride·j words
// with non-temporal stores (pack_amd64.s), which write whole cache lines to
// memory without first reading them into the cache, and ends with SFENCE.
// Preconditions: dst + stride·j is 32-byte aligned for every j and n is a
// multiple of 4, at most 64 (storeLanes passes whole 64-byte lines). It needs
// AVX2.
//
//go:noescape
func storeLanesNT(dst *field.K, stride int, src *uint64, lanes, n int)

// storeLanesArch stores words [t0, t0+n) of the first lanes rows of mt to dst
// (row j at dst[j·stride:]) with storeLanesNT when the level has AVX2, and
// reports whether it did. The caller has aligned dst and n (see storeLanes).
func storeLanesArch(dst []field.K, stride int, mt *[64][64]uint64, lanes, t0, n int) bool {
	if Kernels.Level() < cpu.AVX2 {
		return false
	}
	raceWrite(unsafe.Pointer(&dst[0]), 8*((lanes-1)*stride+n))
	storeLanesNT(&dst[0], stride, &mt[0][t0], lanes, n)
	return true
}

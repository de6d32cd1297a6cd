//go:build !purego

package ringswitch

import (
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// ringPairsAVX2 writes dst_{2i+a} = Σ_g tab[g][byte g of src_i][a] for n > 0
// source elements (ring_amd64.s): one 64-byte row per byte, 48 contiguous
// output bytes per source element. Pointers need no alignment; dst must not
// overlap src.
//
//go:noescape
func ringPairsAVX2(tab *ringPairTable, src, dst *field.E, n int)

// archLevels are the "reduce" family's levels in this build beyond the portable
// one: AVX2 byte shuffles and XORs (no carry-less products) here; the lincheck's
// slot fold also has a GFNI level, which this package runs at its AVX2 kernels.
var archLevels = []cpu.Level{cpu.AVX2, cpu.AVX512GFNI}

// useAVX2 reports whether the AVX2 kernels run (Kernels' level decides).
func useAVX2() bool { return Kernels.Level() >= cpu.AVX2 }

// ringPairs writes dst[2i+a] = Σ_g tab[g][byte g of src[i]][a].
func ringPairs(tab *ringPairTable, dst, src []field.E) {
	if len(dst) != 2*len(src) {
		panic("ringswitch: ringPairs needs two outputs per source element")
	}
	if useAVX2() && len(src) > 0 {
		ringPairsAVX2(tab, &src[0], &dst[0], len(src))
		return
	}
	ringPairsGeneric(tab, dst, src)
}

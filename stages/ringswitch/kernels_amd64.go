//go:build !purego

package ringswitch

import (
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/simd"
)

// ringPairsAVX2 writes dst_{2i+a} = Σ_g tab[g][byte g of src_i][a] for n > 0
// source elements (ring_amd64.s): one 64-byte row per byte, 48 contiguous
// output bytes per source element. Pointers need no alignment; dst must not
// overlap src.
//
//go:noescape
func ringPairsAVX2(tab *ringPairTable, src, dst *field.E, n int)

// archLevels are the kernels this build has beyond the portable ones: AVX2 byte
// shuffles and XORs (no carry-less products), and simd's GFNI bit folds.
var archLevels = []cpu.Level{cpu.AVX2, cpu.AVX512GFNI}

// useAVX2 reports whether the AVX2 kernels run (Kernels' level decides).
func useAVX2() bool { return Kernels.Level() >= cpu.AVX2 }

// useGFNI reports whether the weights run simd's GFNI bit folds.
func useGFNI() bool { return Kernels.Level() >= cpu.AVX512GFNI }

// ringPairsGFNI writes dst[2i+a] = Φ(lo_a·src[i]) through the bit matrices, 64
// source elements at a time (len(src) a multiple of 64): their bytes as 24 planes,
// folded by each map's matrices, written interleaved.
func ringPairsGFNI(m *ringMatrices, dst, src []field.E) {
	if len(dst) != 2*len(src) || len(src)%64 != 0 {
		panic("ringswitch: ringPairsGFNI needs blocks of 64 sources and two outputs each")
	}
	const n = simd.BitFoldAccBytes
	var buf [3*n + 64]byte
	b := simd.Align64(buf[:])
	tb, acc := b[:n], b[n:3*n]
	for i := 0; i < len(src); i += 64 {
		simd.BytePlanes(&tb[0], &field.Words(src[i:])[0])
		clear(acc)
		simd.BitFoldApply(&acc[0], &tb[0], 1, 24, &m[0][0])
		simd.BitFoldApply(&acc[n], &tb[0], 1, 24, &m[1][0])
		simd.BitFoldOutPairs(&field.Words(dst[2*i:])[0], &acc[0], &acc[n])
	}
}

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

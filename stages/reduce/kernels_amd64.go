//go:build !purego

package reduce

import (
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

// useAVX2 reports whether the AVX2 kernels run; simd's level (detected once from
// cpuid, lowered by tests) decides.
func useAVX2() bool { return simd.Active() >= simd.AVX2VPCLMUL }

// ringPairs writes dst[2i+a] = Σ_g tab[g][byte g of src[i]][a].
func ringPairs(tab *ringPairTable, dst, src []field.E) {
	if len(dst) != 2*len(src) {
		panic("reduce: ringPairs needs two outputs per source element")
	}
	if useAVX2() && len(src) > 0 {
		ringPairsAVX2(tab, &src[0], &dst[0], len(src))
		return
	}
	ringPairsGeneric(tab, dst, src)
}

// foldTileAVX2 is foldTile8 for a full tile of foldTile groups (fold_amd64.s):
// for count > 0 words from q (slot rows stride bytes apart) it adds the tables'
// entries into out, 64 elements per word; buf is scratch.
//
//go:noescape
func foldTileAVX2(out *field.E, q *field.K, stride, count int, tab *foldTables, buf *[256]byte)

// foldTileFull adds a full tile (n = foldTile groups at slot g0) over words
// [jlo, jhi) into out, as foldTile8 does.
func foldTileFull(out []field.E, q []field.K, words, g0, jlo, jhi int, tables *foldTables) {
	if !useAVX2() || jhi <= jlo {
		foldTile8(out, q, words, g0, foldTile, jlo, jhi, &tables.t)
		return
	}
	if len(out) < (jhi-jlo)*KBits || len(q) < (g0+8*foldTile-1)*words+jhi {
		panic("reduce: foldTileFull: short buffers")
	}
	var buf [256]byte
	foldTileAVX2(&out[0], &q[g0*words+jlo], words*8, jhi-jlo, tables, &buf)
}

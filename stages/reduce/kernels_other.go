//go:build purego || !amd64

package reduce

import "github.com/leanpipe/leanpipe/field"

func useAVX2() bool { return false }

// ringPairs writes dst[2i+a] = Σ_g tab[g][byte g of src[i]][a].
func ringPairs(tab *ringPairTable, dst, src []field.E) {
	if len(dst) != 2*len(src) {
		panic("reduce: ringPairs needs two outputs per source element")
	}
	ringPairsGeneric(tab, dst, src)
}

// foldTileFull adds a full tile (foldTile groups at slot g0) over words
// [jlo, jhi) into out.
func foldTileFull(out []field.E, q []field.K, words, g0, jlo, jhi int, tables *foldTables) {
	foldTile8(out, q, words, g0, foldTile, jlo, jhi, &tables.t)
}

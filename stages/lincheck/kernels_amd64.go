//go:build !purego

package lincheck

import (
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// archLevels are the kernels this build has beyond the portable ones: AVX2 byte
// shuffles and XORs (no carry-less products).
var archLevels = []cpu.Level{cpu.AVX2, cpu.AVX512GFNI}

// useAVX2 reports whether the AVX2 kernels run (Kernels' level decides).
func useAVX2() bool { return Kernels.Level() >= cpu.AVX2 }

// useGFNI reports whether the slot fold runs the GFNI kernel (bitfold_amd64.s).
func useGFNI() bool { return Kernels.Level() >= cpu.AVX512GFNI }

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
		panic("lincheck: foldTileFull: short buffers")
	}
	var buf [256]byte
	foldTileAVX2(&out[0], &q[g0*words+jlo], words*8, jhi-jlo, tables, &buf)
}

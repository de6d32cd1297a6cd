//go:build !purego

package lincheck

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/simd"
)

// bitFoldSpan is the number of words whose accumulators (192 KiB) a worker keeps
// while the slot groups pass over them.
const bitFoldSpan = 128

// runGFNI writes out's words [jlo, jhi) (out = dst from word 0) from the dense
// slots with simd's GFNI bit folds (a slot group's 8 rows are a bit-fold group,
// its weights' matrices in f.mats), then adds the padding tail. Words go in spans
// of bitFoldSpan whose accumulators stay in cache while every tile of
// simd.BitFoldTile groups passes over them: a tile's rows are contiguous in q and
// are read one line (8 words) per row at a time.
func (f *foldJob) runGFNI(tables *foldTables, jlo, jhi int) {
	tb, acc := tables.gfniScratch()
	out := f.dst[jlo*KBits : jhi*KBits]
	groups := f.dense / 8
	for s0 := jlo; s0 < jhi; s0 += bitFoldSpan {
		s1 := min(s0+bitFoldSpan, jhi)
		clear(acc[:(s1-s0)*simd.BitFoldAccBytes])
		for g0 := 0; g0 < groups; g0 += simd.BitFoldTile {
			n := min(simd.BitFoldTile, groups-g0)
			for j0 := s0; j0 < s1; j0 += 8 {
				nw := min(8, s1-j0)
				simd.BitFoldRows(&tb[0], (*uint64)(&f.q[8*g0*f.words+j0]), 8*f.words, nw, n)
				simd.BitFoldApply(&acc[(j0-s0)*simd.BitFoldAccBytes], &tb[0], nw, n, &f.mats[24*g0])
			}
		}
		simd.BitFoldOut(&field.Words(out[(s0-jlo)*KBits:])[0], &acc[0], s1-s0)
	}
	f.addTail(out, jlo, jhi)
}

// gfniScratch returns the GFNI kernels' x-byte scratch and accumulators, 64-byte
// aligned so that no zmm access splits a cache line.
func (t *foldTables) gfniScratch() (tb, acc []byte) {
	const tbBytes, accBytes = 8 * simd.BitFoldTileBytes, bitFoldSpan * simd.BitFoldAccBytes
	if t.g == nil {
		t.g = make([]byte, tbBytes+accBytes+64)
	}
	b := simd.Align64(t.g)
	return b[:tbBytes], b[tbBytes : tbBytes+accBytes]
}

//go:build !purego

package lincheck

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/field"
)

// The GFNI slot fold. Per block of up to 8 words and tile of up to bitFoldTile slot
// groups, bitFoldGFNI first writes each group's column bytes x_c (8 slot bits of
// column c) to scratch, then, one word at a time with its 64 columns' 24-byte sums
// in 24 registers, maps every group's broadcast x bytes through the group's 24 bit
// matrices (VGF2P8AFFINEQB), two groups per XOR. bitFoldOutGFNI turns a block's
// accumulators (byte-sliced per 8 columns) into field elements.

// bitFoldTile is the number of slot groups bitFoldGFNI takes per call (its scratch
// holds their x bytes for 8 words: bitFoldTile·512 bytes).
const bitFoldTile = 64

// bitFoldAcc is the accumulator bytes of one word: 64 elements of 24 bytes.
const bitFoldAcc = 64 * 24

// bitFoldSpan is the number of words whose accumulators (192 KiB) a worker keeps
// while the slot groups pass over them.
const bitFoldSpan = 128

// bitFoldGFNI adds the weighted column sums of groups ≤ bitFoldTile slot groups
// (group g's 8 rows at q + (8g+e)·stride bytes, words [0, nw), 1 ≤ nw ≤ 8) into
// acc, using mats (24 per group, bitMatrices) and tb (bitFoldTile·512 bytes).
//
//go:noescape
func bitFoldGFNI(acc *byte, q *field.K, stride, nw, groups int, mats *uint64, tb *byte)

// bitFoldOutGFNI writes nw ≥ 1 words' accumulators to dst (64·nw elements).
//
//go:noescape
func bitFoldOutGFNI(dst *field.E, acc *byte, nw int)

// runGFNI writes out's words [jlo, jhi) (out = dst from word 0) from the dense
// slots through the bit matrices, then adds the padding tail. Words go in spans of
// bitFoldSpan whose accumulators stay in cache while every tile of slot groups
// passes over them: a tile's rows are contiguous in q and are read line by line,
// 8 words at a time.
func (f *foldJob) runGFNI(tables *foldTables, jlo, jhi int) {
	tb, acc := tables.gfniScratch()
	out := f.dst[jlo*KBits : jhi*KBits]
	groups := f.dense / 8
	for s0 := jlo; s0 < jhi; s0 += bitFoldSpan {
		s1 := min(s0+bitFoldSpan, jhi)
		clear(acc[:(s1-s0)*bitFoldAcc])
		for g0 := 0; g0 < groups; g0 += bitFoldTile {
			n := min(bitFoldTile, groups-g0)
			for j0 := s0; j0 < s1; j0 += 8 {
				bitFoldGFNI(&acc[(j0-s0)*bitFoldAcc], &f.q[8*g0*f.words+j0], 8*f.words, min(8, s1-j0), n, &f.mats[24*g0], &tb[0])
			}
		}
		bitFoldOutGFNI(&out[(s0-jlo)*KBits], &acc[0], s1-s0)
	}
	f.addTail(out, jlo, jhi)
}

// gfniScratch returns the GFNI kernel's x-byte scratch and accumulators, 64-byte
// aligned so that no zmm access splits a cache line.
func (t *foldTables) gfniScratch() (tb, acc []byte) {
	const tbBytes, accBytes = bitFoldTile * 512, bitFoldSpan * bitFoldAcc
	if t.g == nil {
		t.g = make([]byte, tbBytes+accBytes+64)
	}
	off := int(-uintptr(unsafe.Pointer(&t.g[0])) & 63)
	b := t.g[off:]
	return b[:tbBytes], b[tbBytes : tbBytes+accBytes]
}

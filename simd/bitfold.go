package simd

import (
	"math/bits"
	"unsafe"
)

// Bit folds: F2-linear maps from bits to E elements, Σ_e x_e·w_e for bits x_e and
// fixed weights w_e, computed byte by byte with GFNI. For a group of 8 weights, byte
// o of the sum is an 8x8 bit matrix applied to the byte x of the group's bits
// (BitMatrices); VGF2P8AFFINEQB applies one matrix per qword lane to 8 bytes. The
// kernels (bitfold_amd64.s, amd64 without purego; callers dispatch on their own
// family's level, cpu.AVX512GFNI) work on these layouts:
//
//   - x bytes: for a group g and a word j of 64 columns, 64 bytes (byte c: the
//     group's 8 bits of column c), at tb + BitFoldTileBytes·j + 64·g;
//   - matrices: 24 qwords per group (BitMatrices), group g at mats + 24·g;
//   - accumulators: 1536 bytes per word (BitFoldAccBytes), 24 registers, register
//     3k+l holding byte 8l+b of column 8k+p's sum at its byte 8b+p.
//
// BitFoldRows makes x bytes from bit rows (8 rows per group), BytePlanes from 64 E
// elements (their 24 bytes as the groups, one word of 64 columns); BitFoldApply adds
// every group's weighted sums into the accumulators; BitFoldOut and
// BitFoldOutPairs turn accumulators into E elements.

// Align64 returns b from its first 64-byte-aligned byte on, so that the kernels'
// zmm accesses to scratch never split a cache line (b needs 63 bytes of slack).
func Align64(b []byte) []byte { return b[int(-uintptr(unsafe.Pointer(&b[0]))&63):] }

// BitFoldTile is the number of groups whose x bytes one scratch holds per word.
const BitFoldTile = 64

// BitFoldTileBytes is the scratch stride between words' x bytes.
const BitFoldTileBytes = 64 * BitFoldTile

// BitFoldAccBytes is the accumulator bytes of one word: 64 sums of 24 bytes.
const BitFoldAccBytes = 64 * 24

// BitMatrices writes, for each group of 8 E elements w[24g : 24g+24] (words), the
// 24 matrices of the map from the group's bits x (bit e weighs element e) to byte o
// of Σ_e x_e·w_e, in VGF2P8AFFINEQB's layout: m[24g+o] has, in its byte 7-i, bit e
// set when bit 8o+i of element e is. It panics unless len(m) = len(w).
func BitMatrices(m, w []uint64) {
	if len(m) != len(w) || len(w)%24 != 0 {
		panic("simd: BitMatrices needs 24 matrices per 8 elements")
	}
	for g := range len(w) / 24 {
		ws := w[24*g : 24*g+24]
		for l := range 3 {
			var y [8]uint64
			for e := range y {
				y[e] = ws[3*e+l]
			}
			// Byte e of y[b] is byte b of element e's limb l: its bit i is bit
			// 8(8l+b)+i of element e.
			TransposeBytes8x8(&y)
			for b, x := range y {
				m[24*g+8*l+b] = bits.ReverseBytes64(Transpose8x8(x))
			}
		}
	}
}

// TransposeBytes8x8 transposes the 8x8 byte matrix whose row e is w[e] (column b =
// byte b): afterwards byte e of w[b] is what byte b of w[e] was.
func TransposeBytes8x8(w *[8]uint64) {
	for e := 0; e < 4; e++ {
		t := (w[e]>>32 ^ w[e+4]) & 0x00000000FFFFFFFF
		w[e] ^= t << 32
		w[e+4] ^= t
	}
	for _, e := range [4]int{0, 1, 4, 5} {
		t := (w[e]>>16 ^ w[e+2]) & 0x0000FFFF0000FFFF
		w[e] ^= t << 16
		w[e+2] ^= t
	}
	for e := 0; e < 8; e += 2 {
		t := (w[e]>>8 ^ w[e+1]) & 0x00FF00FF00FF00FF
		w[e] ^= t << 8
		w[e+1] ^= t
	}
}

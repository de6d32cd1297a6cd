//go:build !purego

package circuit

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/cpu"
)

// archLevels are the transpose kernels this build has beyond the portable one.
var archLevels = []cpu.Level{cpu.AVX2, cpu.AVX512GFNI}

// transpose64GFNI transposes n consecutive 64×64 bit matrices in place
// (transpose_amd64.s): the row and column index bits 3..5 are swapped with 64-bit
// shifts and masks across the eight registers holding a matrix, bits 0..2 with a
// byte permutation (VPERMB), an 8×8 bit transpose of every qword (GF2P8AFFINEQB
// with the data as the matrix) and the inverse permutation. The six index-bit
// swaps commute, so the result is Transpose64's. m points to n·64 words
// (n ≥ 0; no alignment needed); it needs AVX-512 F, BW, VBMI and GFNI.
//
//go:noescape
func transpose64GFNI(m *[64]uint64, n int)

// transpose64AVX2 transposes n consecutive 64×64 bit matrices in place
// (transpose_avx2_amd64.s) with Transpose64's six index-bit swaps, four rows per
// 256-bit register: bits 5..2 between registers (rows 32, 16, 8, 4 apart) with
// shifts and masks, bits 1 and 0 after 128-bit lane moves (VPERM2I128) and
// quadword unpacks put the paired rows in separate registers. m points to n·64
// words (n ≥ 0; no alignment needed); it needs AVX2.
//
//go:noescape
func transpose64AVX2(m *[64]uint64, n int)

// transposeMany transposes the first n matrices of m.
func transposeMany(m *[8][64]uint64, n int) {
	if n <= 0 {
		return
	}
	switch l := Kernels.Level(); {
	case l >= cpu.AVX512GFNI:
		raceReadWrite(unsafe.Pointer(m), n*512)
		transpose64GFNI(&m[0], n)
	case l >= cpu.AVX2:
		raceReadWrite(unsafe.Pointer(m), n*512)
		transpose64AVX2(&m[0], n)
	default:
		for t := range n {
			Transpose64(&m[t])
		}
	}
}

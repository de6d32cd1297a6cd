//go:build !purego

package circuit

import "github.com/leanpipe/leanpipe/cpu"

// archLevels are the transpose kernels this build has beyond the portable one.
var archLevels = []cpu.Level{cpu.AVX512GFNI}

// transpose64GFNI transposes n consecutive 64×64 bit matrices in place
// (transpose_amd64.s): the row and column index bits 3..5 are swapped with 64-bit
// shifts and masks across the eight registers holding a matrix, bits 0..2 with a
// byte permutation (VPERMB), an 8×8 bit transpose of every qword (GF2P8AFFINEQB
// with the data as the matrix) and the inverse permutation. The six index-bit
// swaps commute, so the result is Transpose64's.
//
//go:noescape
func transpose64GFNI(m *[64]uint64, n int)

// transposeMany transposes the first n matrices of m.
func transposeMany(m *[8][64]uint64, n int) {
	if Kernels.Level() >= cpu.AVX512GFNI && n > 0 {
		transpose64GFNI(&m[0], n)
		return
	}
	for t := range n {
		Transpose64(&m[t])
	}
}

//go:build !purego

package open

import "github.com/leanpipe/leanpipe/cpu"

// archLevels are the kernels this build has beyond the portable ones.
var archLevels = []cpu.Level{cpu.AVX2}

// xorAVX2 writes dst[i] = a[i] ^ b[i] for i < n. n is a positive multiple of 16;
// the pointers need no alignment. It needs AVX2.
//
//go:noescape
func xorAVX2(dst, a, b *uint64, n int)

// xorArch XORs the longest prefix of whole 16-word blocks and returns its length.
func xorArch(dst, a, b []uint64) int {
	n := len(dst) &^ 15
	if n > 0 {
		xorAVX2(&dst[0], &a[0], &b[0], n)
	}
	return n
}

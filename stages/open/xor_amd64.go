//go:build !purego

package open

import "github.com/leanpipe/leanpipe/cpu"

// archLevels are the kernels this build has beyond the portable ones.
var archLevels = []cpu.Level{cpu.AVX2, cpu.AVX512VPCLMUL}

// xorAVX2 writes dst[i] = a[i] ^ b[i] for i < n. n is a positive multiple of 16;
// the pointers need no alignment. It needs AVX2.
//
//go:noescape
func xorAVX2(dst, a, b *uint64, n int)

// xorAVX512 is xorAVX2 on zmm registers: n is a positive multiple of 32. It needs
// AVX-512 F.
//
//go:noescape
func xorAVX512(dst, a, b *uint64, n int)

// xorArch XORs the longest prefix of whole blocks (32 words with AVX-512, else 16)
// and returns its length.
func xorArch(dst, a, b []uint64) int {
	if Kernels.Level() >= cpu.AVX512VPCLMUL {
		n := len(dst) &^ 31
		if n > 0 {
			xorAVX512(&dst[0], &a[0], &b[0], n)
		}
		return n
	}
	n := len(dst) &^ 15
	if n > 0 {
		xorAVX2(&dst[0], &a[0], &b[0], n)
	}
	return n
}

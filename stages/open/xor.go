package open

import "github.com/leanpipe/leanpipe/cpu"

// Kernels is the opening's kernel family ("open" in cpu's registry): the vector sums
// of xorWords, portable and, where this build has the assembly, AVX2 and AVX-512.
var Kernels = cpu.NewFamily("open", archLevels...)

// xorWords writes dst = a ^ b word by word (a and b at least as long as dst): the
// sum of two E (or K) vectors. At cpu.AVX2 the bulk runs in xorAVX2, from
// cpu.AVX512VPCLMUL in xorAVX512 (xor_amd64.s); the rest, and every word at lower
// levels, in xorWordsGeneric.
func xorWords(dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	d := 0
	if Kernels.Level() >= cpu.AVX2 {
		d = xorArch(dst, a, b)
	}
	xorWordsGeneric(dst[d:], a[d:], b[d:])
}

// xorWordsGeneric is the portable xorWords.
func xorWordsGeneric(dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dst[i] = a[i] ^ b[i]
		dst[i+1] = a[i+1] ^ b[i+1]
		dst[i+2] = a[i+2] ^ b[i+2]
		dst[i+3] = a[i+3] ^ b[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] ^ b[i]
	}
}

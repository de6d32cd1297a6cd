//go:build !purego

package simd

import "github.com/leanpipe/leanpipe/cpu"

// AVX512VPCLMUL vector kernels (vec512_amd64.s). n is the number of elements, a
// positive multiple of 8; E vectors hold 3n words, K vectors n; pointers need no
// alignment. s points at an E scalar's three limbs.

//go:noescape
func mulEE512(dst, a, b *uint64, n int)

//go:noescape
func scaleE512(dst, a *uint64, s *[3]uint64, n int)

//go:noescape
func axpyE512(dst, src *uint64, s *[3]uint64, n int)

//go:noescape
func foldE512(dst, a, b *uint64, s *[3]uint64, n int)

//go:noescape
func foldPairsE512(dst, src *uint64, s *[3]uint64, n int)

//go:noescape
func foldK512(dst, a, b *uint64, s *[3]uint64, n int)

//go:noescape
func dotEE512(a, b *uint64, n int, acc *[96]uint64)

//go:noescape
func dotKE512(a, b *uint64, n int, acc *[48]uint64)

// avx512Prefix returns the number of leading elements the zmm kernels take at the
// active level: n rounded down to a multiple of 8 at AVX512VPCLMUL, else 0.
func avx512Prefix(n int) int {
	if Kernels.Level() < cpu.AVX512VPCLMUL {
		return 0
	}
	return n &^ 7
}

// sum128 folds the sixteen words of a pair of zmm accumulators (eight (lo, hi)
// pairs) into one unreduced product.
func sum128(w []uint64) u128 {
	var x u128
	for i := 0; i < 16; i += 2 {
		x.lo ^= w[i]
		x.hi ^= w[i+1]
	}
	return x
}

// finishDotKE512 reduces dotKE512's accumulators.
func finishDotKE512(acc *[48]uint64) (out [3]uint64) {
	for j := range 3 {
		c := sum128(acc[16*j : 16*j+16])
		out[j] = Reduce(c.hi, c.lo)
	}
	return out
}

// finishDotEE512 combines dotEE512's raw Karatsuba products and reduces them.
func finishDotEE512(acc *[96]uint64) [3]uint64 {
	var p [6]u128 // p0, m1, p4, q01, q12, q02
	for k := range p {
		p[k] = sum128(acc[16*k : 16*k+16])
	}
	c0 := p[0].xor(p[1]).xor(p[2]).xor(p[4])
	c1 := p[0].xor(p[3]).xor(p[4])
	c2 := p[0].xor(p[1]).xor(p[5])
	return [3]uint64{Reduce(c0.hi, c0.lo), Reduce(c1.hi, c1.lo), Reduce(c2.hi, c2.lo)}
}

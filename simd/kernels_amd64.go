//go:build !purego

package simd

import "github.com/leanpipe/leanpipe/cpu"

// archLevels are the field kernels this build has beyond the portable ones.
var archLevels = []cpu.Level{cpu.PCLMUL, cpu.AVX2VPCLMUL, cpu.AVX512VPCLMUL}

// Scalar kernels; they need PCLMULQDQ (SSE2 is part of amd64).

//go:noescape
func mulKPCLMUL(a, b uint64) uint64

//go:noescape
func mulEPCLMUL(dst, a, b *[3]uint64)

//go:noescape
func mulEKPCLMUL(dst, a *[3]uint64, k uint64)

func mulKArch(a, b uint64) uint64                 { return mulKPCLMUL(a, b) }
func mulEKScalarArch(dst, a *[3]uint64, k uint64) { mulEKPCLMUL(dst, a, k) }
func mulEArch(dst, a, b *[3]uint64)               { mulEPCLMUL(dst, a, b) }

// AVX2VPCLMUL vector kernels (vec_amd64.s). n is the number of elements, a positive
// multiple of 4; E vectors hold 3n words, K vectors n; pointers need no alignment.
// tab is the broadcast table of an E scalar built by scalarTable.

//go:noescape
func mulKKAVX2(dst, a, b *uint64, n int)

//go:noescape
func scaleEKAVX2(dst, a *uint64, s uint64, n int)

//go:noescape
func mulEKAVX2(dst, a, b *uint64, n int)

//go:noescape
func mulEEAVX2(dst, a, b *uint64, n int)

//go:noescape
func scaleEAVX2(dst, a *uint64, tab *[24]uint64, n int)

//go:noescape
func axpyEAVX2(dst, src *uint64, tab *[24]uint64, n int)

//go:noescape
func axpyKEAVX2(dst, src *uint64, tab *[24]uint64, n int)

//go:noescape
func dotKEAVX2(a, b *uint64, n int, acc *[24]uint64)

//go:noescape
func dotEEAVX2(a, b *uint64, n int, acc *[24]uint64)

//go:noescape
func foldEAVX2(dst, a, b *uint64, tab *[24]uint64, n int)

//go:noescape
func foldPairsEAVX2(dst, src *uint64, tab *[24]uint64, n int)

//go:noescape
func foldKAVX2(dst, a, b *uint64, tab *[24]uint64, n int)

//go:noescape
func foldPairsKAVX2(dst, src *uint64, tab *[24]uint64, n int)

//go:noescape
func dotPairsEEAVX2(f, b *uint64, n int, acc *[48]uint64)

// scalarTable broadcasts s0, s1, s2, s0+s1, s1+s2, s0+s2 to four words each.
func scalarTable(t *[24]uint64, s *[3]uint64) {
	v := [6]uint64{s[0], s[1], s[2], s[0] ^ s[1], s[1] ^ s[2], s[0] ^ s[2]}
	for i, x := range v {
		t[4*i], t[4*i+1], t[4*i+2], t[4*i+3] = x, x, x, x
	}
}

// finishDot reduces the unreduced accumulators of dotKEAVX2/dotEEAVX2: limb j's 128-bit
// partial sums are the (lo, hi) word pairs of acc[8j : 8j+8].
func finishDot(acc *[24]uint64) (out [3]uint64) {
	for j := range 3 {
		w := acc[8*j : 8*j+8]
		out[j] = Reduce(w[1]^w[3]^w[5]^w[7], w[0]^w[2]^w[4]^w[6])
	}
	return out
}

// avx2Prefix returns the number of leading elements the vector kernels take at the
// active level: n rounded down to a multiple of 4 at AVX2VPCLMUL, else 0.
func avx2Prefix(n int) int {
	if Kernels.Level() < cpu.AVX2VPCLMUL {
		return 0
	}
	return n &^ 3
}

// The *Arch hooks process a prefix of the vectors with the active level's kernel and
// return how many elements they did; the caller finishes with the portable twin.

func mulKKArch(dst, a, b []uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	d := avx2Prefix(len(dst))
	if d > 0 {
		mulKKAVX2(&dst[0], &a[0], &b[0], d)
	}
	for i := d; i < len(dst); i++ {
		dst[i] = mulKPCLMUL(a[i], b[i])
	}
	return len(dst)
}

func mulEKArch(dst, a, b []uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	d := avx2Prefix(len(b))
	if d > 0 {
		mulEKAVX2(&dst[0], &a[0], &b[0], d)
	}
	for i := d; i < len(b); i++ {
		k := b[i]
		dst[3*i] = mulKPCLMUL(a[3*i], k)
		dst[3*i+1] = mulKPCLMUL(a[3*i+1], k)
		dst[3*i+2] = mulKPCLMUL(a[3*i+2], k)
	}
	return len(b)
}

func scaleEKArch(dst, a []uint64, s uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	d := 3 * avx2Prefix(len(dst)/3)
	if d > 0 {
		scaleEKAVX2(&dst[0], &a[0], s, d/3)
	}
	for i := d; i < len(dst); i++ {
		dst[i] = mulKPCLMUL(a[i], s)
	}
	return len(dst) / 3
}

func mulEEArch(dst, a, b []uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	z := 3 * avx512Prefix(len(dst)/3)
	if z > 0 {
		mulEE512(&dst[0], &a[0], &b[0], z/3)
	}
	d := z + 3*avx2Prefix((len(dst)-z)/3)
	if d > z {
		mulEEAVX2(&dst[z], &a[z], &b[z], (d-z)/3)
	}
	for i := d; i < len(dst); i += 3 {
		mulEPCLMUL((*[3]uint64)(dst[i:]), (*[3]uint64)(a[i:]), (*[3]uint64)(b[i:]))
	}
	return len(dst) / 3
}

func scaleEArch(dst, a []uint64, s *[3]uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	z := 3 * avx512Prefix(len(dst)/3)
	if z > 0 {
		scaleE512(&dst[0], &a[0], s, z/3)
	}
	d := z + 3*avx2Prefix((len(dst)-z)/3)
	if d > z {
		var tab [24]uint64
		scalarTable(&tab, s)
		scaleEAVX2(&dst[z], &a[z], &tab, (d-z)/3)
	}
	for i := d; i < len(dst); i += 3 {
		mulEPCLMUL((*[3]uint64)(dst[i:]), (*[3]uint64)(a[i:]), s)
	}
	return len(dst) / 3
}

func axpyEArch(dst, src []uint64, s *[3]uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	z := 3 * avx512Prefix(len(dst)/3)
	if z > 0 {
		axpyE512(&dst[0], &src[0], s, z/3)
	}
	d := z + 3*avx2Prefix((len(dst)-z)/3)
	if d > z {
		var tab [24]uint64
		scalarTable(&tab, s)
		axpyEAVX2(&dst[z], &src[z], &tab, (d-z)/3)
	}
	var t [3]uint64
	for i := d; i < len(dst); i += 3 {
		mulEPCLMUL(&t, (*[3]uint64)(src[i:]), s)
		dst[i] ^= t[0]
		dst[i+1] ^= t[1]
		dst[i+2] ^= t[2]
	}
	return len(dst) / 3
}

func axpyKEArch(dst, src []uint64, s *[3]uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	d := avx2Prefix(len(src))
	if d > 0 {
		var tab [24]uint64
		scalarTable(&tab, s)
		axpyKEAVX2(&dst[0], &src[0], &tab, d)
	}
	for i := d; i < len(src); i++ {
		k := src[i]
		dst[3*i] ^= mulKPCLMUL(k, s[0])
		dst[3*i+1] ^= mulKPCLMUL(k, s[1])
		dst[3*i+2] ^= mulKPCLMUL(k, s[2])
	}
	return len(src)
}

func dotKEArch(a, b []uint64) [3]uint64 {
	if Kernels.Level() < cpu.PCLMUL {
		return dotKEGeneric(a, b)
	}
	var out [3]uint64
	z := avx512Prefix(len(a))
	if z > 0 {
		var acc [48]uint64
		dotKE512(&a[0], &b[0], z, &acc)
		out = finishDotKE512(&acc)
	}
	d := z + avx2Prefix(len(a)-z)
	if d > z {
		var acc [24]uint64
		dotKEAVX2(&a[z], &b[3*z], d-z, &acc)
		t := finishDot(&acc)
		out = [3]uint64{out[0] ^ t[0], out[1] ^ t[1], out[2] ^ t[2]}
	}
	for i := d; i < len(a); i++ {
		k := a[i]
		out[0] ^= mulKPCLMUL(k, b[3*i])
		out[1] ^= mulKPCLMUL(k, b[3*i+1])
		out[2] ^= mulKPCLMUL(k, b[3*i+2])
	}
	return out
}

func dotEEArch(a, b []uint64) [3]uint64 {
	if Kernels.Level() < cpu.PCLMUL {
		return dotEEGeneric(a, b)
	}
	var out, t [3]uint64
	z := 3 * avx512Prefix(len(a)/3)
	if z > 0 {
		var acc [96]uint64
		dotEE512(&a[0], &b[0], z/3, &acc)
		out = finishDotEE512(&acc)
	}
	d := z + 3*avx2Prefix((len(a)-z)/3)
	if d > z {
		var acc [24]uint64
		dotEEAVX2(&a[z], &b[z], (d-z)/3, &acc)
		t = finishDot(&acc)
		out = [3]uint64{out[0] ^ t[0], out[1] ^ t[1], out[2] ^ t[2]}
	}
	for i := d; i < len(a); i += 3 {
		mulEPCLMUL(&t, (*[3]uint64)(a[i:]), (*[3]uint64)(b[i:]))
		out[0] ^= t[0]
		out[1] ^= t[1]
		out[2] ^= t[2]
	}
	return out
}

func foldEArch(dst, a, b []uint64, r *[3]uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	var d [3]uint64
	z := 3 * avx512Prefix(len(dst)/3)
	if z > 0 {
		foldE512(&dst[0], &a[0], &b[0], r, z/3)
	}
	p := z + 3*avx2Prefix((len(dst)-z)/3)
	if p > z {
		var tab [24]uint64
		scalarTable(&tab, r)
		foldEAVX2(&dst[z], &a[z], &b[z], &tab, (p-z)/3)
	}
	for i := p; i < len(dst); i += 3 {
		a0, a1, a2 := a[i], a[i+1], a[i+2]
		d = [3]uint64{a0 ^ b[i], a1 ^ b[i+1], a2 ^ b[i+2]}
		mulEPCLMUL(&d, &d, r)
		dst[i], dst[i+1], dst[i+2] = a0^d[0], a1^d[1], a2^d[2]
	}
	return len(dst) / 3
}

func foldPairsEArch(dst, src []uint64, r *[3]uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	var d [3]uint64
	z := 3 * avx512Prefix(len(dst)/3)
	if z > 0 {
		foldPairsE512(&dst[0], &src[0], r, z/3)
	}
	p := z + 3*avx2Prefix((len(dst)-z)/3)
	if p > z {
		var tab [24]uint64
		scalarTable(&tab, r)
		foldPairsEAVX2(&dst[z], &src[2*z], &tab, (p-z)/3)
	}
	for i := p; i < len(dst); i += 3 {
		j := 2 * i
		a0, a1, a2 := src[j], src[j+1], src[j+2]
		d = [3]uint64{a0 ^ src[j+3], a1 ^ src[j+4], a2 ^ src[j+5]}
		mulEPCLMUL(&d, &d, r)
		dst[i], dst[i+1], dst[i+2] = a0^d[0], a1^d[1], a2^d[2]
	}
	return len(dst) / 3
}

func foldKArch(dst, a, b []uint64, r *[3]uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	z := avx512Prefix(len(a))
	if z > 0 {
		foldK512(&dst[0], &a[0], &b[0], r, z)
	}
	p := z + avx2Prefix(len(a)-z)
	if p > z {
		var tab [24]uint64
		scalarTable(&tab, r)
		foldKAVX2(&dst[3*z], &a[z], &b[z], &tab, p-z)
	}
	for i := p; i < len(a); i++ {
		k := a[i]
		d := k ^ b[i]
		dst[3*i] = k ^ mulKPCLMUL(d, r[0])
		dst[3*i+1] = mulKPCLMUL(d, r[1])
		dst[3*i+2] = mulKPCLMUL(d, r[2])
	}
	return len(a)
}

func foldPairsKArch(dst, src []uint64, r *[3]uint64) int {
	if Kernels.Level() < cpu.PCLMUL {
		return 0
	}
	n := len(src) / 2
	p := avx2Prefix(n)
	if p > 0 {
		var tab [24]uint64
		scalarTable(&tab, r)
		foldPairsKAVX2(&dst[0], &src[0], &tab, p)
	}
	for i := p; i < n; i++ {
		k := src[2*i]
		d := k ^ src[2*i+1]
		dst[3*i] = k ^ mulKPCLMUL(d, r[0])
		dst[3*i+1] = mulKPCLMUL(d, r[1])
		dst[3*i+2] = mulKPCLMUL(d, r[2])
	}
	return n
}

func dotPairsEEArch(f, b []uint64) (q0, q1, qInf [3]uint64) {
	if Kernels.Level() < cpu.PCLMUL {
		return dotPairsEEGeneric(f, b)
	}
	d := 3 * avx2Prefix(len(f)/3)
	if d > 0 {
		var acc [48]uint64
		dotPairsEEAVX2(&f[0], &b[0], d/3, &acc)
		for j := range 3 {
			w := acc[8*j : 8*j+8] // c_j: even lanes (lo elements), then odd lanes (hi elements)
			q0[j] = Reduce(w[1]^w[3], w[0]^w[2])
			q1[j] = Reduce(w[5]^w[7], w[4]^w[6])
		}
		// Raw products p0, m1, p4, q01, q12, q02, each summed over both lanes.
		var p [6]u128
		for k := range 6 {
			w := acc[24+4*k : 28+4*k]
			p[k] = u128{w[1] ^ w[3], w[0] ^ w[2]}
		}
		c0 := p[0].xor(p[1]).xor(p[2]).xor(p[4])
		c1 := p[0].xor(p[3]).xor(p[4])
		c2 := p[0].xor(p[1]).xor(p[5])
		qInf = [3]uint64{Reduce(c0.hi, c0.lo), Reduce(c1.hi, c1.lo), Reduce(c2.hi, c2.lo)}
	}
	var t [3]uint64
	for i := d; i < len(f); i += 6 {
		lo, hi := (*[3]uint64)(f[i:]), (*[3]uint64)(f[i+3:])
		blo, bhi := (*[3]uint64)(b[i:]), (*[3]uint64)(b[i+3:])
		mulEPCLMUL(&t, lo, blo)
		q0 = [3]uint64{q0[0] ^ t[0], q0[1] ^ t[1], q0[2] ^ t[2]}
		mulEPCLMUL(&t, hi, bhi)
		q1 = [3]uint64{q1[0] ^ t[0], q1[1] ^ t[1], q1[2] ^ t[2]}
		sf := [3]uint64{lo[0] ^ hi[0], lo[1] ^ hi[1], lo[2] ^ hi[2]}
		sb := [3]uint64{blo[0] ^ bhi[0], blo[1] ^ bhi[1], blo[2] ^ bhi[2]}
		mulEPCLMUL(&t, &sf, &sb)
		qInf = [3]uint64{qInf[0] ^ t[0], qInf[1] ^ t[1], qInf[2] ^ t[2]}
	}
	return
}

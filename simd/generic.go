package simd

import "math/bits"

// clmulGeneric returns the 128-bit carry-less product of x and y as (hi, lo).
//
// It uses integer multiplication with holes: x and y are split into five parts x_r,
// y_s holding the bits at positions ≡ r (mod 5). Every column of an integer product
// x_r·y_s sums at most 13 one-bit terms, so it never carries 5 places into the next
// column of its class, and bit k of the product is the parity of column k whenever
// k ≡ r+s (mod 5).
func clmulGeneric(x, y uint64) (hi, lo uint64) {
	// m_r has the bits at positions ≡ r (mod 5). Bit 64+q of the 128-bit product is in
	// class (q+4) mod 5, so the high word of class t is masked with m_{t+1}.
	const (
		m0 = 0x1084210842108421
		m1 = 0x2108421084210842
		m2 = 0x4210842108421084
		m3 = 0x8421084210842108
		m4 = 0x0842108421084210
	)
	x0, y0 := x&m0, y&m0
	x1, y1 := x&m1, y&m1
	x2, y2 := x&m2, y&m2
	x3, y3 := x&m3, y&m3
	x4, y4 := x&m4, y&m4
	// Class 0: the products x_r·y_s with r+s ≡ 0 (mod 5).
	h00, l00 := bits.Mul64(x0, y0)
	h01, l01 := bits.Mul64(x1, y4)
	h02, l02 := bits.Mul64(x2, y3)
	h03, l03 := bits.Mul64(x3, y2)
	h04, l04 := bits.Mul64(x4, y1)
	lo |= (l00 ^ l01 ^ l02 ^ l03 ^ l04) & m0
	hi |= (h00 ^ h01 ^ h02 ^ h03 ^ h04) & m1
	// Class 1: the products x_r·y_s with r+s ≡ 1 (mod 5).
	h10, l10 := bits.Mul64(x0, y1)
	h11, l11 := bits.Mul64(x1, y0)
	h12, l12 := bits.Mul64(x2, y4)
	h13, l13 := bits.Mul64(x3, y3)
	h14, l14 := bits.Mul64(x4, y2)
	lo |= (l10 ^ l11 ^ l12 ^ l13 ^ l14) & m1
	hi |= (h10 ^ h11 ^ h12 ^ h13 ^ h14) & m2
	// Class 2: the products x_r·y_s with r+s ≡ 2 (mod 5).
	h20, l20 := bits.Mul64(x0, y2)
	h21, l21 := bits.Mul64(x1, y1)
	h22, l22 := bits.Mul64(x2, y0)
	h23, l23 := bits.Mul64(x3, y4)
	h24, l24 := bits.Mul64(x4, y3)
	lo |= (l20 ^ l21 ^ l22 ^ l23 ^ l24) & m2
	hi |= (h20 ^ h21 ^ h22 ^ h23 ^ h24) & m3
	// Class 3: the products x_r·y_s with r+s ≡ 3 (mod 5).
	h30, l30 := bits.Mul64(x0, y3)
	h31, l31 := bits.Mul64(x1, y2)
	h32, l32 := bits.Mul64(x2, y1)
	h33, l33 := bits.Mul64(x3, y0)
	h34, l34 := bits.Mul64(x4, y4)
	lo |= (l30 ^ l31 ^ l32 ^ l33 ^ l34) & m3
	hi |= (h30 ^ h31 ^ h32 ^ h33 ^ h34) & m4
	// Class 4: the products x_r·y_s with r+s ≡ 4 (mod 5).
	h40, l40 := bits.Mul64(x0, y4)
	h41, l41 := bits.Mul64(x1, y3)
	h42, l42 := bits.Mul64(x2, y2)
	h43, l43 := bits.Mul64(x3, y1)
	h44, l44 := bits.Mul64(x4, y0)
	lo |= (l40 ^ l41 ^ l42 ^ l43 ^ l44) & m4
	hi |= (h40 ^ h41 ^ h42 ^ h43 ^ h44) & m0
	return hi, lo
}

// Reduce folds the 128-bit carry-less value hi·x^64 + lo modulo x^64 + x^4 + x^3 + x + 1.
func Reduce(hi, lo uint64) uint64 {
	// x^64 ≡ x^4 + x^3 + x + 1; the bits hi shifts past x^63 fold once more, into g.
	g := hi ^ hi>>63 ^ hi>>61 ^ hi>>60
	return lo ^ g ^ g<<1 ^ g<<3 ^ g<<4
}

func mulKGeneric(a, b uint64) uint64 { return Reduce(clmulGeneric(a, b)) }

// u128 is an unreduced carry-less product.
type u128 struct{ hi, lo uint64 }

func (x u128) xor(y u128) u128 { return u128{x.hi ^ y.hi, x.lo ^ y.lo} }

func clmul(a, b uint64) u128 {
	hi, lo := clmulGeneric(a, b)
	return u128{hi, lo}
}

// mulEUnreduced returns the three limbs of a·b in E before the K reduction
// (Karatsuba: six products).
func mulEUnreduced(a0, a1, a2, b0, b1, b2 uint64) (c0, c1, c2 u128) {
	p0 := clmul(a0, b0)
	m1 := clmul(a1, b1)
	p4 := clmul(a2, b2)
	q01 := clmul(a0^a1, b0^b1)
	q12 := clmul(a1^a2, b1^b2)
	q02 := clmul(a0^a2, b0^b2)
	// With p1 = q01+p0+m1, p2 = q02+p0+m1+p4, p3 = q12+m1+p4 and y^3 = y+1:
	// c0 = p0+p3, c1 = p1+p3+p4, c2 = p2+p4.
	c0 = p0.xor(m1).xor(p4).xor(q12)
	c1 = p0.xor(q01).xor(q12)
	c2 = p0.xor(m1).xor(q02)
	return
}

func mulEGeneric(dst, a, b *[3]uint64) {
	c0, c1, c2 := mulEUnreduced(a[0], a[1], a[2], b[0], b[1], b[2])
	dst[0], dst[1], dst[2] = Reduce(c0.hi, c0.lo), Reduce(c1.hi, c1.lo), Reduce(c2.hi, c2.lo)
}

func mulEKScalarGeneric(dst, a *[3]uint64, k uint64) {
	dst[0], dst[1], dst[2] = mulKGeneric(a[0], k), mulKGeneric(a[1], k), mulKGeneric(a[2], k)
}

// The portable twins of the vector kernels; lengths are checked by the callers.

func mulKKGeneric(dst, a, b []uint64) {
	for i := range dst {
		dst[i] = mulKGeneric(a[i], b[i])
	}
}

func mulEKGeneric(dst, a, b []uint64) {
	for i := range b {
		k := b[i]
		dst[3*i] = mulKGeneric(a[3*i], k)
		dst[3*i+1] = mulKGeneric(a[3*i+1], k)
		dst[3*i+2] = mulKGeneric(a[3*i+2], k)
	}
}

func scaleEKGeneric(dst, a []uint64, s uint64) {
	for i := range dst {
		dst[i] = mulKGeneric(a[i], s)
	}
}

func mulEEGeneric(dst, a, b []uint64) {
	for i := 0; i < len(dst); i += 3 {
		mulEGeneric((*[3]uint64)(dst[i:]), (*[3]uint64)(a[i:]), (*[3]uint64)(b[i:]))
	}
}

func scaleEGeneric(dst, a []uint64, s *[3]uint64) {
	for i := 0; i < len(dst); i += 3 {
		mulEGeneric((*[3]uint64)(dst[i:]), (*[3]uint64)(a[i:]), s)
	}
}

func axpyEGeneric(dst, src []uint64, s *[3]uint64) {
	var t [3]uint64
	for i := 0; i < len(dst); i += 3 {
		mulEGeneric(&t, (*[3]uint64)(src[i:]), s)
		dst[i] ^= t[0]
		dst[i+1] ^= t[1]
		dst[i+2] ^= t[2]
	}
}

func axpyKEGeneric(dst, src []uint64, s *[3]uint64) {
	for i, k := range src {
		dst[3*i] ^= mulKGeneric(k, s[0])
		dst[3*i+1] ^= mulKGeneric(k, s[1])
		dst[3*i+2] ^= mulKGeneric(k, s[2])
	}
}

func dotKEGeneric(a, b []uint64) (out [3]uint64) {
	var c0, c1, c2 u128
	for i, k := range a {
		c0 = c0.xor(clmul(k, b[3*i]))
		c1 = c1.xor(clmul(k, b[3*i+1]))
		c2 = c2.xor(clmul(k, b[3*i+2]))
	}
	return [3]uint64{Reduce(c0.hi, c0.lo), Reduce(c1.hi, c1.lo), Reduce(c2.hi, c2.lo)}
}

func dotEEGeneric(a, b []uint64) (out [3]uint64) {
	var c0, c1, c2 u128
	for i := 0; i < len(a); i += 3 {
		d0, d1, d2 := mulEUnreduced(a[i], a[i+1], a[i+2], b[i], b[i+1], b[i+2])
		c0, c1, c2 = c0.xor(d0), c1.xor(d1), c2.xor(d2)
	}
	return [3]uint64{Reduce(c0.hi, c0.lo), Reduce(c1.hi, c1.lo), Reduce(c2.hi, c2.lo)}
}

// foldEGeneric writes dst_i = a_i + r·(a_i + b_i) for E elements at word offsets
// ia, ib of src for element i of dst (stride in elements).
func foldEGeneric(dst, a, b []uint64, r *[3]uint64) {
	var d, t [3]uint64
	for i := 0; i < len(dst); i += 3 {
		a0, a1, a2 := a[i], a[i+1], a[i+2]
		d = [3]uint64{a0 ^ b[i], a1 ^ b[i+1], a2 ^ b[i+2]}
		mulEGeneric(&t, &d, r)
		dst[i], dst[i+1], dst[i+2] = a0^t[0], a1^t[1], a2^t[2]
	}
}

func foldPairsEGeneric(dst, src []uint64, r *[3]uint64) {
	var d, t [3]uint64
	for i := 0; i < len(dst); i += 3 {
		j := 2 * i
		a0, a1, a2 := src[j], src[j+1], src[j+2]
		d = [3]uint64{a0 ^ src[j+3], a1 ^ src[j+4], a2 ^ src[j+5]}
		mulEGeneric(&t, &d, r)
		dst[i], dst[i+1], dst[i+2] = a0^t[0], a1^t[1], a2^t[2]
	}
}

func foldKGeneric(dst, a, b []uint64, r *[3]uint64) {
	for i := range a {
		k := a[i]
		d := k ^ b[i]
		dst[3*i] = k ^ mulKGeneric(d, r[0])
		dst[3*i+1] = mulKGeneric(d, r[1])
		dst[3*i+2] = mulKGeneric(d, r[2])
	}
}

func foldPairsKGeneric(dst, src []uint64, r *[3]uint64) {
	for i := 0; i < len(src)/2; i++ {
		k := src[2*i]
		d := k ^ src[2*i+1]
		dst[3*i] = k ^ mulKGeneric(d, r[0])
		dst[3*i+1] = mulKGeneric(d, r[1])
		dst[3*i+2] = mulKGeneric(d, r[2])
	}
}

func dotPairsEEGeneric(f, b []uint64) (q0, q1, qInf [3]uint64) {
	var s0, s1, sInf [3]u128
	for i := 0; i < len(f); i += 6 {
		f0, f1, f2 := f[i], f[i+1], f[i+2]
		g0, g1, g2 := f[i+3], f[i+4], f[i+5]
		b0, b1, b2 := b[i], b[i+1], b[i+2]
		d0, d1, d2 := b[i+3], b[i+4], b[i+5]
		x0, x1, x2 := mulEUnreduced(f0, f1, f2, b0, b1, b2)
		y0, y1, y2 := mulEUnreduced(g0, g1, g2, d0, d1, d2)
		z0, z1, z2 := mulEUnreduced(f0^g0, f1^g1, f2^g2, b0^d0, b1^d1, b2^d2)
		s0 = [3]u128{s0[0].xor(x0), s0[1].xor(x1), s0[2].xor(x2)}
		s1 = [3]u128{s1[0].xor(y0), s1[1].xor(y1), s1[2].xor(y2)}
		sInf = [3]u128{sInf[0].xor(z0), sInf[1].xor(z1), sInf[2].xor(z2)}
	}
	for j := range 3 {
		q0[j] = Reduce(s0[j].hi, s0[j].lo)
		q1[j] = Reduce(s1[j].hi, s1[j].lo)
		qInf[j] = Reduce(sInf[j].hi, sInf[j].lo)
	}
	return
}

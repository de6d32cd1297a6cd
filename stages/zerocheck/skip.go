package zerocheck

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/simd"
)

// The univariate-skip message: P(Λ_j) for the 64 coset points, with
//
//	P(λ) = Σ_x eq(r, x)·(â(λ, x)·b̂(λ, x) + ĉ(λ, x)),
//
// â(·, x) the polynomial of degree < 64 through the 64 bits of word x on S. On the
// coset every â(Λ_j, x) is a GF(2^8) element, so the kernel works on bit planes: the 64
// coset values of a word are 8 uint64 planes (bit j of plane p = bit p of the value at
// Λ_j), the GF(2^8) product is a bit-sliced polynomial product, and the three small
// eq coordinates (GF(2^8) images too) are a constant bit-sliced multiplication. Eight
// words summed this way give one byte per coset point; sixteen such bytes meet the
// four medium coordinates through byte tables into E, and the outer coordinates
// weight each 128-word group.

// extend writes the 8 coset planes of word w.
func (d *skipDomain) extend(w uint64, out *[8]uint64) {
	var p0, p1, p2, p3, p4, p5, p6, p7 uint64
	for i := 0; i < 8; i++ {
		t := &d.extPlanes[i][byte(w>>(8*i))]
		p0 ^= t[0]
		p1 ^= t[1]
		p2 ^= t[2]
		p3 ^= t[3]
		p4 ^= t[4]
		p5 ^= t[5]
		p6 ^= t[6]
		p7 ^= t[7]
	}
	*out = [8]uint64{p0, p1, p2, p3, p4, p5, p6, p7}
}

// extend3Generic is the portable extend3: the coset planes of a, b and c.
func (d *skipDomain) extend3Generic(a, b, c uint64, out *[3][8]uint64) {
	d.extend(a, &out[0])
	d.extend(b, &out[1])
	d.extend(c, &out[2])
}

// mulPlanes returns the bit-sliced GF(2^8) product of two plane sets: the
// polynomial product, reduced by t^8 = t^4 + t^3 + t + 1 (checked in newSkipDomain).
func mulPlanes(a, b *[8]uint64) [8]uint64 {
	b0, b1, b2, b3, b4, b5, b6, b7 := b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
	var t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14 uint64
	x := a[0]
	t0, t1, t2, t3, t4, t5, t6, t7 = x&b0, x&b1, x&b2, x&b3, x&b4, x&b5, x&b6, x&b7
	x = a[1]
	t1, t2, t3, t4, t5, t6, t7, t8 = t1^x&b0, t2^x&b1, t3^x&b2, t4^x&b3, t5^x&b4, t6^x&b5, t7^x&b6, x&b7
	x = a[2]
	t2, t3, t4, t5, t6, t7, t8, t9 = t2^x&b0, t3^x&b1, t4^x&b2, t5^x&b3, t6^x&b4, t7^x&b5, t8^x&b6, x&b7
	x = a[3]
	t3, t4, t5, t6, t7, t8, t9, t10 = t3^x&b0, t4^x&b1, t5^x&b2, t6^x&b3, t7^x&b4, t8^x&b5, t9^x&b6, x&b7
	x = a[4]
	t4, t5, t6, t7, t8, t9, t10, t11 = t4^x&b0, t5^x&b1, t6^x&b2, t7^x&b3, t8^x&b4, t9^x&b5, t10^x&b6, x&b7
	x = a[5]
	t5, t6, t7, t8, t9, t10, t11, t12 = t5^x&b0, t6^x&b1, t7^x&b2, t8^x&b3, t9^x&b4, t10^x&b5, t11^x&b6, x&b7
	x = a[6]
	t6, t7, t8, t9, t10, t11, t12, t13 = t6^x&b0, t7^x&b1, t8^x&b2, t9^x&b3, t10^x&b4, t11^x&b5, t12^x&b6, x&b7
	x = a[7]
	t7, t8, t9, t10, t11, t12, t13, t14 = t7^x&b0, t8^x&b1, t9^x&b2, t10^x&b3, t11^x&b4, t12^x&b5, t13^x&b6, x&b7
	// t^k = t^(k-8)·(t^4 + t^3 + t + 1), from the top down.
	t6, t7, t9, t10 = t6^t14, t7^t14, t9^t14, t10^t14
	t5, t6, t8, t9 = t5^t13, t6^t13, t8^t13, t9^t13
	t4, t5, t7, t8 = t4^t12, t5^t12, t7^t12, t8^t12
	t3, t4, t6, t7 = t3^t11, t4^t11, t6^t11, t7^t11
	t2, t3, t5, t6 = t2^t10, t3^t10, t5^t10, t6^t10
	t1, t2, t4, t5 = t1^t9, t2^t9, t4^t9, t5^t9
	t0, t1, t3, t4 = t0^t8, t1^t8, t3^t8, t4^t8
	return [8]uint64{t0, t1, t2, t3, t4, t5, t6, t7}
}

// mulByte returns e·v for a GF(2^8) constant e, by Horner's rule on bit-sliced
// planes: multiplying by t moves plane k to k+1 and folds plane 7 back through
// t^8 = t^4 + t^3 + t + 1.
func mulByte(v *[8]uint64, e byte) [8]uint64 {
	v0, v1, v2, v3, v4, v5, v6, v7 := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	var a0, a1, a2, a3, a4, a5, a6, a7 uint64
	for u := 7; u >= 0; u-- {
		a0, a1, a2, a3, a4, a5, a6, a7 = a7, a0^a7, a1, a2^a7, a3^a7, a4, a5, a6
		if e>>u&1 != 0 {
			a0, a1, a2, a3, a4, a5, a6, a7 = a0^v0, a1^v1, a2^v2, a3^v3, a4^v4, a5^v5, a6^v6, a7^v7
		}
	}
	return [8]uint64{a0, a1, a2, a3, a4, a5, a6, a7}
}

// planesToBytes writes byte j = Σ_p (bit j of y[p]) << p.
func planesToBytes(y *[8]uint64, out *[skipSize]byte) {
	for bi := 0; bi < 8; bi++ {
		s := 8 * uint(bi)
		m := (y[0]>>s)&0xff | (y[1]>>s)&0xff<<8 | (y[2]>>s)&0xff<<16 | (y[3]>>s)&0xff<<24 |
			(y[4]>>s)&0xff<<32 | (y[5]>>s)&0xff<<40 | (y[6]>>s)&0xff<<48 | (y[7]>>s)&0xff<<56
		m = simd.Transpose8x8(m)
		for j := 0; j < 8; j++ {
			out[8*bi+j] = byte(m >> (8 * j))
		}
	}
}

// planesBytesGeneric is planesToBytes on each of the 16 plane sets.
func planesBytesGeneric(planes *[1 << nMedium][8]uint64, out *[1 << nMedium][skipSize]byte) {
	for k := range planes {
		planesToBytes(&planes[k], &out[k])
	}
}

// groupPlanesGeneric writes, for each medium index k, the 8 planes of
// Σ_i eqNorm_small(i)·(â·b̂ + ĉ)(Λ_j, x) over the 8 words x = 8k + i of the group.
func (d *skipDomain) groupPlanesGeneric(a, b, c []field.K, planes *[1 << nMedium][8]uint64) {
	a, b, c = a[:groupSize], b[:groupSize], c[:groupSize]
	var ext [3][8]uint64
	for k := 0; k < 1<<nMedium; k++ {
		var y [8]uint64
		for i := 0; i < 1<<nSmall; i++ {
			x := k<<nSmall | i
			aw, bw, cw := uint64(a[x]), uint64(b[x]), uint64(c[x])
			if aw|bw|cw == 0 {
				continue
			}
			d.extend3(aw, bw, cw, &ext)
			v := mulPlanes(&ext[0], &ext[1])
			for p := range v {
				v[p] ^= ext[2][p]
			}
			if e := d.smallNorm[i]; e != 1 {
				v = mulByte(&v, e)
			}
			for q := range y {
				y[q] ^= v[q]
			}
		}
		planes[k] = y
	}
}

// groupValues sets out[j] to the sum over the 128 words of one group of
// eqNorm_small·eq_medium(x)·(â·b̂ + ĉ)(Λ_j, x) (see denormalize).
func (d *skipDomain) groupValues(a, b, c []field.K, out *[skipSize]field.E) {
	var planes [1 << nMedium][8]uint64
	d.groupPlanes(a[:groupSize], b[:groupSize], c[:groupSize], &planes)
	var bytes [1 << nMedium][skipSize]byte
	planesBytes(&planes, &bytes)
	d.mediumSum(&bytes, out)
}

// mediumSumGeneric sets out[j] = Σ_k medium[k][bytes[k][j]].
func (d *skipDomain) mediumSumGeneric(bytes *[1 << nMedium][skipSize]byte, out *[skipSize]field.E) {
	for j := range out {
		var acc field.E
		for k := range bytes {
			acc = acc.Add(d.medium[k][bytes[k][j]])
		}
		out[j] = acc
	}
}

// skipMessage computes P on the coset. rOuter are the eq coordinates of the group
// index (r[NInner:]).
func skipMessage(d *skipDomain, a, b, c words, rOuter []field.E, workers par.Workers) [skipSize]field.E {
	nGroups := 1 << len(rOuter)
	headGroups := len(a.head) / groupSize
	eqOuter := takeTable(nGroups)
	defer putTable(eqOuter)
	field.EqTableOn(eqOuter, rOuter, workers)

	parts := make([][skipSize]field.E, workers.N())
	workers.For(headGroups, func(w, lo, hi int) {
		acc := &parts[w]
		var v [skipSize]field.E
		for g := lo; g < hi; g++ {
			s := g * groupSize
			d.groupValues(a.head[s:], b.head[s:], c.head[s:], &v)
			field.AddScaledE(acc[:], v[:], eqOuter[g])
		}
	}, par.PerWorker(32)) // fine chunks: the workers finish together
	var out [skipSize]field.E
	for w := range parts {
		for j := range out {
			out[j] = out[j].Add(parts[w][j])
		}
	}
	if a.pad == nil {
		return d.denormalize(out)
	}
	// The tail: every instance from the live count on is the padding instance, so its
	// groups are summed once and weighted by the eq mass of the tail instances.
	padGroups := len(a.pad) / groupSize
	lg := log2(padGroups)
	eqIn := takeTable(padGroups)
	defer putTable(eqIn)
	field.EqTable(eqIn, rOuter[:lg])
	mass := tailMass(rOuter[lg:], headGroups/padGroups)
	var tail, v [skipSize]field.E
	for g := 0; g < padGroups; g++ {
		s := g * groupSize
		d.groupValues(a.pad[s:], b.pad[s:], c.pad[s:], &v)
		for j := range v {
			tail[j] = tail[j].Add(eqIn[g].Mul(v[j]))
		}
	}
	for j := range out {
		out[j] = out[j].Add(mass.Mul(tail[j]))
	}
	return d.denormalize(out)
}

// denormalize multiplies by the common factor the small eq weights left out.
func (d *skipDomain) denormalize(v [skipSize]field.E) [skipSize]field.E {
	f := field.Phi8(d.smallScale)
	for j := range v {
		v[j] = v[j].MulK(f)
	}
	return v
}

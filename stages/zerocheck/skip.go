package zerocheck

import (
	"github.com/leanpipe/leanpipe/field"
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

// mulPlanes returns the bit-sliced GF(2^8) product of two plane sets.
func (d *skipDomain) mulPlanes(a, b *[8]uint64) [8]uint64 {
	var t [15]uint64
	for p := 0; p < 8; p++ {
		ap := a[p]
		t[p+0] ^= ap & b[0]
		t[p+1] ^= ap & b[1]
		t[p+2] ^= ap & b[2]
		t[p+3] ^= ap & b[3]
		t[p+4] ^= ap & b[4]
		t[p+5] ^= ap & b[5]
		t[p+6] ^= ap & b[6]
		t[p+7] ^= ap & b[7]
	}
	var out [8]uint64
	copy(out[:], t[:8])
	for k := 0; k < 7; k++ {
		hi := t[8+k]
		if hi == 0 {
			continue
		}
		red := d.red[k]
		for q := 0; q < 8; q++ {
			out[q] ^= hi & -uint64(red>>q&1)
		}
	}
	return out
}

// transpose8 transposes the 8x8 bit matrix whose row i is byte i of x.
func transpose8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	x ^= t ^ t<<28
	return x
}

// planesToBytes writes byte j = Σ_p (bit j of y[p]) << p.
func planesToBytes(y *[8]uint64, out *[skipSize]byte) {
	for bi := 0; bi < 8; bi++ {
		s := 8 * uint(bi)
		m := (y[0]>>s)&0xff | (y[1]>>s)&0xff<<8 | (y[2]>>s)&0xff<<16 | (y[3]>>s)&0xff<<24 |
			(y[4]>>s)&0xff<<32 | (y[5]>>s)&0xff<<40 | (y[6]>>s)&0xff<<48 | (y[7]>>s)&0xff<<56
		m = transpose8(m)
		for j := 0; j < 8; j++ {
			out[8*bi+j] = byte(m >> (8 * j))
		}
	}
}

// groupValues adds to out[j] the sum over the 128 words of one group of
// eq_small·eq_medium(x)·(â·b̂ + ĉ)(Λ_j, x).
func (d *skipDomain) groupValues(a, b, c []field.K, out *[skipSize]field.E) {
	a, b, c = a[:groupSize], b[:groupSize], c[:groupSize]
	var pa, pb, pc [8]uint64
	var bytes [skipSize]byte
	for k := 0; k < 1<<nMedium; k++ {
		var y [8]uint64
		nz := false
		for i := 0; i < 1<<nSmall; i++ {
			x := k<<nSmall | i
			aw, bw, cw := uint64(a[x]), uint64(b[x]), uint64(c[x])
			if aw|bw|cw == 0 {
				continue
			}
			var v [8]uint64
			if aw != 0 && bw != 0 {
				d.extend(aw, &pa)
				d.extend(bw, &pb)
				v = d.mulPlanes(&pa, &pb)
			}
			if cw != 0 {
				d.extend(cw, &pc)
				for p := range v {
					v[p] ^= pc[p]
				}
			}
			m := &d.smallMask[i]
			for p := 0; p < 8; p++ {
				vp := v[p]
				if vp == 0 {
					continue
				}
				y[0] ^= vp & m[0][p]
				y[1] ^= vp & m[1][p]
				y[2] ^= vp & m[2][p]
				y[3] ^= vp & m[3][p]
				y[4] ^= vp & m[4][p]
				y[5] ^= vp & m[5][p]
				y[6] ^= vp & m[6][p]
				y[7] ^= vp & m[7][p]
			}
			nz = true
		}
		if !nz {
			continue
		}
		planesToBytes(&y, &bytes)
		tab := &d.medium[k]
		for j := 0; j < skipSize; j++ {
			if bytes[j] != 0 {
				out[j] = out[j].Add(tab[bytes[j]])
			}
		}
	}
}

// skipMessage computes P on the coset. rOuter are the eq coordinates of the group
// index (r[NInner:]).
func skipMessage(d *skipDomain, a, b, c words, rOuter []field.E, workers int) [skipSize]field.E {
	nGroups := 1 << len(rOuter)
	headGroups := len(a.head) / groupSize
	eqOuter := make([]field.E, nGroups)
	field.EqTable(eqOuter, rOuter)

	parts := make([][skipSize]field.E, max(workers, 1))
	parallelRange(headGroups, workers, func(w, lo, hi int) {
		acc := &parts[w]
		var v [skipSize]field.E
		for g := lo; g < hi; g++ {
			v = [skipSize]field.E{}
			s := g * groupSize
			d.groupValues(a.head[s:], b.head[s:], c.head[s:], &v)
			e := eqOuter[g]
			for j := range v {
				if !v[j].IsZero() {
					acc[j] = acc[j].Add(e.Mul(v[j]))
				}
			}
		}
	})
	var out [skipSize]field.E
	for w := range parts {
		for j := range out {
			out[j] = out[j].Add(parts[w][j])
		}
	}
	if a.pad == nil {
		return out
	}
	// The tail: every instance from the live count on is the padding instance, so its
	// groups are summed once and weighted by the eq mass of the tail instances.
	padGroups := len(a.pad) / groupSize
	lg := log2(padGroups)
	eqIn := make([]field.E, padGroups)
	field.EqTable(eqIn, rOuter[:lg])
	mass := tailMass(rOuter[lg:], headGroups/padGroups)
	var tail, v [skipSize]field.E
	for g := 0; g < padGroups; g++ {
		v = [skipSize]field.E{}
		s := g * groupSize
		d.groupValues(a.pad[s:], b.pad[s:], c.pad[s:], &v)
		for j := range v {
			tail[j] = tail[j].Add(eqIn[g].Mul(v[j]))
		}
	}
	for j := range out {
		out[j] = out[j].Add(mass.Mul(tail[j]))
	}
	return out
}

package ringswitch

import (
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// The dense ring weight W(u) = Φ(eq(point, u)) over the 2^mu entries of the
// committed column. Φ is F2-linear, so on E's 192 coordinate bits it is a sum of
// byte tables: Φ(a) = Σ_{g<24} T_g[byte g of a]. Weights splits off the
// lowest coordinate, eq(point, 2b + a) = lo_a·h_b with lo = eq(point_0, ·) and
// h = eq(point[1:], ·), and folds lo into the tables: row R_g[v] holds the two
// images Φ(lo_0·x_{g,v}), Φ(lo_1·x_{g,v}) of the element x_{g,v} whose byte g is v
// (by linearity Φ(lo_a·h) = Σ_g R_g[byte g of h][a]). One lookup per byte of h_b
// then yields both W(2b) and W(2b+1), and h_b = hA[·]·hB[·] is formed a block at
// a time from its two factor tables, so the 2^mu-entry eq table is never
// written. ringWeightsSimple is the direct form (Φ applied per entry) the tests
// pin this to.

// ringFoldTable is Φ as 24 byte tables over the F2-coordinates of E:
// Φ(a) = Σ_{b<24} t[b][byte b of a], bytes 0..7 of C0, 8..15 of C1, 16..23 of C2,
// each little-endian.
type ringFoldTable [24][256]field.E

// ringPairTable holds, for byte g and value v, the 64-byte row
// (Φ(lo_0·x_{g,v}), Φ(lo_1·x_{g,v}), 0, 0) as words C0, C1, C2 of each image.
type ringPairTable [24][256][8]uint64

// ringBlock is the number of h values formed per kernel call.
const ringBlock = 128

// ringMatrices is the GFNI level's form of the pair table: for a = 0, 1 the 24·24
// bit matrices (field.BitMatrices) of h ↦ Φ(lo_a·h), group g being byte g of h.
type ringMatrices [2][24 * 24]uint64

func (r *ringMatrices) fill(m *Map, lo [2]field.E) {
	for a := range r {
		img := ringImages(m, lo[a])
		field.BitMatrices(r[a][:], img[:])
	}
}

// ringBasis returns the coordinate basis element b_w of E (bit w%64 of limb w/64).
func ringBasis(w int) field.E {
	var e field.E
	bit := field.K(1) << uint(w%64)
	switch w / 64 {
	case 0:
		e.C0 = bit
	case 1:
		e.C1 = bit
	default:
		e.C2 = bit
	}
	return e
}

// ringBasisImages returns Φ(b_w) for the 192 basis elements b_w of E.
func ringBasisImages(m *Map) [192]field.E { return ringImages(m, field.One) }

// ringImages returns Φ(v·b_w) for the 192 basis elements from Φ's Frobenius
// expansion: with b_w = x^i·y^j (i = w mod 64, j = w/64),
// Φ(v·b_w) = Σ_k c_k·v^(2^k)·(x^(2^k))^i·(y^(2^k))^j, x^(2^k) in K.
func ringImages(m *Map, v field.E) [192]field.E {
	coeffs := m.Coefficients()
	var img [192]field.E
	xk := field.K(2)
	yk := field.E{C1: 1}
	for k := range coeffs {
		ck := coeffs[k].Mul(v)
		d := [3]field.E{ck, ck.Mul(yk), ck.Mul(yk.Square())}
		p := field.K(1)
		for i := 0; i < 64; i++ {
			for j := range d {
				img[64*j+i] = img[64*j+i].Add(d[j].MulK(p))
			}
			p = p.Mul(xk)
		}
		xk, yk, v = xk.Square(), yk.Square(), v.Square()
	}
	return img
}

func newRingFoldTable(m *Map) *ringFoldTable {
	images := ringBasisImages(m)
	t := new(ringFoldTable)
	for b := 0; b < 24; b++ {
		for bit := 0; bit < 8; bit++ {
			img := images[8*b+bit]
			half := 1 << bit
			for v := 0; v < half; v++ {
				t[b][half+v] = t[b][v].Add(img)
			}
		}
	}
	return t
}

// fill writes the rows for the scalars lo_0, lo_1: the images Φ(lo_a·b_w) of
// the basis, then subset sums per byte.
func (p *ringPairTable) fill(m *Map, lo [2]field.E) {
	i0, i1 := ringImages(m, lo[0]), ringImages(m, lo[1])
	for g := 0; g < 24; g++ {
		p[g][0] = [8]uint64{}
		for bit := 0; bit < 8; bit++ {
			a, b := i0[8*g+bit], i1[8*g+bit]
			img := [6]uint64{uint64(a.C0), uint64(a.C1), uint64(a.C2), uint64(b.C0), uint64(b.C1), uint64(b.C2)}
			half := 1 << bit
			for v := 0; v < half; v++ {
				src, dst := &p[g][v], &p[g][half+v]
				for k, x := range img {
					dst[k] = src[k] ^ x
				}
			}
		}
	}
}

// ringPairsGeneric is the portable ringPairs.
func ringPairsGeneric(tab *ringPairTable, dst, src []field.E) {
	for i, h := range src {
		var a0, a1, a2, b0, b1, b2 uint64
		for g := 0; g < 24; g++ {
			var limb field.K
			switch g / 8 {
			case 0:
				limb = h.C0
			case 1:
				limb = h.C1
			default:
				limb = h.C2
			}
			r := &tab[g][byte(limb>>(8*uint(g%8)))]
			a0, a1, a2 = a0^r[0], a1^r[1], a2^r[2]
			b0, b1, b2 = b0^r[3], b1^r[4], b2^r[5]
		}
		dst[2*i] = field.E{C0: field.K(a0), C1: field.K(a1), C2: field.K(a2)}
		dst[2*i+1] = field.E{C0: field.K(b0), C1: field.K(b1), C2: field.K(b2)}
	}
}

// Weights writes the dense weight table dst[u] = Φ(eq(point, u)) for u over
// the 2^len(point) entries of the committed column (low coordinate first), by
// the pair tables described above. Output does not depend on workers. It
// panics unless len(dst) = 2^len(point). It is (*Scratch).Weights on a fresh
// scratch.
func Weights(dst []field.E, point []field.E, m *Map, workers par.Workers) {
	new(Scratch).Weights(dst, point, m, workers)
}

// Scratch holds the ring switch prover's working memory: Φ's pair table
// (384 KiB) and the two eq factor tables (about 2·2^(mu/2) elements), reused
// across proofs of any shape. The zero value is ready to use; a scratch serves
// one proof at a time.
type Scratch struct {
	pairs  *ringPairTable
	mats   *ringMatrices
	hA, hB []field.E
}

// Weights is the package's Weights with the scratch's buffers; once the
// scratch has seen the shape it allocates only the goroutines' closures.
func (rs *Scratch) Weights(dst []field.E, point []field.E, m *Map, workers par.Workers) {
	mu := len(point)
	if mu >= 40 || len(dst) != 1<<mu {
		panic("ringswitch: Weights needs len(dst) = 2^len(point)")
	}
	if mu == 0 {
		ringWeightsSimple(dst, point, m, workers)
		return
	}
	var lo [2]field.E
	field.EqTable(lo[:], point[:1])
	// h_b = hA[b mod 2^nA]·hB[b >> nA] over the upper mu-1 coordinates.
	rest := point[1:]
	nA := len(rest) / 2
	rs.hA = buffers.Grow(rs.hA, 1<<nA)
	rs.hB = buffers.Grow(rs.hB, 1<<(len(rest)-nA))
	field.EqTable(rs.hA, rest[:nA])
	field.EqTable(rs.hB, rest[nA:])
	job := ringJob{hA: rs.hA, hB: rs.hB, nA: nA, dst: dst}
	if useGFNI() && min(len(rs.hA), ringBlock)%64 == 0 {
		// The GFNI kernel takes blocks of 64 h values.
		if rs.mats == nil {
			rs.mats = new(ringMatrices)
		}
		rs.mats.fill(m, lo)
		job.mats = rs.mats
	} else {
		if rs.pairs == nil {
			rs.pairs = new(ringPairTable)
		}
		rs.pairs.fill(m, lo)
		job.pairs = rs.pairs
	}
	if workers.N() <= 1 {
		job.run(0, len(dst)/2)
		return
	}
	jw := job // only the parallel path moves a copy to the heap
	workers.Range(len(dst)/2, jw.run, par.Grain(len(rs.hA)))
}

// ringJob is one Weights call: run writes dst[2b], dst[2b+1] for b in [b0, b1),
// whole blocks of hA, through the pair table or (GFNI) the matrices.
type ringJob struct {
	pairs  *ringPairTable
	mats   *ringMatrices
	hA, hB []field.E
	nA     int
	dst    []field.E
}

func (j *ringJob) run(b0, b1 int) {
	var h [ringBlock]field.E
	blk := min(len(j.hA), ringBlock)
	for b := b0; b < b1; b += blk {
		a := b & (len(j.hA) - 1)
		field.ScaleE(h[:blk], j.hA[a:a+blk], j.hB[b>>j.nA])
		if j.mats != nil {
			ringPairsGFNI(j.mats, j.dst[2*b:2*(b+blk)], h[:blk])
		} else {
			ringPairs(j.pairs, j.dst[2*b:2*(b+blk)], h[:blk])
		}
	}
}

// ringWeightsSimple is the direct Weights: the equality kernel factored in
// two halves, Φ applied to every entry through its byte tables.
func ringWeightsSimple(dst []field.E, point []field.E, m *Map, workers par.Workers) {
	mu := len(point)
	if mu >= 40 || len(dst) != 1<<mu {
		panic("ringswitch: Weights needs len(dst) = 2^len(point)")
	}
	nLo := mu / 2
	lo := make([]field.E, 1<<nLo)
	hi := make([]field.E, 1<<(mu-nLo))
	field.EqTable(lo, point[:nLo])
	field.EqTable(hi, point[nLo:])
	t := newRingFoldTable(m)
	workers.Range(len(dst), func(a, b int) {
		for blk := a; blk < b; blk += len(lo) {
			out := dst[blk : blk+len(lo)]
			field.ScaleE(out, lo, hi[blk>>nLo])
			for u := range out {
				out[u] = t.apply(out[u])
			}
		}
	}, par.Grain(len(lo)))
}

func (t *ringFoldTable) apply(a field.E) field.E {
	// Unrolled: constant row indices and byte column indices need no bounds checks.
	var x0, x1, x2 field.K
	var p *field.E
	p = &t[0][byte(a.C0)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[1][byte(a.C0>>8)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[2][byte(a.C0>>16)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[3][byte(a.C0>>24)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[4][byte(a.C0>>32)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[5][byte(a.C0>>40)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[6][byte(a.C0>>48)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[7][byte(a.C0>>56)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[8][byte(a.C1)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[9][byte(a.C1>>8)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[10][byte(a.C1>>16)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[11][byte(a.C1>>24)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[12][byte(a.C1>>32)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[13][byte(a.C1>>40)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[14][byte(a.C1>>48)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[15][byte(a.C1>>56)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[16][byte(a.C2)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[17][byte(a.C2>>8)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[18][byte(a.C2>>16)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[19][byte(a.C2>>24)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[20][byte(a.C2>>32)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[21][byte(a.C2>>40)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[22][byte(a.C2>>48)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	p = &t[23][byte(a.C2>>56)]
	x0, x1, x2 = x0^p.C0, x1^p.C1, x2^p.C2
	return field.E{C0: x0, C1: x1, C2: x2}
}

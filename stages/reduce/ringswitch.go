package reduce

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/stages/open"
)

// KBits is the packing width: bits per committed K word, and the number of
// bit-slice claims s_i the ring switch takes.
const KBits = 64

// RingMapShifts are the Frobenius shifts of the six stages composing Φ, in
// composition order: stage p maps a ↦ a + f_p·a^(2^RingMapShifts[p]).
var RingMapShifts = [6]int{32, 16, 8, 4, 2, 1}

// RingMap is the drawn F2-linear map Φ: E → E of the ring switch, given by its
// six stage challenges f_0..f_5.
type RingMap struct {
	Challenges [len(RingMapShifts)]field.E
}

// Apply returns Φ(a), stage by stage: a ← a + f_p·a^(2^shift_p).
func (m *RingMap) Apply(a field.E) field.E {
	for p, shift := range RingMapShifts {
		a = a.Add(m.Challenges[p].Mul(a.Frobenius(shift)))
	}
	return a
}

// Coefficients returns the Frobenius expansion of Φ: Φ(a) = Σ_{k<64} c_k·a^(2^k),
// with c_k = Π over the stages p whose shift bit is set in k of f_p^(2^(k mod shift_p)).
func (m *RingMap) Coefficients() [KBits]field.E {
	// frob[p][j] = f_p^(2^j) for j < shift_p.
	var frob [len(RingMapShifts)][32]field.E
	for p, shift := range RingMapShifts {
		v := m.Challenges[p]
		for j := 0; j < shift; j++ {
			frob[p][j] = v
			v = v.Square()
		}
	}
	var c [KBits]field.E
	for k := range c {
		v := field.One
		for p, shift := range RingMapShifts {
			if k&shift != 0 {
				v = v.Mul(frob[p][k%shift])
			}
		}
		c[k] = v
	}
	return c
}

// Target returns T = Σ_i g^i·Φ(s_i) for g = E(2) (the K generator x): the one
// value the 64 slice claims s collapse to.
func (m *RingMap) Target(s []field.E) field.E {
	if len(s) != KBits {
		panic(fmt.Sprintf("reduce: ring switch needs %d slice claims, got %d", KBits, len(s)))
	}
	// g^i = x^i is the single K bit i, so g^i·Φ(s_i) is a K-scalar product.
	acc := field.Zero
	for i := KBits - 1; i >= 0; i-- {
		acc = acc.MulK(2).Add(m.Apply(s[i]))
	}
	return acc
}

// RingWeightAt evaluates the multilinear extension of W(u) = Φ(eq(point, u)) at
// rPrime (both low coordinate first), from Φ's Frobenius coefficients:
// Σ_k c_k·Π_n (1 + point_n^(2^k) + rPrime_n). It panics unless the lengths agree.
func RingWeightAt(point, rPrime []field.E, coeffs *[KBits]field.E) field.E {
	if len(point) != len(rPrime) {
		panic("reduce: RingWeightAt needs points of equal length")
	}
	frob := make([]field.E, len(point))
	copy(frob, point)
	total := field.Zero
	for k := range coeffs {
		prod := coeffs[k]
		for n, v := range frob {
			prod = prod.Mul(field.One.Add(v).Add(rPrime[n]))
			frob[n] = v.Square()
		}
		total = total.Add(prod)
	}
	return total
}

// ringFoldTable is Φ as 24 byte tables over the F2-coordinates of E:
// Φ(a) = Σ_{b<24} t[b][byte b of a], bytes 0..7 of C0, 8..15 of C1, 16..23 of C2,
// each little-endian.
type ringFoldTable [24][256]field.E

func newRingFoldTable(m *RingMap) *ringFoldTable {
	t := new(ringFoldTable)
	for b := 0; b < 24; b++ {
		for bit := 0; bit < 8; bit++ {
			// The coordinate basis element with only bit 8b+bit set.
			var e field.E
			w := field.K(1) << uint((8*b+bit)%64)
			switch b / 8 {
			case 0:
				e.C0 = w
			case 1:
				e.C1 = w
			default:
				e.C2 = w
			}
			img := m.Apply(e)
			half := 1 << bit
			for v := 0; v < half; v++ {
				t[b][half+v] = t[b][v].Add(img)
			}
		}
	}
	return t
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

// RingWeights writes the dense weight table dst[u] = Φ(eq(point, u)) for u over
// the 2^len(point) entries of the committed column (low coordinate first). The
// equality kernel stays factored in two halves and Φ is applied through byte
// tables of its F2-coordinate images. It panics unless len(dst) = 2^len(point).
func RingWeights(dst []field.E, point []field.E, m *RingMap, workers int) {
	mu := len(point)
	if mu >= 40 || len(dst) != 1<<mu {
		panic("reduce: RingWeights needs len(dst) = 2^len(point)")
	}
	nLo := mu / 2
	lo := make([]field.E, 1<<nLo)
	hi := make([]field.E, 1<<(mu-nLo))
	field.EqTable(lo, point[:nLo])
	field.EqTable(hi, point[nLo:])
	t := newRingFoldTable(m)
	// Each chunk is whole blocks u = a + 2^nLo·b of one hi factor.
	parallelRange(len(dst), workers, len(lo), func(a, b int) {
		for blk := a; blk < b; blk += len(lo) {
			out := dst[blk : blk+len(lo)]
			field.ScaleE(out, lo, hi[blk>>nLo])
			for u := range out {
				out[u] = t.apply(out[u])
			}
		}
	})
}

// RingClaim is the one dense claim the 64 slice claims reduce to:
// Σ_u W(u)·q(u) = Target over the committed K column q, for the weight
// W(u) = Φ(eq(point, u)). WeightAt evaluates W's multilinear extension (the
// verifier's use); Weights is the dense table, filled on the prover side only.
// It is the opening's claim type.
type RingClaim = open.RingClaim

// sampleRingMap draws Φ's six challenges.
func sampleRingMap(sample func() field.E) *RingMap {
	m := new(RingMap)
	for p := range m.Challenges {
		m.Challenges[p] = sample()
	}
	return m
}

func newRingClaim(point, s []field.E, m *RingMap) RingClaim {
	coeffs := m.Coefficients()
	pt := append([]field.E(nil), point...)
	return RingClaim{
		Target: m.Target(s),
		WeightAt: func(rPrime []field.E) field.E {
			return RingWeightAt(pt, rPrime, &coeffs)
		},
	}
}

// RingSwitchProve runs the prover side of ring switching for the slice claims
// s_i = z(i, point) already bound on the transcript: it samples Φ (nothing is
// sent) and returns the claim with its dense weight table written into weights,
// which must hold 2^len(point) entries (nil allocates).
func RingSwitchProve(tr ProverTranscript, point, s []field.E, weights []field.E, workers int) RingClaim {
	m := sampleRingMap(tr.Sample)
	c := newRingClaim(point, s, m)
	if weights == nil {
		weights = make([]field.E, 1<<len(point))
	}
	RingWeights(weights, point, m, workers)
	c.Weights = weights
	return c
}

// RingSwitchVerify is the verifier twin of RingSwitchProve: it samples Φ and
// returns the target and the succinct weight evaluator (Weights is nil).
func RingSwitchVerify(tr VerifierTranscript, point, s []field.E) RingClaim {
	return newRingClaim(point, s, sampleRingMap(tr.Sample))
}

package ringswitch

import (
	"fmt"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
)

// KBits is the packing width: bits per committed K word, and the number of
// bit-slice claims s_i the ring switch takes.
const KBits = 64

// MapShifts are the Frobenius shifts of the six stages composing Φ, in
// composition order: stage p maps a ↦ a + f_p·a^(2^MapShifts[p]).
var MapShifts = [6]int{32, 16, 8, 4, 2, 1}

// Map is the drawn F2-linear map Φ: E → E of the ring switch, given by its
// six stage challenges f_0..f_5.
type Map struct {
	Challenges [len(MapShifts)]field.E
}

// Apply returns Φ(a), stage by stage: a ← a + f_p·a^(2^shift_p).
func (m *Map) Apply(a field.E) field.E {
	for p, shift := range MapShifts {
		a = a.Add(m.Challenges[p].Mul(a.Frobenius(shift)))
	}
	return a
}

// Coefficients returns the Frobenius expansion of Φ: Φ(a) = Σ_{k<64} c_k·a^(2^k),
// with c_k = Π over the stages p whose shift bit is set in k of f_p^(2^(k mod shift_p)).
func (m *Map) Coefficients() [KBits]field.E {
	// frob[p][j] = f_p^(2^j) for j < shift_p.
	var frob [len(MapShifts)][32]field.E
	for p, shift := range MapShifts {
		v := m.Challenges[p]
		for j := 0; j < shift; j++ {
			frob[p][j] = v
			v = v.Square()
		}
	}
	var c [KBits]field.E
	for k := range c {
		v := field.One
		for p, shift := range MapShifts {
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
func (m *Map) Target(s []field.E) field.E {
	if len(s) != KBits {
		panic(fmt.Sprintf("ringswitch: Target needs %d slice claims, got %d", KBits, len(s)))
	}
	// g^i = x^i is the single K bit i, so g^i·Φ(s_i) is a K-scalar product.
	acc := field.Zero
	for i := KBits - 1; i >= 0; i-- {
		acc = acc.MulK(2).Add(m.Apply(s[i]))
	}
	return acc
}

// WeightAt evaluates the multilinear extension of W(u) = Φ(eq(point, u)) at
// rPrime (both low coordinate first), from Φ's Frobenius coefficients:
// Σ_k c_k·Π_n (1 + point_n^(2^k) + rPrime_n). It panics unless the lengths agree.
func WeightAt(point, rPrime []field.E, coeffs *[KBits]field.E) field.E {
	if len(point) != len(rPrime) {
		panic("ringswitch: WeightAt needs points of equal length")
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

// Claim is the one dense claim the 64 slice claims reduce to:
// Σ_u W(u)·q(u) = Target over the committed K column q, for the weight
// W(u) = Φ(eq(point, u)). WeightAt evaluates W's multilinear extension (the
// verifier's use); Weights is the dense table, filled on the prover side only.
// It is the opening's claim type.
type Claim = open.RingClaim

// Transcript is the part of the Fiat–Shamir transcript the ring switch uses:
// it only draws Φ's challenges (nothing is sent), so the prover's and the
// verifier's transcripts both serve.
type Transcript interface {
	Sample() field.E
}

// sampleMap draws Φ's six challenges.
func sampleMap(sample func() field.E) *Map {
	m := new(Map)
	for p := range m.Challenges {
		m.Challenges[p] = sample()
	}
	return m
}

func newClaim(point, s []field.E, m *Map) Claim {
	coeffs := m.Coefficients()
	pt := append([]field.E(nil), point...)
	return Claim{
		Target: m.Target(s),
		WeightAt: func(rPrime []field.E) field.E {
			return WeightAt(pt, rPrime, &coeffs)
		},
	}
}

// Prove runs the prover side of ring switching for the slice claims
// s_i = z(i, point) already bound on the transcript (the lincheck's Point and
// S): it samples Φ (nothing is sent) and returns the claim with its dense
// weight table written into weights, which must hold 2^len(point) entries (nil
// allocates). It is (*Scratch).Prove on a fresh scratch.
func Prove(tr Transcript, point, s []field.E, weights []field.E, workers par.Workers) Claim {
	return new(Scratch).Prove(tr, point, s, weights, workers)
}

// Prove is the package's Prove with the scratch's table buffers. The claim
// keeps its own copy of point; Weights is weights (or a new table when nil).
func (rs *Scratch) Prove(tr Transcript, point, s []field.E, weights []field.E, workers par.Workers) Claim {
	m := sampleMap(tr.Sample)
	c := newClaim(point, s, m)
	if weights == nil {
		weights = buffers.Make[field.E](1 << len(point))
	}
	rs.Weights(weights, point, m, workers)
	c.Weights = weights
	return c
}

// Verify is the verifier twin of Prove: it samples Φ and returns the target
// and the succinct weight evaluator (Weights is nil).
func Verify(tr Transcript, point, s []field.E) Claim {
	return newClaim(point, s, sampleMap(tr.Sample))
}

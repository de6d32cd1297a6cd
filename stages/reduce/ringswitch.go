package reduce

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
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
// which must hold 2^len(point) entries (nil allocates). It is
// (*RingScratch).Prove on a fresh scratch.
func RingSwitchProve(tr ProverTranscript, point, s []field.E, weights []field.E, workers par.Workers) RingClaim {
	return new(RingScratch).Prove(tr, point, s, weights, workers)
}

// Prove is RingSwitchProve with the scratch's table buffers. The claim keeps
// its own copy of point; Weights is weights (or a new table when nil).
func (rs *RingScratch) Prove(tr ProverTranscript, point, s []field.E, weights []field.E, workers par.Workers) RingClaim {
	m := sampleRingMap(tr.Sample)
	c := newRingClaim(point, s, m)
	if weights == nil {
		weights = make([]field.E, 1<<len(point))
	}
	rs.Weights(weights, point, m, workers)
	c.Weights = weights
	return c
}

// RingSwitchVerify is the verifier twin of RingSwitchProve: it samples Φ and
// returns the target and the succinct weight evaluator (Weights is nil).
func RingSwitchVerify(tr VerifierTranscript, point, s []field.E) RingClaim {
	return newRingClaim(point, s, sampleRingMap(tr.Sample))
}

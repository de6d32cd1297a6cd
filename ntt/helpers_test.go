package ntt

import (
	"math/rand/v2"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors/hexfield"
)

// KAT decoding (internal/vectors/hexfield).
var (
	parseE = hexfield.E
)

// forwardWordsRef is the layer-by-layer forward transform from layer `start` over rows of
// s words, the oracle of the engine. Its butterflies are the dispatched kernels, which
// TestKernelLevels holds to the portable ones.
func (p *Plan) forwardWordsRef(buf []uint64, s, start int) {
	for layer := start; layer < p.logD; layer++ {
		half := (1 << (p.logD - layer - 1)) * s
		for b := range 1 << layer {
			u := buf[2*b*half : (2*b+1)*half]
			fwd(u, buf[(2*b+1)*half:(2*b+2)*half], p.twiddle(layer, b))
		}
	}
}

func randK(rng *rand.Rand, n int) []field.K {
	v := make([]field.K, n)
	for i := range v {
		v[i] = field.K(rng.Uint64())
	}
	return v
}

func randE(rng *rand.Rand, n int) []field.E {
	v := make([]field.E, n)
	for i := range v {
		v[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	return v
}

// slowHat returns Ŵ_k(q) for k < m, straight from the definition: the subspace
// polynomials by W_{k+1}(y) = W_k(y)·(W_k(y) + W_k(β_k)) evaluated at y = q and at
// y = β_k = x^k, then normalised. It shares no code with the plan.
func slowHat(q uint64, m int) []field.K {
	wq := field.K(q)
	cur := make([]field.K, m+1) // cur[i] = W_k(x^i)
	for i := range cur {
		cur[i] = field.K(1) << uint(i)
	}
	hat := make([]field.K, m)
	for k := range m {
		r := cur[k]
		hat[k] = wq.Mul(r.Inv())
		wq = wq.Mul(wq.Add(r))
		for i := k + 1; i <= m; i++ {
			cur[i] = cur[i].Mul(cur[i].Add(r))
		}
	}
	return hat
}

// slowBasis returns the novel basis X_j(q) = Π_{k: bit k of j} Ŵ_k(q) for j < 2^m.
func slowBasis(q uint64, m int) []field.K {
	hatq := slowHat(q, m)
	x := make([]field.K, 1<<m)
	x[0] = 1
	for k := range m {
		for j := range 1 << k {
			x[j|1<<k] = x[j].Mul(hatq[k])
		}
	}
	return x
}

// slowEvalK returns Σ_j coeffs[j]·X_j(q).
func slowEvalK(coeffs []field.K, q uint64, m int) field.K {
	return dotBasis(coeffs, slowBasis(q, m))
}

// dotBasis returns Σ_j coeffs[j]·x[j].
func dotBasis(coeffs, x []field.K) field.K {
	var acc field.K
	for j, c := range coeffs {
		acc ^= c.Mul(x[j])
	}
	return acc
}

// slowEvalE returns Σ_j coeffs[j]·X_j(q).
func slowEvalE(coeffs []field.E, q uint64, m int) field.E {
	x := slowBasis(q, m)
	var acc field.E
	for j, c := range coeffs {
		acc = acc.Add(c.MulK(x[j]))
	}
	return acc
}

// inducedWeight is the WHIR verifier's batched column weight of doc annex B:
// Σ_i w_i·Π_k (1 + p_k·(1 + W_k(q_i)/r_k)), built here from SubspaceRoots (test-only; the
// WHIR package owns the production one).
func inducedWeight(messageLog int, queries []uint64, weights []field.E, point []field.E) field.E {
	roots := SubspaceRoots(messageLog)
	var total field.E
	for i, q := range queries {
		basis := field.FromK(field.K(q))
		prod := weights[i]
		for k, p := range point {
			hat := basis.Mul(roots[k].Inv())
			prod = prod.Mul(field.One.Add(p.Mul(field.One.Add(hat))))
			basis = basis.Square().Add(roots[k].Mul(basis))
		}
		total = total.Add(prod)
	}
	return total
}

package recursion

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
)

// The product sumcheck the claim batches share: over tables of 2^n entries, the sum
// Σ_x Σ_t w_t·f_t(x)·g_t(x) is reduced one variable at a time, lowest first, with
// degree-2 round polynomials sent as (c0, c2) (h(0) + h(1) fixes c1).

// proveProductRounds runs len(point) rounds on the pairs (f_t, g_t) weighted by w
// (nil: all ones), folding them in place, and writes the challenges to point. The
// callers' table slices are updated: after all the rounds of a table's variables,
// each is left as its single value at the point. A table may have fewer variables than
// rounds (BatchKindClaims): once it is down to one entry a, it stands for (a, 0, 0, …),
// whose round polynomial against another such b is a·b·(1 − X)², and folds to a·(1 − r).
func proveProductRounds(tr ClaimsProver, point []field.E, f, g [][]field.E, w []field.E) {
	for i := range point {
		var q0, q1, qInf field.E
		for t := range f {
			var a0, a1, ai field.E
			if len(f[t]) == 1 {
				a0 = f[t][0].Mul(g[t][0])
				ai = a0
			} else {
				a0, a1, ai = field.SumcheckRoundLow(f[t], g[t])
			}
			if w != nil {
				a0, a1, ai = w[t].Mul(a0), w[t].Mul(a1), w[t].Mul(ai)
			}
			q0, q1, qInf = q0.Add(a0), q1.Add(a1), qInf.Add(ai)
		}
		tr.SendRoundPoly(roundCoeffs(q0, q1, qInf), false)
		r := tr.Sample()
		point[i] = r
		fold := func(v []field.E) []field.E {
			if len(v) == 1 {
				v[0] = v[0].Mul(field.One.Add(r))
				return v
			}
			h := len(v) / 2
			field.FoldLow(v[:h], v, r)
			return v[:h]
		}
		for t := range f {
			f[t], g[t] = fold(f[t]), fold(g[t])
		}
	}
}

// verifyProductRounds replays n rounds from the claimed sum and returns the
// challenges and the final running value.
func verifyProductRounds(tr ClaimsVerifier, n int, running field.E, what string) ([]field.E, field.E, error) {
	point := make([]field.E, n)
	for i := range point {
		q, err := tr.RoundPoly(3, running, nil)
		if err != nil {
			return nil, field.Zero, fmt.Errorf("recursion: %s round %d: %w", what, i, err)
		}
		point[i] = tr.Sample()
		running = field.PolyEval(q, point[i])
	}
	return point, running, nil
}

package reduce

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
)

// LincheckProve runs the prover side of the lincheck and sends exactly what
// LincheckVerify reads: LogSize-KSkip plain quadratic round polynomials, then
// the 64 slice values.
//
// q is the packed witness: block s (slot s) occupies the 2^(LogSize-KSkip)
// words [s·W, (s+1)·W), bit i of word j being column 64·j + i of the block;
// there are 2^(len(Chi)-rounds) blocks. Slots [live, len) must all hold the same
// block (the padding tail); they are folded once with their summed weight.
// live ≤ 0 means every slot is live. Output bytes do not depend on workers.
func LincheckProve(tr ProverTranscript, c Circuit, q []field.K, live int, zc ZerocheckClaims, workers int) LincheckClaim {
	rounds := lincheckRounds(c)
	if rounds < 0 || len(zc.Chi) < rounds {
		panic(fmt.Sprintf("reduce: LincheckProve: %d coordinates for %d rounds", len(zc.Chi), rounds))
	}
	size := 1 << c.LogSize()
	words := size >> KSkip
	nLog := len(zc.Chi) - rounds
	if nLog >= 40 || len(q) != words<<nLog {
		panic(fmt.Sprintf("reduce: LincheckProve: witness of %d words, want %d", len(q), words<<nLog))
	}

	alpha := tr.Sample()
	chiIn, chiOut := zc.Chi[:rounds], zc.Chi[rounds:]

	// comb = (A0 + α·B0)ᵀ·e_row + α²·e_row + α³·[constant column].
	eRow := make([]field.E, size)
	rowWeights(eRow, zc.ZSkip, chiIn)
	comb := make([]field.E, size)
	c.Transpose(comb, eRow, alpha)
	a2 := alpha.Square()
	parallelRange(size, workers, 1, func(lo, hi int) {
		field.AddScaledE(comb[lo:hi], eRow[lo:hi], a2)
	})
	comb[c.ConstCol()] = comb[c.ConstCol()].Add(a2.Mul(alpha))

	// zv[col] = ẑ(col, chi_out): the witness folded over the slots.
	eqOut := make([]field.E, 1<<nLog)
	field.EqTable(eqOut, chiOut)
	zv := make([]field.E, size)
	PartialFold(zv, q, words, eqOut, live, workers)

	// The product sumcheck Σ_col comb(col)·zv(col), top column bit first. Round
	// t's polynomial is q(X) = Σ_i (lo_i + X·(lo_i + hi_i)) products over the
	// top-bit split; q(0) comes from the running claim after round 0.
	challenges := make([]field.E, rounds)
	var running field.E
	for t := range challenges {
		half := len(zv) / 2
		e0, e1, eInf := roundEvals(comb, zv, half, t == 0, workers)
		if t > 0 {
			e0 = running.Add(e1)
		}
		coeffs := []field.E{e0, e0.Add(e1).Add(eInf), eInf}
		tr.SendRoundPoly(coeffs, false)
		r := tr.Sample()
		challenges[t] = r
		running = field.PolyEval(coeffs, r)
		foldTop(zv, half, r, workers)
		zv = zv[:half]
		if t+1 < rounds {
			foldTop(comb, half, r, workers)
			comb = comb[:half]
		}
	}
	s := make([]field.E, KBits)
	copy(s, zv)
	for _, v := range s {
		tr.Send(v)
	}
	point := append(reversed(challenges), chiOut...)
	return LincheckClaim{Point: point, S: s}
}

// roundEvals returns, over the top-bit split at half, the round polynomial's
// q(1) = Σ comb_hi·z_hi, its leading coefficient Σ (comb_lo+comb_hi)·(z_lo+z_hi)
// and, when withE0, q(0) = Σ comb_lo·z_lo.
func roundEvals(comb, zv []field.E, half int, withE0 bool, workers int) (e0, e1, eInf field.E) {
	n := max(workers, 1)
	p0 := make([]field.E, n)
	p1 := make([]field.E, n)
	pInf := make([]field.E, n)
	parallelChunks(half, workers, func(w, lo, hi int) {
		var a0, a1, aInf field.E
		for i := lo; i < hi; i++ {
			cl, ch := comb[i], comb[i+half]
			zl, zh := zv[i], zv[i+half]
			if withE0 {
				a0 = a0.Add(cl.Mul(zl))
			}
			a1 = a1.Add(ch.Mul(zh))
			aInf = aInf.Add(cl.Add(ch).Mul(zl.Add(zh)))
		}
		p0[w], p1[w], pInf[w] = a0, a1, aInf
	})
	for w := range p1 {
		e0, e1, eInf = e0.Add(p0[w]), e1.Add(p1[w]), eInf.Add(pInf[w])
	}
	return e0, e1, eInf
}

// foldTop binds the top variable of v (2·half entries) to r in place:
// v[i] ← v[i] + r·(v[i] + v[i+half]) for i < half.
func foldTop(v []field.E, half int, r field.E, workers int) {
	parallelRange(half, workers, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a := v[i]
			v[i] = a.Add(r.Mul(a.Add(v[i+half])))
		}
	})
}

// parallelChunks is parallelRange with the chunk's index w < workers.
func parallelChunks(n, workers int, fn func(w, lo, hi int)) {
	if workers < 1 {
		workers = 1
	}
	done := make(chan struct{}, workers)
	started := 0
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		if lo >= hi {
			continue
		}
		started++
		go func(w, lo, hi int) {
			defer func() { done <- struct{}{} }()
			fn(w, lo, hi)
		}(w, lo, hi)
	}
	for ; started > 0; started-- {
		<-done
	}
}

package lincheck

import (
	"fmt"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// Scratch is the lincheck prover's working memory (about 2·2^LogSize + 2^nLog
// E elements plus per-worker fold tables), reused across proofs of any shape:
// buffers grow to the largest shape seen. The zero value is ready to use. A
// scratch serves one proof at a time.
type Scratch struct {
	comb, zv, eqOut   []field.E
	skip              [1 << KSkip]field.E // L(z_skip)
	coeffs            [3]field.E
	point, challenges []field.E
	tau, pubW         []field.E // the public term's challenges and weights
	s                 [KBits]field.E
	parts             []field.E // 3 partial sums per worker
	fold              foldScratch
}

// Prove runs the prover side of the lincheck and sends exactly what Verify
// reads: LogSize-KSkip plain quadratic round polynomials, then the 64 slice
// values. It is (*Scratch).Prove on a fresh scratch.
//
// q is the packed witness: block s (slot s) occupies the 2^(LogSize-KSkip)
// words [s·W, (s+1)·W), bit i of word j being column 64·j + i of the block;
// there are 2^(len(Chi)-rounds) blocks. Slots [live, len) must all hold the same
// block (the padding tail); they are folded once with their summed weight.
// live ≤ 0 means every slot is live. Output bytes do not depend on workers.
func Prove(tr ProverTranscript, c Circuit, q []field.K, live int, zc ZerocheckClaims, workers par.Workers) Claim {
	return new(Scratch).Prove(tr, c, q, live, zc, workers)
}

// Prove is the package's Prove with the scratch's buffers: once the scratch has
// seen the shape, it allocates nothing at workers ≤ 1 (beyond what c.TransposeTensorBeside
// and the transcript do) and only the goroutines' closures at more workers. The
// returned claim's Point and S alias the scratch: they stay valid until the next
// Prove on it (copy them to keep them longer).
func (sc *Scratch) Prove(tr ProverTranscript, c Circuit, q []field.K, live int, zc ZerocheckClaims, workers par.Workers) Claim {
	return sc.ProvePublic(tr, c, q, live, zc, nil, workers)
}

// ProvePublic is Prove with a public-input term over the window pub (nil: none,
// which is Prove): after α it draws τ and adds α⁴·mask(j)·eq(τ, j) to comb at
// column Offset+j, as VerifyPublic expects. The witness must hold the public bits
// in every slot (padding slots too) or the proof will not verify.
func (sc *Scratch) ProvePublic(tr ProverTranscript, c Circuit, q []field.K, live int, zc ZerocheckClaims, pub *Window, workers par.Workers) Claim {
	rounds := lincheckRounds(c)
	if rounds < 0 || len(zc.Chi) < rounds {
		panic(fmt.Sprintf("lincheck: Prove: %d coordinates for %d rounds", len(zc.Chi), rounds))
	}
	size := 1 << c.LogSize()
	words := size >> KSkip
	nLog := len(zc.Chi) - rounds
	if nLog >= 40 || len(q) != words<<nLog {
		panic(fmt.Sprintf("lincheck: Prove: witness of %d words, want %d", len(q), words<<nLog))
	}
	if pub != nil {
		if err := pub.check(c.LogSize()); err != nil {
			panic(err.Error())
		}
	}
	alpha := tr.Sample()
	if pub != nil {
		sc.tau = buffers.Grow(sc.tau, pub.Log)
		for i := range sc.tau {
			sc.tau[i] = tr.Sample()
		}
	}
	chiIn, chiOut := zc.Chi[:rounds], zc.Chi[rounds:]

	// comb = (A0 + α·B0)ᵀ·e_row + α²·e_row + α³·[constant column] (+ the public
	// term), and zv[col] = ẑ(col, chi_out), the witness folded over the slots. The two
	// are independent: on a large circuit with two or more workers, the fold's
	// chunks run beside the circuit's transpose walk, on the same workers, after its
	// segments (TransposeTensorBeside): a worker left without a segment while the
	// other walks the last one folds. A walk that is serial (a short program, or
	// one not yet segmented) keeps a worker while the others fold.
	sc.comb = buffers.GrowUninit(sc.comb, size) // the transpose walk clears it
	sc.eqOut = buffers.Grow(sc.eqOut, 1<<nLog)
	sc.zv = buffers.GrowUninit(sc.zv, size) // partialFold writes it in full
	if workers.N() >= 2 && c.LogSize() >= concurrentCombLog {
		field.EqTable(sc.eqOut, chiOut)
		sc.buildComb(c, zc, chiIn, alpha, pub, workers, partialFoldLoop(sc.zv, q, words, sc.eqOut, live, workers, &sc.fold))
	} else {
		sc.buildComb(c, zc, chiIn, alpha, pub, workers)
		field.EqTable(sc.eqOut, chiOut)
		partialFold(sc.zv, q, words, sc.eqOut, live, workers, &sc.fold)
	}
	challenges := sc.sumcheck(tr, rounds, workers)
	for _, v := range sc.s {
		tr.Send(v)
	}
	sc.point = buffers.Grow(sc.point, rounds+len(chiOut))
	for i, x := range challenges {
		sc.point[rounds-1-i] = x
	}
	copy(sc.point[rounds:], chiOut)
	return Claim{Point: sc.point, S: sc.s[:]}
}

// sumcheck runs the product sumcheck Σ_col comb(col)·zv(col) over sc.comb and sc.zv
// (2^(rounds+KSkip) entries each, both overwritten), top column bit first, sending
// each round's polynomial; it leaves the 64 folded values in sc.s and returns the
// round challenges. Round t's polynomial is q(X) = Σ_i (lo_i + X·(lo_i + hi_i))
// products over the top-bit split; q(0) comes from the running claim after round 0.
func (sc *Scratch) sumcheck(tr ProverTranscript, rounds int, workers par.Workers) []field.E {
	comb, zv := sc.comb, sc.zv
	if cap(sc.challenges) < rounds {
		sc.challenges = make([]field.E, rounds)
	}
	challenges := sc.challenges[:rounds]
	sc.parts = buffers.Grow(sc.parts, 3*workers.N())
	var running field.E
	// Round 0's sums are taken alone; every later round's are taken in the same
	// pass as the previous round's fold (foldEvals), which reads the tables once.
	var e0, e1, eInf field.E
	if rounds > 0 {
		e0, e1, eInf = roundEvals(comb, zv, len(zv)/2, true, workers, sc.parts)
	}
	for t := range challenges {
		if workers.Stopped() {
			break // the stage fails with the workers' error
		}
		half := len(zv) / 2
		if t > 0 {
			e0 = running.Add(e1)
		}
		sc.coeffs = [3]field.E{e0, e0.Add(e1).Add(eInf), eInf}
		tr.SendRoundPoly(sc.coeffs[:], false)
		r := tr.Sample()
		challenges[t] = r
		running = field.PolyEval(sc.coeffs[:], r)
		if t+1 < rounds {
			_, e1, eInf = foldEvals(comb, zv, half, r, workers, sc.parts)
			comb = comb[:half]
		} else {
			foldTop(zv, half, r, workers)
		}
		zv = zv[:half]
	}
	copy(sc.s[:], zv)
	return challenges
}

// concurrentCombLog is the smallest circuit (log2 columns) whose transpose walk runs
// beside the slot fold when there are two or more workers.
var concurrentCombLog = 18

// buildComb writes sc.comb (see ProvePublic) from the row weights at (ZSkip, chiIn),
// e_row = L(ZSkip) ⊗ eq(chiIn, ·), which is never formed: the transpose walk takes
// it as a tensor, and adds the α²·e_row term itself. The loops beside run on the
// same workers as the walk.
func (sc *Scratch) buildComb(c Circuit, zc ZerocheckClaims, chiIn []field.E, alpha field.E, pub *Window, workers par.Workers, beside ...par.Loop) {
	skipDomain.Weights(sc.skip[:], zc.ZSkip)
	comb := sc.comb
	a2 := alpha.Square()
	c.TransposeTensorBeside(comb, circuit.Tensor{Low: sc.skip[:], High: chiIn}, alpha, a2, workers, beside...)
	comb[c.ConstCol()] = comb[c.ConstCol()].Add(a2.Mul(alpha))
	if pub != nil {
		sc.pubW = buffers.Grow(sc.pubW, 1<<pub.Log)
		addPublic(comb, *pub, sc.tau, a2.Square(), sc.pubW)
	}
}

// roundEvals returns, over the top-bit split at half, the round polynomial's
// q(1) = Σ comb_hi·z_hi, its leading coefficient Σ (comb_lo+comb_hi)·(z_lo+z_hi)
// and, when withE0, q(0) = Σ comb_lo·z_lo. parts holds 3 partial sums per worker.
func roundEvals(comb, zv []field.E, half int, withE0 bool, workers par.Workers, parts []field.E) (e0, e1, eInf field.E) {
	if workers.N() <= 1 {
		return roundEvalsRange(comb, zv, half, withE0, 0, half)
	}
	clear(parts)
	workers.For(half, func(w, lo, hi int) {
		a0, a1, aInf := roundEvalsRange(comb, zv, half, withE0, lo, hi)
		parts[3*w], parts[3*w+1], parts[3*w+2] = parts[3*w].Add(a0), parts[3*w+1].Add(a1), parts[3*w+2].Add(aInf)
	})
	// XOR sums: which worker took which chunk never changes the total.
	for w := 0; w < workers.N(); w++ {
		e0, e1, eInf = e0.Add(parts[3*w]), e1.Add(parts[3*w+1]), eInf.Add(parts[3*w+2])
	}
	return e0, e1, eInf
}

func roundEvalsRange(comb, zv []field.E, half int, withE0 bool, lo, hi int) (a0, a1, aInf field.E) {
	// A chunk of pairs at a time, all three sums: the four runs are read from
	// memory once (round 0's tables are far larger than the caches), and the
	// leading coefficient Σ (cl + ch)·(zl + zh) takes its pair sums from them in L1.
	var sc, sz [roundChunk]field.E
	for i := lo; i < hi; i += roundChunk {
		j := min(hi, i+roundChunk)
		cl, ch, zl, zh := comb[i:j], comb[half+i:half+j], zv[i:j], zv[half+i:half+j]
		if withE0 {
			a0 = a0.Add(field.InnerProduct(cl, zl))
		}
		a1 = a1.Add(field.InnerProduct(ch, zh))
		n := j - i
		field.AddSlice(sc[:n], cl, ch)
		field.AddSlice(sz[:n], zl, zh)
		aInf = aInf.Add(field.InnerProduct(sc[:n], sz[:n]))
	}
	return a0, a1, aInf
}

// roundChunk bounds the stack buffers of roundEvalsRange's pair sums.
const roundChunk = 128

// foldTop binds the top variable of v (2·half entries) to r in place:
// v[i] ← v[i] + r·(v[i] + v[i+half]) for i < half.
// foldEvals folds comb and zv at r over their top-bit split at half (as foldTop
// does each) and returns the next round's roundEvals (without q(0)) over the
// folded tables' split at half/2, in one pass: each chunk of pairs (i, i+half/2)
// is folded and then summed while in cache. parts holds 3 partial sums per worker.
func foldEvals(comb, zv []field.E, half int, r field.E, workers par.Workers, parts []field.E) (e0, e1, eInf field.E) {
	if nh := half / 2; workers.N() <= 1 || nh < foldEvalsSplit {
		return foldEvalsRange(comb, zv, half, r, 0, nh)
	}
	clear(parts)
	cw, zw := comb, zv // only the parallel path moves copies to the heap
	workers.For(half/2, func(w, lo, hi int) {
		a0, a1, aInf := foldEvalsRange(cw, zw, half, r, lo, hi)
		parts[3*w], parts[3*w+1], parts[3*w+2] = parts[3*w].Add(a0), parts[3*w+1].Add(a1), parts[3*w+2].Add(aInf)
	}, par.Grain(foldEvalChunk))
	// XOR sums: which worker took which chunk never changes the total.
	for w := 0; w < workers.N(); w++ {
		e0, e1, eInf = e0.Add(parts[3*w]), e1.Add(parts[3*w+1]), eInf.Add(parts[3*w+2])
	}
	return e0, e1, eInf
}

// foldEvalsRange is foldEvals over the pairs [lo, hi) of the next split.
func foldEvalsRange(comb, zv []field.E, half int, r field.E, lo, hi int) (a0, a1, aInf field.E) {
	nh := half / 2
	for i := lo; i < hi; i += foldEvalChunk {
		j := min(hi, i+foldEvalChunk)
		field.Fold(comb[i:j], comb[i:j], comb[half+i:half+j], r)
		field.Fold(comb[nh+i:nh+j], comb[nh+i:nh+j], comb[half+nh+i:half+nh+j], r)
		field.Fold(zv[i:j], zv[i:j], zv[half+i:half+j], r)
		field.Fold(zv[nh+i:nh+j], zv[nh+i:nh+j], zv[half+nh+i:half+nh+j], r)
		b0, b1, bInf := roundEvalsRange(comb, zv, nh, false, i, j)
		a0, a1, aInf = a0.Add(b0), a1.Add(b1), aInf.Add(bInf)
	}
	return a0, a1, aInf
}

// foldEvalChunk is the number of pairs foldEvals folds and sums at a time:
// the eight runs it reads (48 KiB) stay in cache through the three steps.
const foldEvalChunk = 1 << 8

// foldEvalsSplit is the smallest number of pairs foldEvals splits across workers.
const foldEvalsSplit = 1 << 11

func foldTop(v []field.E, half int, r field.E, workers par.Workers) {
	if workers.N() <= 1 {
		foldTopRange(v, half, r, 0, half)
		return
	}
	workers.Range(half, func(lo, hi int) { foldTopRange(v, half, r, lo, hi) })
}

func foldTopRange(v []field.E, half int, r field.E, lo, hi int) {
	field.Fold(v[lo:hi], v[lo:hi], v[half+lo:half+hi], r)
}

package open

import (
	"github.com/leanpipe/leanpipe/field"
)

// Kernels of the opening's degree-2 sumcheck over f·b. A round pairs the entries
// a and a+s for a = 2i·s + x (x < s): s = 1 folds the lowest variable, s = 2^k the
// variable k. The lane rounds of level 0 use s = 2^(LogN-6) (the block index bit).

// pairIndex maps the p-th pair of a round with stride s to its low entry.
func pairIndex(p, s int) int { return p + (p/s)*s }

// roundMsg returns (u0, u2) = (Σ f_a b_a, Σ (f_a+f_{a+s})(b_a+b_{a+s})): the round
// polynomial's constant and quadratic coefficients. Addition is XOR, so the split
// over workers does not change the result.
func roundMsg(f, b []field.E, s, workers int) (field.E, field.E) {
	pairs := len(f) / 2
	parts := make([][2]field.E, max(workers, 1))
	parallelChunks(pairs, workers, func(w, lo, hi int) {
		var u0, u2 field.E
		for p := lo; p < hi; p++ {
			a := pairIndex(p, s)
			f0, f1, b0, b1 := f[a], f[a+s], b[a], b[a+s]
			u0 = u0.Add(f0.Mul(b0))
			u2 = u2.Add(f0.Add(f1).Mul(b0.Add(b1)))
		}
		parts[w] = [2]field.E{u0, u2}
	})
	var u0, u2 field.E
	for _, p := range parts {
		u0, u2 = u0.Add(p[0]), u2.Add(p[1])
	}
	return u0, u2
}

// roundMsgK is roundMsg for a K witness.
func roundMsgK(f []field.K, b []field.E, s, workers int) (field.E, field.E) {
	pairs := len(f) / 2
	parts := make([][2]field.E, max(workers, 1))
	parallelChunks(pairs, workers, func(w, lo, hi int) {
		var u0, u2 field.E
		for p := lo; p < hi; p++ {
			a := pairIndex(p, s)
			f0, f1, b0, b1 := f[a], f[a+s], b[a], b[a+s]
			u0 = u0.Add(b0.MulK(f0))
			u2 = u2.Add(b0.Add(b1).MulK(f0 ^ f1))
		}
		parts[w] = [2]field.E{u0, u2}
	})
	var u0, u2 field.E
	for _, p := range parts {
		u0, u2 = u0.Add(p[0]), u2.Add(p[1])
	}
	return u0, u2
}

// roundMsgEval is roundMsg with stride 1 that also returns Σ f·b.
func roundMsgEval(f, b []field.E, workers int) (field.E, field.E, field.E) {
	pairs := len(f) / 2
	parts := make([][3]field.E, max(workers, 1))
	parallelChunks(pairs, workers, func(w, lo, hi int) {
		var u0, u2, y field.E
		for p := lo; p < hi; p++ {
			f0, f1, b0, b1 := f[2*p], f[2*p+1], b[2*p], b[2*p+1]
			e0 := f0.Mul(b0)
			u0 = u0.Add(e0)
			u2 = u2.Add(f0.Add(f1).Mul(b0.Add(b1)))
			y = y.Add(e0).Add(f1.Mul(b1))
		}
		parts[w] = [3]field.E{u0, u2, y}
	})
	var u0, u2, y field.E
	for _, p := range parts {
		u0, u2, y = u0.Add(p[0]), u2.Add(p[1]), y.Add(p[2])
	}
	return u0, u2, y
}

// foldPairs writes dst[p] = src[a] + r·(src[a] + src[a+s]) for every pair p (in the
// output, pair p = (i, x) lands at i·s + x = p).
func foldPairs(dst, src []field.E, r field.E, s, workers int) {
	parallelChunks(len(dst), workers, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			a := pairIndex(p, s)
			x0 := src[a]
			dst[p] = x0.Add(r.Mul(x0.Add(src[a+s])))
		}
	})
}

// foldPairsK is foldPairs for a K source.
func foldPairsK(dst []field.E, src []field.K, r field.E, s, workers int) {
	parallelChunks(len(dst), workers, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			a := pairIndex(p, s)
			x0 := src[a]
			dst[p] = r.MulK(x0 ^ src[a+s]).Add(field.FromK(x0))
		}
	})
}

// addScaledInto writes dst[i] += c·src[i].
func addScaledInto(dst, src []field.E, c field.E, workers int) {
	parallelChunks(len(dst), workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = dst[i].Add(c.Mul(src[i]))
		}
	})
}

// minPerWorker keeps tiny rounds on one goroutine.
const minPerWorker = 1 << 12

// parallelChunks runs fn(w, lo, hi) over at most workers contiguous ranges of [0, n).
func parallelChunks(n, workers int, fn func(w, lo, hi int)) {
	workers = max(1, min(workers, n/minPerWorker))
	if workers == 1 {
		fn(0, 0, n)
		return
	}
	done := make(chan struct{}, workers)
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		go func() { fn(w, lo, hi); done <- struct{}{} }()
	}
	for range workers {
		<-done
	}
}

package open

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/field"
)

// words views an E slice as its 3·len words (E is three K words, no padding).
func words(v []field.E) []uint64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), 3*len(v))
}

// xorE writes dst = a + b (word-wise XOR); the slices have equal lengths.
func xorE(dst, a, b []field.E) {
	d, x, y := words(dst), words(a), words(b)
	y = y[:len(d)]
	x = x[:len(d)]
	for i := range d {
		d[i] = x[i] ^ y[i]
	}
}

// Kernels of the opening's degree-2 sumcheck over f·b. A round pairs the entries
// a and a+s for a = 2i·s + x (x < s): s = 1 folds the lowest variable, s = 2^k the
// variable k. The lane rounds of level 0 use s = 2^(LogN-6) (the block index bit).
// Addition is XOR, so sums split over workers in any way give the same bytes.

// segment is the number of consecutive pairs one task handles with s > 1: a run
// of x inside one block pair, small enough for its scratch to stay in L1.
const segment = 1 << 11

// segments returns the number of tasks for pairs of stride s > 1 over n pairs.
func segments(n, s int) int {
	if n == 0 {
		return 0
	}
	return n / min(segment, s, n)
}

// bounds returns task k's pair range [p0, p0+c) and the index of its low entries.
func bounds(k, n, s int) (p0, c, lo int) {
	c = min(segment, s, n)
	p0 = k * c
	return p0, c, pairIndex(p0, s)
}

// pairIndex maps the p-th pair of a round with stride s to its low entry.
func pairIndex(p, s int) int { return p + (p/s)*s }

// roundMsg returns (u0, u2) = (Σ f_a b_a, Σ (f_a+f_{a+s})(b_a+b_{a+s})): the round
// polynomial's constant and quadratic coefficients.
func roundMsg(f, b []field.E, s, workers int) (field.E, field.E) {
	if s == 1 {
		return roundMsgLow(f, b, workers)
	}
	n, lone := lanePairs(len(f), s)
	tasks := segments(n, s)
	parts := make([][2]field.E, max(workers, 1))
	parallelTasks(tasks, workers, func(w, k0, k1 int) {
		var u0, u2 field.E
		sf := make([]field.E, min(segment, s, n))
		sb := make([]field.E, len(sf))
		for k := k0; k < k1; k++ {
			_, c, a := bounds(k, n, s)
			flo, fhi, blo, bhi := f[a:a+c], f[a+s:a+s+c], b[a:a+c], b[a+s:a+s+c]
			u0 = u0.Add(field.InnerProduct(flo, blo))
			xorE(sf[:c], flo, fhi)
			xorE(sb[:c], blo, bhi)
			u2 = u2.Add(field.InnerProduct(sf[:c], sb[:c]))
		}
		parts[w] = [2]field.E{u0, u2}
	})
	if lone >= 0 {
		// The last block's partner is absent (zero): it adds f·b to both terms.
		v := innerProduct(f[lone:lone+s], b[lone:lone+s], workers)
		parts = append(parts, [2]field.E{v, v})
	}
	return sumParts(parts)
}

// lanePairs splits a lane round over length entries in blocks of s: the number of
// full pairs (each pairing block 2i with 2i+1) and the start of the last block when
// it has no partner (-1 otherwise).
func lanePairs(length, s int) (pairs, lone int) {
	blocks := length / s
	if blocks%2 == 1 {
		return blocks / 2 * s, (blocks - 1) * s
	}
	return blocks / 2 * s, -1
}

// innerProduct is Σ a·b over workers.
func innerProduct(a, b []field.E, workers int) field.E {
	parts := make([]field.E, max(workers, 1))
	parallelChunks(len(a), workers, func(w, lo, hi int) { parts[w] = field.InnerProduct(a[lo:hi], b[lo:hi]) })
	var v field.E
	for _, p := range parts {
		v = v.Add(p)
	}
	return v
}

func roundMsgLow(f, b []field.E, workers int) (field.E, field.E) {
	parts := make([][2]field.E, max(workers, 1))
	parallelChunks(len(f)/2, workers, func(w, lo, hi int) {
		var u0, u2 field.E
		for p := lo; p < hi; p++ {
			f0, f1, b0, b1 := f[2*p], f[2*p+1], b[2*p], b[2*p+1]
			u0 = u0.Add(f0.Mul(b0))
			u2 = u2.Add(f0.Add(f1).Mul(b0.Add(b1)))
		}
		parts[w] = [2]field.E{u0, u2}
	})
	return sumParts(parts)
}

// roundMsgK is roundMsg for a K witness and a stride s > 1.
func roundMsgK(f []field.K, b []field.E, s, workers int) (field.E, field.E) {
	if s == 1 {
		panic("open: roundMsgK needs a lane stride")
	}
	n, lone := lanePairs(len(f), s)
	tasks := segments(n, s)
	parts := make([][2]field.E, max(workers, 1))
	parallelTasks(tasks, workers, func(w, k0, k1 int) {
		var u0, u2 field.E
		sf := make([]field.K, min(segment, s, n))
		sb := make([]field.E, len(sf))
		for k := k0; k < k1; k++ {
			_, c, a := bounds(k, n, s)
			flo, fhi, blo, bhi := f[a:a+c], f[a+s:a+s+c], b[a:a+c], b[a+s:a+s+c]
			u0 = u0.Add(field.InnerProductKE(flo, blo))
			for j := range c {
				sf[j] = flo[j] ^ fhi[j]
			}
			xorE(sb[:c], blo, bhi)
			u2 = u2.Add(field.InnerProductKE(sf[:c], sb[:c]))
		}
		parts[w] = [2]field.E{u0, u2}
	})
	if lone >= 0 {
		fl, bl := f[lone:lone+s], b[lone:lone+s]
		lp := make([]field.E, max(workers, 1))
		parallelChunks(s, workers, func(w, lo, hi int) { lp[w] = field.InnerProductKE(fl[lo:hi], bl[lo:hi]) })
		for _, v := range lp {
			parts = append(parts, [2]field.E{v, v})
		}
	}
	return sumParts(parts)
}

func sumParts(parts [][2]field.E) (field.E, field.E) {
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
// output, pair p = (i, x) lands at i·s + x = p). In a lane round (s > 1) over an odd
// number of blocks, the last block pairs with an absent zero block: (1 + r)·src.
func foldPairs(dst, src []field.E, r field.E, s, workers int) {
	if s == 1 {
		n := len(dst)
		parallelChunks(n, workers, func(_, lo, hi int) { field.FoldLow(dst[lo:hi], src[2*lo:2*hi], r) })
		return
	}
	r1 := field.One.Add(r)
	n, lone := lanePairs(len(src), s)
	if lone >= 0 {
		d, x := dst[n:n+s], src[lone:lone+s]
		parallelChunks(s, workers, func(_, lo, hi int) { field.ScaleE(d[lo:hi], x[lo:hi], r1) })
	}
	parallelTasks(segments(n, s), workers, func(_, k0, k1 int) {
		for k := k0; k < k1; k++ {
			p0, c, a := bounds(k, n, s)
			d, lo := dst[p0:p0+c], src[a:a+c]
			xorE(d, lo, src[a+s:a+s+c])
			field.ScaleE(d, d, r)
			xorE(d, d, lo)
		}
	})
}

// foldPairsK is foldPairs for a K source and a stride s > 1.
func foldPairsK(dst []field.E, src []field.K, r field.E, s, workers int) {
	n, lone := lanePairs(len(src), s)
	if lone >= 0 {
		d, x, r1 := dst[n:n+s], src[lone:lone+s], field.One.Add(r)
		parallelChunks(s, workers, func(_, lo, hi int) {
			clear(d[lo:hi])
			field.AddScaledKE(d[lo:hi], x[lo:hi], r1)
		})
	}
	parallelTasks(segments(n, s), workers, func(_, k0, k1 int) {
		diff := make([]field.K, min(segment, s, n))
		for k := k0; k < k1; k++ {
			p0, c, a := bounds(k, n, s)
			d := dst[p0 : p0+c]
			lo, hi := src[a:a+c], src[a+s:a+s+c]
			for j := range c {
				d[j] = field.FromK(lo[j])
				diff[j] = lo[j] ^ hi[j]
			}
			field.AddScaledKE(d, diff[:c], r)
		}
	})
}

// addScaledInto writes dst[i] += c·src[i].
func addScaledInto(dst, src []field.E, c field.E, workers int) {
	parallelChunks(len(dst), workers, func(_, lo, hi int) { field.AddScaledE(dst[lo:hi], src[lo:hi], c) })
}

// minPerWorker keeps tiny rounds on one goroutine.
const minPerWorker = 1 << 12

// parallelChunks runs fn(w, lo, hi) over at most workers contiguous ranges of [0, n).
func parallelChunks(n, workers int, fn func(w, lo, hi int)) {
	workers = max(1, min(workers, n/minPerWorker))
	parallelTasks(n, workers, fn)
}

// parallelTasks runs fn(w, lo, hi) over at most workers contiguous ranges of [0, n)
// of tasks, worker w taking the w-th range.
func parallelTasks(n, workers int, fn func(w, lo, hi int)) {
	workers = max(1, min(workers, n))
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

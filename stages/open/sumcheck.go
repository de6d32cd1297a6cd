package open

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// xorE writes dst = a + b for E vectors (a and b at least as long as dst). It runs
// this package's own word kernel xorWords (xor.go: AVX2 where available, where
// field.AddSlice is a portable loop), which takes raw words; xorE, xorK and the two
// views below are the only place in the package that sees field elements as words
// (an E is three K words with no padding, which package field asserts, and a K is
// one uint64), besides the prover's spare memory (prove.go), which lays the deeper
// levels' codewords and Merkle nodes in a consumed weight. All field arithmetic on
// the tables goes through package field.
func xorE(dst, a, b []field.E) { xorWords(eWords(dst), eWords(a), eWords(b)) }

// xorK writes dst = a + b for K vectors (a and b at least as long as dst).
func xorK(dst, a, b []field.K) { xorWords(kWords(dst), kWords(a), kWords(b)) }

// eWords views an E slice as its 3·len(v) words, for xorWords (and the prover's
// spare memory).
func eWords(v []field.E) []uint64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), 3*len(v))
}

// kWords views a K slice as its words, for xorWords only.
func kWords(v []field.K) []uint64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), len(v))
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
func roundMsg(f, b []field.E, s int, workers par.Workers) (field.E, field.E) {
	if s == 1 {
		u0, u2, _ := roundMsgPairs(f, b, workers)
		return u0, u2
	}
	n, lone := lanePairs(len(f), s)
	tasks := segments(n, s)
	parts := make([][2]field.E, workers.N())
	workers.For(tasks, func(w, k0, k1 int) {
		var u0, u2 field.E
		var sf, sb [chunk]field.E
		for k := k0; k < k1; k++ {
			_, c, a := bounds(k, n, s)
			for x := 0; x < c; x += chunk {
				m := min(chunk, c-x)
				lo, hi := a+x, a+s+x
				flo, blo := f[lo:lo+m], b[lo:lo+m]
				u0 = u0.Add(field.InnerProduct(flo, blo))
				xorE(sf[:m], flo, f[hi:hi+m])
				xorE(sb[:m], blo, b[hi:hi+m])
				u2 = u2.Add(field.InnerProduct(sf[:m], sb[:m]))
			}
		}
		parts[w] = [2]field.E{parts[w][0].Add(u0), parts[w][1].Add(u2)}
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
func innerProduct(a, b []field.E, workers par.Workers) field.E {
	parts := make([]field.E, workers.N())
	chunked(workers, len(a)).For(len(a), func(w, lo, hi int) { parts[w] = parts[w].Add(field.InnerProduct(a[lo:hi], b[lo:hi])) })
	var v field.E
	for _, p := range parts {
		v = v.Add(p)
	}
	return v
}

// roundMsgK is roundMsg for a K witness and a stride s > 1.
func roundMsgK(f []field.K, b []field.E, s int, workers par.Workers) (field.E, field.E) {
	if s == 1 {
		panic("open: roundMsgK needs a lane stride")
	}
	n, lone := lanePairs(len(f), s)
	tasks := segments(n, s)
	parts := make([][2]field.E, workers.N())
	workers.For(tasks, func(w, k0, k1 int) {
		var u0, u2 field.E
		var sf [chunk]field.K
		var sb [chunk]field.E
		for k := k0; k < k1; k++ {
			_, c, a := bounds(k, n, s)
			for x := 0; x < c; x += chunk {
				m := min(chunk, c-x)
				lo, hi := a+x, a+s+x
				flo, fhi, blo := f[lo:lo+m], f[hi:hi+m], b[lo:lo+m]
				u0 = u0.Add(field.InnerProductKE(flo, blo))
				xorK(sf[:m], flo, fhi)
				xorE(sb[:m], blo, b[hi:hi+m])
				u2 = u2.Add(field.InnerProductKE(sf[:m], sb[:m]))
			}
		}
		parts[w] = [2]field.E{parts[w][0].Add(u0), parts[w][1].Add(u2)}
	})
	if lone >= 0 {
		fl, bl := f[lone:lone+s], b[lone:lone+s]
		lp := make([]field.E, workers.N())
		chunked(workers, s).For(s, func(w, lo, hi int) { lp[w] = lp[w].Add(field.InnerProductKE(fl[lo:hi], bl[lo:hi])) })
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

// foldPairs writes dst[p] = src[a] + r·(src[a] + src[a+s]) for every pair p (in the
// output, pair p = (i, x) lands at i·s + x = p). In a lane round (s > 1) over an odd
// number of blocks, the last block pairs with an absent zero block: (1 + r)·src.
func foldPairs(dst, src []field.E, r field.E, s int, workers par.Workers) {
	if s == 1 {
		n := len(dst)
		chunked(workers, n).For(n, func(_, lo, hi int) { field.FoldLow(dst[lo:hi], src[2*lo:2*hi], r) })
		return
	}
	r1 := field.One.Add(r)
	n, lone := lanePairs(len(src), s)
	if lone >= 0 {
		d, x := dst[n:n+s], src[lone:lone+s]
		chunked(workers, s).For(s, func(_, lo, hi int) { field.ScaleE(d[lo:hi], x[lo:hi], r1) })
	}
	workers.For(segments(n, s), func(_, k0, k1 int) {
		for k := k0; k < k1; k++ {
			p0, c, a := bounds(k, n, s)
			field.Fold(dst[p0:p0+c], src[a:a+c], src[a+s:a+s+c], r)
		}
	})
}

// foldPairsK is foldPairs for a K source and a stride s > 1.
func foldPairsK(dst []field.E, src []field.K, r field.E, s int, workers par.Workers) {
	n, lone := lanePairs(len(src), s)
	if lone >= 0 {
		d, x, r1 := dst[n:n+s], src[lone:lone+s], field.One.Add(r)
		chunked(workers, s).For(s, func(_, lo, hi int) {
			clear(d[lo:hi])
			field.AddScaledKE(d[lo:hi], x[lo:hi], r1)
		})
	}
	workers.For(segments(n, s), func(_, k0, k1 int) {
		for k := k0; k < k1; k++ {
			p0, c, a := bounds(k, n, s)
			field.FoldK(dst[p0:p0+c], src[a:a+c], src[a+s:a+s+c], r)
		}
	})
}

// addScaledInto writes dst[i] += c·src[i].
func addScaledInto(dst, src []field.E, c field.E, workers par.Workers) {
	chunked(workers, len(dst)).For(len(dst), func(_, lo, hi int) { field.AddScaledE(dst[lo:hi], src[lo:hi], c) })
}

// minPerWorker keeps tiny rounds on one goroutine.
const minPerWorker = 1 << 12

// chunked limits the workers to one per minPerWorker items of n.
func chunked(workers par.Workers, n int) par.Workers {
	return workers.Limit(max(1, n/minPerWorker))
}

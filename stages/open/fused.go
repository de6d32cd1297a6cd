package open

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/simd"
)

// Fused sumcheck steps: a fold at r immediately followed by the next round's
// message (u0, u2), computed chunk by chunk while the folded values are still in
// the core's cache, so each round streams its tables from memory once. They give
// the values of foldPairs/foldPairsK followed by roundMsg (sums of products are
// XORs of reduced values, so any split over tasks and workers gives the same
// bytes).

// chunk is the number of consecutive entries of one table a fused task handles at
// a time: small enough for its folded values and pair sums to stay in L1.
const chunk = 256

// kWordsOf views a K slice as its words.
func kWordsOf(v []field.K) []uint64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), len(v))
}

// scalarWords views an E value as its three words.
func scalarWords(r *field.E) *[3]uint64 { return (*[3]uint64)(unsafe.Pointer(r)) }

// addWords XORs a 3-word sum into acc.
func addWords(acc *field.E, w [3]uint64) {
	acc.C0 ^= field.K(w[0])
	acc.C1 ^= field.K(w[1])
	acc.C2 ^= field.K(w[2])
}

// canFuseLanes reports whether a lane round over length entries in blocks of s can
// be fused with the next lane round (stride s): the block count is a multiple of
// four, so every folded block has its partner.
func canFuseLanes(length, s int) bool {
	blocks := length / s
	return s > 1 && blocks*s == length && blocks%4 == 0
}

// foldLanesNext folds the lane variable of stride s (block pairs 2i, 2i+1) of f (or
// of the K witness fK when f is nil) and b at r into nf and nb, and returns the
// message of the next lane round (stride s) over the folded tables. It needs
// canFuseLanes(len(b), s); nf and nb hold len(b)/2 values.
func foldLanesNext(nf, nb []field.E, fK []field.K, f, b []field.E, r field.E, s int, workers par.Workers) (field.E, field.E) {
	c := min(chunk, s)
	perBlock := s / c
	groups := len(b) / s / 4
	tasks := groups * perBlock
	parts := make([][2]field.E, workers.N())
	rw := scalarWords(&r)
	workers.For(tasks, func(w, k0, k1 int) {
		var u0, u2 field.E
		var sf, sb [chunk]field.E
		tf, tb := words(sf[:c]), words(sb[:c])
		for k := k0; k < k1; k++ {
			g, x := k/perBlock, k%perBlock*c
			for h := 0; h < 2; h++ {
				in0 := (4*g+2*h)*s + x
				in1, out := in0+s, (2*g+h)*s+x
				if f == nil {
					simd.FoldK(words(nf[out:out+c]), kWordsOf(fK[in0:in0+c]), kWordsOf(fK[in1:in1+c]), rw)
				} else {
					simd.FoldE(words(nf[out:out+c]), words(f[in0:in0+c]), words(f[in1:in1+c]), rw)
				}
				simd.FoldE(words(nb[out:out+c]), words(b[in0:in0+c]), words(b[in1:in1+c]), rw)
			}
			o0 := 2*g*s + x
			o1 := o0 + s
			f0, f1, b0, b1 := words(nf[o0:o0+c]), words(nf[o1:o1+c]), words(nb[o0:o0+c]), words(nb[o1:o1+c])
			addWords(&u0, simd.DotEE(f0, b0))
			xorWords(tf, f0, f1)
			xorWords(tb, b0, b1)
			addWords(&u2, simd.DotEE(tf, tb))
		}
		parts[w] = [2]field.E{parts[w][0].Add(u0), parts[w][1].Add(u2)}
	})
	return sumParts(parts)
}

// foldLanesLow folds the last lane variable (stride s, exactly two blocks) of f (or
// fK) and b at r into nf and nb (s values each) and returns the message of the next
// round on the lowest variable (stride 1) over the folded tables.
func foldLanesLow(nf, nb []field.E, fK []field.K, f, b []field.E, r field.E, s int, workers par.Workers) (field.E, field.E) {
	c := min(chunk, s)
	tasks := s / c
	parts := make([][2]field.E, workers.N())
	rw := scalarWords(&r)
	workers.For(tasks, func(w, k0, k1 int) {
		var u0, u2 field.E
		for k := k0; k < k1; k++ {
			x := k * c
			if f == nil {
				simd.FoldK(words(nf[x:x+c]), kWordsOf(fK[x:x+c]), kWordsOf(fK[s+x:s+x+c]), rw)
			} else {
				simd.FoldE(words(nf[x:x+c]), words(f[x:x+c]), words(f[s+x:s+x+c]), rw)
			}
			simd.FoldE(words(nb[x:x+c]), words(b[x:x+c]), words(b[s+x:s+x+c]), rw)
			q0, _, qInf := simd.DotPairsEE(words(nf[x:x+c]), words(nb[x:x+c]))
			addWords(&u0, q0)
			addWords(&u2, qInf)
		}
		parts[w] = [2]field.E{parts[w][0].Add(u0), parts[w][1].Add(u2)}
	})
	return sumParts(parts)
}

// foldLowNext folds the lowest variable of f and b at r into nf and nb (half their
// length, a multiple of two) and returns the next round's message on the (new)
// lowest variable.
func foldLowNext(nf, nb, f, b []field.E, r field.E, workers par.Workers) (field.E, field.E) {
	n := len(nf)
	parts := make([][2]field.E, workers.N())
	rw := scalarWords(&r)
	chunked(workers, n/2).For(n/2, func(w, lo, hi int) {
		var u0, u2 field.E
		for p := 2 * lo; p < 2*hi; p += chunk {
			e := min(p+chunk, 2*hi)
			simd.FoldPairsE(words(nf[p:e]), words(f[2*p:2*e]), rw)
			simd.FoldPairsE(words(nb[p:e]), words(b[2*p:2*e]), rw)
			q0, _, qInf := simd.DotPairsEE(words(nf[p:e]), words(nb[p:e]))
			addWords(&u0, q0)
			addWords(&u2, qInf)
		}
		parts[w] = [2]field.E{parts[w][0].Add(u0), parts[w][1].Add(u2)}
	})
	return sumParts(parts)
}

// roundMsgPairs is roundMsg with stride 1: (Σ f_{2i} b_{2i}, Σ (f_{2i}+f_{2i+1})(b_{2i}+b_{2i+1})),
// with the evaluation Σ f·b as a third value.
func roundMsgPairs(f, b []field.E, workers par.Workers) (u0, u2, y field.E) {
	parts := make([][3]field.E, workers.N())
	chunked(workers, len(f)/2).For(len(f)/2, func(w, lo, hi int) {
		q0, q1, qInf := simd.DotPairsEE(words(f[2*lo:2*hi]), words(b[2*lo:2*hi]))
		p := &parts[w]
		addWords(&p[0], q0)
		addWords(&p[1], qInf)
		addWords(&p[2], q0)
		addWords(&p[2], q1)
	})
	for _, p := range parts {
		u0, u2, y = u0.Add(p[0]), u2.Add(p[1]), y.Add(p[2])
	}
	return u0, u2, y
}

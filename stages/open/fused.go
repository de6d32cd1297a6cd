package open

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
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
	workers.For(tasks, func(w, k0, k1 int) {
		var u0, u2 field.E
		var sf, sb [chunk]field.E
		tf, tb := sf[:c], sb[:c]
		for k := k0; k < k1; k++ {
			g, x := k/perBlock, k%perBlock*c
			for h := 0; h < 2; h++ {
				in0 := (4*g+2*h)*s + x
				in1, out := in0+s, (2*g+h)*s+x
				if f == nil {
					field.FoldK(nf[out:out+c], fK[in0:in0+c], fK[in1:in1+c], r)
				} else {
					field.Fold(nf[out:out+c], f[in0:in0+c], f[in1:in1+c], r)
				}
				field.Fold(nb[out:out+c], b[in0:in0+c], b[in1:in1+c], r)
			}
			o0 := 2*g*s + x
			o1 := o0 + s
			f0, f1, b0, b1 := nf[o0:o0+c], nf[o1:o1+c], nb[o0:o0+c], nb[o1:o1+c]
			u0 = u0.Add(field.InnerProduct(f0, b0))
			xorE(tf, f0, f1)
			xorE(tb, b0, b1)
			u2 = u2.Add(field.InnerProduct(tf, tb))
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
	workers.For(tasks, func(w, k0, k1 int) {
		var u0, u2 field.E
		for k := k0; k < k1; k++ {
			x := k * c
			if f == nil {
				field.FoldK(nf[x:x+c], fK[x:x+c], fK[s+x:s+x+c], r)
			} else {
				field.Fold(nf[x:x+c], f[x:x+c], f[s+x:s+x+c], r)
			}
			field.Fold(nb[x:x+c], b[x:x+c], b[s+x:s+x+c], r)
			q0, _, qInf := field.SumcheckRoundLow(nf[x:x+c], nb[x:x+c])
			u0, u2 = u0.Add(q0), u2.Add(qInf)
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
	chunked(workers, n/2).For(n/2, func(w, lo, hi int) {
		var u0, u2 field.E
		for p := 2 * lo; p < 2*hi; p += chunk {
			e := min(p+chunk, 2*hi)
			field.FoldLow(nf[p:e], f[2*p:2*e], r)
			field.FoldLow(nb[p:e], b[2*p:2*e], r)
			q0, _, qInf := field.SumcheckRoundLow(nf[p:e], nb[p:e])
			u0, u2 = u0.Add(q0), u2.Add(qInf)
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
		q0, q1, qInf := field.SumcheckRoundLow(f[2*lo:2*hi], b[2*lo:2*hi])
		p := &parts[w]
		p[0] = p[0].Add(q0)
		p[1] = p[1].Add(qInf)
		p[2] = p[2].Add(q0).Add(q1)
	})
	for _, p := range parts {
		u0, u2, y = u0.Add(p[0]), u2.Add(p[1]), y.Add(p[2])
	}
	return u0, u2, y
}

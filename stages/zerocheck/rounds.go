package zerocheck

import (
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// byteTables is a GF(2)-linear map from a 64-bit word to E, as 8 byte tables:
// value(w) = Σ_i t[i][byte i of w]. Each row is an E element padded to 32 bytes
// (c0, c1, c2, 0) for the vector kernels; allocate with new so that rows do not
// straddle cache lines.
type byteTables struct {
	t [8][256][4]uint64
	// gfni is t as the GFNI kernels' 8×8 bit matrices, written by fill where this
	// build has those kernels (fillArch).
	gfni [8][3][8]uint64
}

// fill builds the tables of the map sending bit s to basis[s].
func (t *byteTables) fill(basis *[skipSize]field.E) {
	for i := 0; i < 8; i++ {
		t.t[i][0] = [4]uint64{}
		for v := 1; v < 256; v++ {
			low := v & -v
			e := basis[8*i+bitIndex(uint(low))]
			p := &t.t[i][v^low]
			t.t[i][v] = [4]uint64{p[0] ^ uint64(e.C0), p[1] ^ uint64(e.C1), p[2] ^ uint64(e.C2), 0}
		}
	}
	t.fillArch()
}

func (t *byteTables) eval(w uint64) field.E {
	if w == 0 {
		return field.Zero
	}
	var c0, c1, c2 uint64
	for i := 0; i < 8; i++ {
		e := &t.t[i][byte(w>>(8*i))]
		c0 ^= e[0]
		c1 ^= e[1]
		c2 ^= e[2]
	}
	return field.E{C0: field.K(c0), C1: field.K(c1), C2: field.K(c2)}
}

// evalSplitGeneric is the portable evalSplit.
func (t *byteTables) evalSplitGeneric(odd, sum []field.E, src []field.K) {
	for l := range odd {
		w0, w1 := uint64(src[2*l]), uint64(src[2*l+1])
		odd[l] = t.eval(w1)
		if sum != nil {
			sum[l] = t.eval(w0 ^ w1)
		}
	}
}

// bitsRound is the first multilinear round, read straight from the bits: with
// â_x = â(z, x), G(1) = Σ_j eq(rr, j)·(â·b̂ + ĉ)_{2j+1} and
// G(∞) = Σ_j eq(rr, j)·(â_{2j} + â_{2j+1})·(b̂_{2j} + b̂_{2j+1}). The sums of two
// words' values are the values of their XOR.
func bitsRound(lz *byteTables, a, b, c words, rr []field.E, workers par.Workers) [2]field.E {
	padPairs := len(a.pad) / 2
	return pairSum(rr, len(a.head)/2, padPairs, workers, func(head bool, base, n int, eq []field.E, s *scratch) [2]field.E {
		aw, bw, cw := a.head, b.head, c.head
		if !head {
			aw, bw, cw = a.pad, b.pad, c.pad
		}
		lo, hi := 2*base, 2*(base+n)
		lz.evalSplit(s.a1[:n], s.as[:n], aw[lo:hi])
		lz.evalSplit(s.b1[:n], s.bs[:n], bw[lo:hi])
		lz.evalSplit(s.c1[:n], nil, cw[lo:hi])
		return s.message(n, eq)
	})
}

// halves holds a table folded at z and chi_0, T_m = t0(w_{2m}) + t1(w_{2m+1}), split
// by the parity of m: head = [T_0, T_2, … | T_1, T_3, …] (two halves of len(words)/4),
// pad the same for the periodic tail (nil without one).
type halves struct{ head, pad []field.E }

// bitsRound1 is the second multilinear round, also read from the bits: the table
// folded at z and chi_0 is T_m = t0(w_{2m}) + t1(w_{2m+1}), evaluated row by row and
// kept in st (head buffers preallocated by the caller) for the fold at chi_1; the
// round's pairs are (T_{2j}, T_{2j+1}).
func bitsRound1(t0, t1 *byteTables, a, b, c words, rr []field.E, st *[3]halves, workers par.Workers) [2]field.E {
	nq, pq := len(a.head)/4, len(a.pad)/4
	if a.pad != nil {
		for v := range st {
			st[v].pad = make([]field.E, 2*pq)
		}
	}
	return pairSum(rr, nq, pq, workers, func(head bool, base, n int, eq []field.E, s *scratch) [2]field.E {
		aw, bw, cw := a.head, b.head, c.head
		half := nq
		if !head {
			aw, bw, cw = a.pad, b.pad, c.pad
			half = pq
		}
		var odd [3][]field.E
		for v, w := range [3][]field.K{aw, bw, cw} {
			dst := st[v].head
			if !head {
				dst = st[v].pad
			}
			var sum []field.E
			switch v {
			case 0:
				sum = s.as[:n]
			case 1:
				sum = s.bs[:n]
			}
			odd[v] = dst[half+base : half+base+n]
			evalHalves(t0, t1, dst[base:base+n], odd[v], sum, w[4*base:4*(base+n)])
		}
		return s.messageOf(eq[:n], odd[0], s.as[:n], odd[1], s.bs[:n], odd[2])
	})
}

// evalHalvesGeneric is the portable evalHalves.
func evalHalvesGeneric(t0, t1 *byteTables, even, odd, sum []field.E, src []field.K) {
	for l := range even {
		e := t0.eval(uint64(src[4*l])).Add(t1.eval(uint64(src[4*l+1])))
		o := t0.eval(uint64(src[4*l+2])).Add(t1.eval(uint64(src[4*l+3])))
		even[l], odd[l] = e, o
		if sum != nil {
			sum[l] = e.Add(o)
		}
	}
}

// foldHalvesRound fixes chi_1 in the tables kept by bitsRound1, out_j = T_{2j} +
// chi·(T_{2j} + T_{2j+1}) written in place over the even halves, and returns them with
// the next round's message (rr) computed in the same pass.
func foldHalvesRound(st *[3]halves, chi field.E, rr []field.E, workers par.Workers) ([3]vec, [2]field.E) {
	foldE := func(t []field.E, n, k0, k1 int) {
		x := t[k0:k1]
		field.Fold(x, x, t[n+k0:n+k1], chi)
	}
	var out [3]vec
	nq := len(st[0].head) / 2
	for v := range st {
		out[v].head = st[v].head[:nq]
		if p := st[v].pad; p != nil {
			foldE(p, len(p)/2, 0, len(p)/2)
			out[v].pad = p[:len(p)/2]
		}
	}
	g := foldRound(&out, nq, func(v, k0, k1 int) { foldE(st[v].head, nq, k0, k1) }, rr, workers)
	return out, g
}

// headPairs is the number of pairs that touch the head; the last one may take its
// odd entry from the pad.
func headPairs(v *vec) int { return (len(v.head) + 1) / 2 }

// padPairs is the period of the tail in pairs (0 without a tail).
func padPairs(v *vec) int {
	if v.pad == nil {
		return 0
	}
	return max(len(v.pad)/2, 1)
}

// eRow is a multilinear round on E tables, G(1) = Σ_j eq(rr, j)·(a·b + c)_{2j+1} and
// G(∞) = Σ_j eq(rr, j)·(a_{2j} + a_{2j+1})·(b_{2j} + b_{2j+1}), summed over the pairs
// [base, base+n) of the head (or of the pad) with eq the matching eq(rr, ·) weights.
func eRow(a, b, c *vec, head bool, base, n int, eq []field.E, s *scratch) [2]field.E {
	if head && 2*(base+n) <= len(a.head) {
		ah, bh, ch := a.head[2*base:2*(base+n)], b.head[2*base:2*(base+n)], c.head[2*base:2*(base+n)]
		for l := 0; l < n; l++ {
			a0, a1, b0, b1 := ah[2*l], ah[2*l+1], bh[2*l], bh[2*l+1]
			s.a1[l], s.as[l] = a1, a0.Add(a1)
			s.b1[l], s.bs[l] = b1, b0.Add(b1)
			s.c1[l] = ch[2*l+1]
		}
		return s.message(n, eq)
	}
	for l := 0; l < n; l++ {
		x := 2 * (base + l)
		var a0, a1, b0, b1, c1 field.E
		if head {
			a0, a1, b0, b1, c1 = a.at(x), a.at(x+1), b.at(x), b.at(x+1), c.at(x+1)
		} else {
			p := len(a.pad) - 1
			a0, a1, b0, b1, c1 = a.pad[x&p], a.pad[(x+1)&p], b.pad[x&p], b.pad[(x+1)&p], c.pad[(x+1)&p]
		}
		s.a1[l], s.as[l] = a1, a0.Add(a1)
		s.b1[l], s.bs[l] = b1, b0.Add(b1)
		s.c1[l] = c1
	}
	return s.message(n, eq)
}

// foldRound is the round of eRow on tables t whose head entries below done are not
// written yet: each row first calls fold(v, k0, k1) to write entries [k0, k1) of
// t[v].head, so the fold and the round share one pass and the new entries are read
// back from cache. The entries from done on and the pads must be in place first.
func foldRound(t *[3]vec, done int, fold func(v, k0, k1 int), rr []field.E, workers par.Workers) [2]field.E {
	return pairSum(rr, headPairs(&t[0]), padPairs(&t[0]), workers, func(head bool, base, n int, eq []field.E, s *scratch) [2]field.E {
		if head {
			if k0, k1 := 2*base, min(2*(base+n), done); k0 < k1 {
				for v := range t {
					fold(v, k0, k1)
				}
			}
		}
		return eRow(&t[0], &t[1], &t[2], head, base, n, eq, s)
	})
}

// eFoldRound fixes the lowest variable of the tables in to chi (as eFold, the heads
// into bufs) and returns the folded tables with the next round's message on them, in
// one pass.
func eFoldRound(in *[3]vec, chi field.E, bufs [3][]field.E, rr []field.E, workers par.Workers) ([3]vec, [2]field.E) {
	var out [3]vec
	for v := range in {
		out[v] = foldEdges(&in[v], chi, bufs[v])
	}
	g := foldRound(&out, len(in[0].head)/2, func(v, k0, k1 int) {
		field.FoldLow(out[v].head[k0:k1], in[v].head[2*k0:2*k1], chi)
	}, rr, workers)
	return out, g
}

// foldEdges prepares the fold of v at chi into buf: it sizes the head and folds the
// entry that takes its odd partner from the pad (if any) and the pad; the head
// entries below len(v.head)/2 are left to the caller.
func foldEdges(v *vec, chi field.E, buf []field.E) vec {
	n := headPairs(v)
	out := vec{head: buffers.Grow(buf, n)}
	if full := len(v.head) / 2; n > full {
		a0, a1 := v.at(2*full), v.at(2*full+1)
		out.head[full] = a0.Add(chi.Mul(a0.Add(a1)))
	}
	if v.pad != nil {
		if len(v.pad) == 1 {
			out.pad = v.pad // fold(p, p) = p
		} else {
			out.pad = make([]field.E, len(v.pad)/2)
			field.FoldLow(out.pad, v.pad, chi)
		}
	}
	return out
}

// eFold fixes the lowest variable of v to chi, writing the head into buf (reused
// when large enough) and folding the pad in place.
func eFold(v *vec, chi field.E, buf []field.E, workers par.Workers) vec {
	n := headPairs(v)
	out := vec{head: buffers.Grow(buf, n)}
	full := len(v.head) / 2
	workers.Range(full, func(lo, hi int) {
		field.FoldLow(out.head[lo:hi], v.head[2*lo:2*hi], chi)
	}, par.MinChunk(2))
	if n > full {
		a0, a1 := v.at(2*full), v.at(2*full+1)
		out.head[full] = a0.Add(chi.Mul(a0.Add(a1)))
	}
	if v.pad != nil {
		if len(v.pad) == 1 {
			out.pad = v.pad // fold(p, p) = p
		} else {
			out.pad = make([]field.E, len(v.pad)/2)
			field.FoldLow(out.pad, v.pad, chi)
		}
	}
	return out
}

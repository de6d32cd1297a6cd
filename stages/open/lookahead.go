package open

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// Two lane rounds per pass. The lane rounds of level 0 stream the whole stack and
// weight from memory; they are memory bound. A lane round's message and the next
// round's message are sums over groups of four blocks: with F_a, B_a the blocks
// 4g+a of the witness and weight (at one offset x),
//
//	round j:    u0 = Σ F0B0 + F2B2,  u2 = Σ (F0+F1)(B0+B1) + (F2+F3)(B2+B3);
//	round j+1:  the folded blocks are F0 + r(F0+F1) and F2 + r(F2+F3), so with
//	            G_a = F_a + F_{a+2} (H_a likewise)
//	            u0(r) = Σ F0B0 + r·(Σ (F0+F1)(B0+B1) + F0B0 + F1B1) + r²·Σ (F0+F1)(B0+B1),
//	            u2(r) = Σ G0H0 + r·(Σ (G0+G1)(H0+H1) + G0H0 + G1H1) + r²·Σ (G0+G1)(H0+H1).
//
// One pass over the tables therefore yields round j's message and round j+1's as a
// quadratic in r_j; after both challenges the next pass folds four blocks into one
// (three folds per entry, as before) and, on the folded quarter while it is in
// cache, computes the same eight sums for the following two rounds. The stack is
// read twice and each table written at a quarter of its size instead of being
// re-read and re-written every round. The values are those of the round-by-round
// prover (field arithmetic is exact; sums are XORs, split in any way).

// laneChunk is the number of offsets x a two-round task handles at a time: its
// sixteen input chunks stream from memory, its four folded chunks and pair sums
// stay in L1/L2.
const laneChunk = 128

// laneSpan is the run of offsets a folding task streams per output block before
// summing the group: long runs keep the hardware prefetchers on eight input
// streams at a time, and the group's folded runs (4·2 tables·laneSpan values)
// stay in L2.
const laneSpan = 1024

// laneSums holds the eight sums of a two-round pass: F0B0, F2B2, (F0+F1)(B0+B1),
// (F2+F3)(B2+B3), F1B1, G0H0, G1H1, (G0+G1)(H0+H1). A final pass (folding to the
// last block) keeps the stride-1 message in [0] (u0) and [2] (u2).
type laneSums [8]field.E

// msg returns the message (u0, u2) of the round the sums start at.
func (s *laneSums) msg() (field.E, field.E) { return s[0].Add(s[1]), s[2].Add(s[3]) }

// next returns the following round's message once the first round's challenge is r.
func (s *laneSums) next(r field.E) (field.E, field.E) {
	quadratic := func(a, d, e field.E) field.E {
		// a + r·(e + a + d) + r²·e
		return e.Mul(r).Add(e).Add(a).Add(d).Mul(r).Add(a)
	}
	return quadratic(s[0], s[4], s[2]), quadratic(s[5], s[6], s[7])
}

func (s *laneSums) add(o *laneSums) {
	for i := range s {
		s[i] = s[i].Add(o[i])
	}
}

// groupTemps is a task's scratch for the pair sums of one group chunk.
type groupTemps struct {
	tf, tb, gf, gb [laneChunk]field.E
	kf, kg         [laneChunk]field.K
}

// addGroupE adds the eight sums of four E witness chunks f and weight chunks b
// (equal lengths ≤ laneChunk).
func (s *laneSums) addGroupE(f, b *[4][]field.E, t *groupTemps) {
	n := len(f[0])
	tf, tb, gf, gb := t.tf[:n], t.tb[:n], t.gf[:n], t.gb[:n]
	s[0] = s[0].Add(field.InnerProduct(f[0], b[0]))
	s[1] = s[1].Add(field.InnerProduct(f[2], b[2]))
	s[4] = s[4].Add(field.InnerProduct(f[1], b[1]))
	xorE(tf, f[0], f[1])
	xorE(tb, b[0], b[1])
	s[2] = s[2].Add(field.InnerProduct(tf, tb))
	xorE(tf, f[2], f[3])
	xorE(tb, b[2], b[3])
	s[3] = s[3].Add(field.InnerProduct(tf, tb))
	xorE(gf, f[0], f[2])
	xorE(gb, b[0], b[2])
	s[5] = s[5].Add(field.InnerProduct(gf, gb))
	xorE(tf, f[1], f[3])
	xorE(tb, b[1], b[3])
	s[6] = s[6].Add(field.InnerProduct(tf, tb))
	xorE(gf, gf, tf)
	xorE(gb, gb, tb)
	s[7] = s[7].Add(field.InnerProduct(gf, gb))
}

// addGroupK is addGroupE for K witness chunks f.
func (s *laneSums) addGroupK(f *[4][]field.K, b *[4][]field.E, t *groupTemps) {
	n := len(f[0])
	kf, kg := t.kf[:n], t.kg[:n]
	tb, gb := t.tb[:n], t.gb[:n]
	s[0] = s[0].Add(field.InnerProductKE(f[0], b[0]))
	s[1] = s[1].Add(field.InnerProductKE(f[2], b[2]))
	s[4] = s[4].Add(field.InnerProductKE(f[1], b[1]))
	xorK(kf, f[0], f[1])
	xorE(tb, b[0], b[1])
	s[2] = s[2].Add(field.InnerProductKE(kf, tb))
	xorK(kf, f[2], f[3])
	xorE(tb, b[2], b[3])
	s[3] = s[3].Add(field.InnerProductKE(kf, tb))
	xorK(kg, f[0], f[2])
	xorE(gb, b[0], b[2])
	s[5] = s[5].Add(field.InnerProductKE(kg, gb))
	xorK(kf, f[1], f[3])
	xorE(tb, b[1], b[3])
	s[6] = s[6].Add(field.InnerProductKE(kf, tb))
	xorK(kg, kg, kf)
	xorE(gb, gb, tb)
	s[7] = s[7].Add(field.InnerProductKE(kg, gb))
}

// canLookahead reports whether the level-0 lane rounds over blocks blocks of s
// entries can run two rounds per pass: 64 blocks (three passes of 64 → 16 → 4 → 1).
func canLookahead(blocks, s int) bool { return blocks == 1<<InitialFold && s%laneChunk == 0 }

// lookaheadK returns the sums of the first lane round over the K witness f and the
// weight b (blocks of s entries, a multiple of four of them): its message and the
// second round's as a quadratic in the first challenge.
func lookaheadK(f []field.K, b []field.E, s int, workers par.Workers) laneSums {
	perBlock := s / laneChunk
	tasks := len(f) / s / 4 * perBlock
	parts := make([]laneSums, workers.N())
	workers.For(tasks, func(w, k0, k1 int) {
		var acc laneSums
		var t groupTemps
		var fc [4][]field.K
		var bc [4][]field.E
		for k := k0; k < k1; k++ {
			g, x := k/perBlock, k%perBlock*laneChunk
			for a := range 4 {
				at := (4*g+a)*s + x
				fc[a] = f[at : at+laneChunk]
				bc[a] = b[at : at+laneChunk]
			}
			acc.addGroupK(&fc, &bc, &t)
		}
		parts[w].add(&acc)
	}, par.PerWorker(32))
	var out laneSums
	for i := range parts {
		out.add(&parts[i])
	}
	return out
}

// foldTwice folds two lane variables at once — four blocks 4i..4i+3 of f (or the K
// witness fK when f is nil) and b into block i of nf and nb: the first fold at r0,
// the second at r1 — and returns the sums of the next two rounds over the folded
// tables. With final the folded tables are one block and the sums carry the
// stride-1 round's message. The input has a multiple of sixteen blocks, or four
// when final.
func foldTwice(nf, nb []field.E, fK []field.K, f, b []field.E, r0, r1 field.E, s int, final bool, workers par.Workers) laneSums {
	span := min(laneSpan, s)
	perBlock := s / span
	outBlocks := len(b) / s / 4
	groups := outBlocks / 4
	if final {
		groups = 1
	}
	tasks := groups * perBlock
	parts := make([]laneSums, workers.N())
	workers.For(tasks, func(w, k0, k1 int) {
		var acc laneSums
		var t groupTemps
		var lo, hi [laneChunk]field.E
		lw, hw := lo[:], hi[:]
		var fc, bc [4][]field.E
		for k := k0; k < k1; k++ {
			g, x0 := k/perBlock, k%perBlock*span
			// Fold each output block's run of span offsets (eight input streams at a
			// time), then sum the group's folded runs while they are in cache.
			for a := range min(4, outBlocks) {
				ob := 4*g + a
				for x := x0; x < x0+span; x += laneChunk {
					in := func(i int) int { return (4*ob+i)*s + x }
					out := ob*s + x
					if f == nil {
						field.FoldK(lw, fK[in(0):in(0)+laneChunk], fK[in(1):in(1)+laneChunk], r0)
						field.FoldK(hw, fK[in(2):in(2)+laneChunk], fK[in(3):in(3)+laneChunk], r0)
					} else {
						field.Fold(lw, f[in(0):in(0)+laneChunk], f[in(1):in(1)+laneChunk], r0)
						field.Fold(hw, f[in(2):in(2)+laneChunk], f[in(3):in(3)+laneChunk], r0)
					}
					field.Fold(nf[out:out+laneChunk], lw, hw, r1)
					field.Fold(lw, b[in(0):in(0)+laneChunk], b[in(1):in(1)+laneChunk], r0)
					field.Fold(hw, b[in(2):in(2)+laneChunk], b[in(3):in(3)+laneChunk], r0)
					field.Fold(nb[out:out+laneChunk], lw, hw, r1)
				}
			}
			for x := x0; x < x0+span; x += laneChunk {
				if final {
					q0, _, qInf := field.SumcheckRoundLow(nf[x:x+laneChunk], nb[x:x+laneChunk])
					acc[0], acc[2] = acc[0].Add(q0), acc[2].Add(qInf)
					continue
				}
				for a := range 4 {
					out := (4*g+a)*s + x
					fc[a], bc[a] = nf[out:out+laneChunk], nb[out:out+laneChunk]
				}
				acc.addGroupE(&fc, &bc, &t)
			}
		}
		parts[w].add(&acc)
	}, par.PerWorker(32))
	var out laneSums
	for i := range parts {
		out.add(&parts[i])
	}
	return out
}

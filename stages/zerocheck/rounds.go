package zerocheck

import (
	"github.com/leanpipe/leanpipe/field"
)

// byteTables is a GF(2)-linear map from a 64-bit word to E, as 8 byte tables:
// value(w) = Σ_i t[i][byte i of w].
type byteTables [8][256]field.E

// fill builds the tables of the map sending bit s to basis[s].
func (t *byteTables) fill(basis *[skipSize]field.E) {
	for i := 0; i < 8; i++ {
		t[i][0] = field.Zero
		for v := 1; v < 256; v++ {
			low := v & -v
			t[i][v] = t[i][v^low].Add(basis[8*i+bitIndex(uint(low))])
		}
	}
}

func (t *byteTables) eval(w uint64) field.E {
	if w == 0 {
		return field.Zero
	}
	var c0, c1, c2 field.K
	for i := 0; i < 8; i++ {
		e := &t[i][byte(w>>(8*i))]
		c0 ^= e.C0
		c1 ^= e.C1
		c2 ^= e.C2
	}
	return field.E{C0: c0, C1: c1, C2: c2}
}

// bitsRound is the first multilinear round, read straight from the bits: with
// â_x = â(z, x), G(1) = Σ_j eq(rr, j)·(â·b̂ + ĉ)_{2j+1} and
// G(∞) = Σ_j eq(rr, j)·(â_{2j} + â_{2j+1})·(b̂_{2j} + b̂_{2j+1}). The sums of two
// words' values are the values of their XOR.
func bitsRound(lz *byteTables, a, b, c words, rr []field.E, workers int) [2]field.E {
	padPairs := len(a.pad) / 2
	return pairSum(rr, len(a.head)/2, padPairs, workers, func(head bool, base, n int, eq []field.E) [2]field.E {
		aw, bw, cw := a.head, b.head, c.head
		if !head {
			aw, bw, cw = a.pad, b.pad, c.pad
		}
		var g1, gi field.E
		for l := 0; l < n; l++ {
			x := 2 * (base + l)
			a0, a1 := uint64(aw[x]), uint64(aw[x+1])
			b0, b1 := uint64(bw[x]), uint64(bw[x+1])
			t1 := lz.eval(c1Of(cw, x))
			if a1 != 0 && b1 != 0 {
				t1 = t1.Add(lz.eval(a1).Mul(lz.eval(b1)))
			}
			if !t1.IsZero() {
				g1 = g1.Add(eq[l].Mul(t1))
			}
			if as, bs := a0^a1, b0^b1; as != 0 && bs != 0 {
				gi = gi.Add(eq[l].Mul(lz.eval(as).Mul(lz.eval(bs))))
			}
		}
		return [2]field.E{g1, gi}
	})
}

func c1Of(cw []field.K, x int) uint64 { return uint64(cw[x+1]) }

// bitsFold evaluates a word vector at z on the skip variable and at chi on the lowest
// remaining one: out[j] = (1 + chi)·â_{2j} + chi·â_{2j+1}.
func bitsFold(t0, t1 *byteTables, in words, workers int) vec {
	out := vec{head: make([]field.E, len(in.head)/2)}
	parallelRange(len(out.head), workers, func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			out.head[j] = t0.eval(uint64(in.head[2*j])).Add(t1.eval(uint64(in.head[2*j+1])))
		}
	})
	if in.pad != nil {
		out.pad = make([]field.E, len(in.pad)/2)
		for j := range out.pad {
			out.pad[j] = t0.eval(uint64(in.pad[2*j])).Add(t1.eval(uint64(in.pad[2*j+1])))
		}
	}
	return out
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

// eRound is a multilinear round on E tables: G(1) = Σ_j eq(rr, j)·(a·b + c)_{2j+1},
// G(∞) = Σ_j eq(rr, j)·(a_{2j} + a_{2j+1})·(b_{2j} + b_{2j+1}).
func eRound(a, b, c *vec, rr []field.E, workers int) [2]field.E {
	return pairSum(rr, headPairs(a), padPairs(a), workers, func(head bool, base, n int, eq []field.E) [2]field.E {
		var g1, gi field.E
		if head && 2*(base+n) <= len(a.head) {
			ah, bh, ch := a.head, b.head, c.head
			for l := 0; l < n; l++ {
				x := 2 * (base + l)
				a0, a1, b0, b1 := ah[x], ah[x+1], bh[x], bh[x+1]
				g1 = g1.Add(eq[l].Mul(a1.Mul(b1).Add(ch[x+1])))
				gi = gi.Add(eq[l].Mul(a0.Add(a1).Mul(b0.Add(b1))))
			}
			return [2]field.E{g1, gi}
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
			g1 = g1.Add(eq[l].Mul(a1.Mul(b1).Add(c1)))
			gi = gi.Add(eq[l].Mul(a0.Add(a1).Mul(b0.Add(b1))))
		}
		return [2]field.E{g1, gi}
	})
}

// eFold fixes the lowest variable of v to chi, writing the head into buf (reused
// when large enough) and folding the pad in place.
func eFold(v *vec, chi field.E, buf []field.E, workers int) vec {
	n := headPairs(v)
	if cap(buf) < n {
		buf = make([]field.E, n)
	}
	out := vec{head: buf[:n]}
	full := len(v.head) / 2
	parallelRange(full, workers, func(_, lo, hi int) {
		field.FoldLow(out.head[lo:hi], v.head[2*lo:2*hi], chi)
	})
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

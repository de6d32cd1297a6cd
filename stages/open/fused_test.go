package open

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// naiveFold is the fold of one variable of stride s with element products: pairs
// (a, a+s), a = 2i·s + x; an odd trailing block pairs with zeros.
func naiveFold(src []field.E, r field.E, s int) []field.E {
	blocks := (len(src) + s - 1) / s
	out := make([]field.E, (blocks+1)/2*s)
	for p := range out {
		i, x := p/s, p%s
		a := 2*i*s + x
		lo, hi := src[a], field.Zero
		if a+s < len(src) {
			hi = src[a+s]
		}
		out[p] = lo.Add(r.Mul(lo.Add(hi)))
	}
	if s == 1 {
		out = out[:len(src)/2]
	}
	return out
}

// naiveRound is the round message (Σ f_a b_a, Σ (f_a+f_{a+s})(b_a+b_{a+s})) with
// element products.
func naiveRound(f, b []field.E, s int) (u0, u2 field.E) {
	for a := range f {
		if a/s%2 == 1 {
			continue
		}
		hf, hb := field.Zero, field.Zero
		if a+s < len(f) {
			hf, hb = f[a+s], b[a+s]
		}
		u0 = u0.Add(f[a].Mul(b[a]))
		u2 = u2.Add(f[a].Add(hf).Mul(b[a].Add(hb)))
	}
	return u0, u2
}

// The fused fold-and-message steps, the unfused kernels and element-by-element
// folds and sums agree for K and E witnesses, every stride and block count the
// prover uses, and every worker count.
func TestFusedMatchesNaive(t *testing.T) {
	rng := testrand.New(t)
	randEs := func(n int) []field.E {
		v := make([]field.E, n)
		for i := range v {
			v[i] = randE(rng)
		}
		return v
	}
	for _, s := range []int{1, 2, 64, 256, 1 << 10} {
		for _, blocks := range []int{2, 3, 4, 8, 16, 5} {
			if s == 1 && blocks%2 == 1 {
				continue
			}
			n := blocks * s
			fK := make([]field.K, n)
			for i := range fK {
				fK[i] = field.K(rng.Uint64())
			}
			fE := make([]field.E, n)
			for i := range fE {
				fE[i] = field.FromK(fK[i])
			}
			b := randEs(n)
			r := randE(rng)
			wantF, wantB := naiveFold(fE, r, s), naiveFold(b, r, s)
			next := s
			if blocks <= 2 {
				next = 1
			}
			w0, w2 := naiveRound(wantF, wantB, next)
			if s > 1 {
				if u0, u2 := roundMsgK(fK, b, s, par.New(nil, 2)); blocks%2 == 0 {
					if z0, z2 := naiveRound(fE, b, s); u0 != z0 || u2 != z2 {
						t.Fatalf("s %d blocks %d: roundMsgK differs", s, blocks)
					}
				}
			}
			for _, kWitness := range []bool{false, true} {
				if kWitness && s == 1 {
					continue // the K witness is only folded in lane rounds
				}
				for _, workers := range []int{1, 2, 3} {
					name := fmt.Sprintf("s=%d/blocks=%d/K=%v/workers=%d", s, blocks, kWitness, workers)
					nf, nb := make([]field.E, len(wantF)), make([]field.E, len(wantB))
					var src []field.K
					f := fE
					if kWitness {
						src, f = fK, nil
					}
					var u0, u2 field.E
					fused := true
					switch {
					case s > 1 && next == s && canFuseLanes(n, s):
						u0, u2 = foldLanesNext(nf, nb, src, f, b, r, s, par.New(nil, workers))
					case s > 1 && next == 1 && n == 2*s:
						u0, u2 = foldLanesLow(nf, nb, src, f, b, r, s, par.New(nil, workers))
					case s == 1 && !kWitness && len(nf)%2 == 0:
						u0, u2 = foldLowNext(nf, nb, f, b, r, par.New(nil, workers))
					default:
						fused = false
						if kWitness {
							foldPairsK(nf, src, r, s, par.New(nil, workers))
						} else {
							foldPairs(nf, f, r, s, par.New(nil, workers))
						}
						foldPairs(nb, b, r, s, par.New(nil, workers))
						if len(nf) >= 2 {
							u0, u2 = roundMsg(nf, nb, next, par.New(nil, workers))
						}
					}
					for i := range wantF {
						if nf[i] != wantF[i] || nb[i] != wantB[i] {
							t.Fatalf("%s (fused %v): folded entry %d differs", name, fused, i)
						}
					}
					if len(nf) >= 2 && (u0 != w0 || u2 != w2) {
						t.Fatalf("%s (fused %v): round message differs", name, fused)
					}
				}
			}
		}
	}
}

// The two-rounds-per-pass lane rounds give the round-by-round messages and folds.
func TestLookaheadMatchesNaive(t *testing.T) {
	rng := testrand.New(t)
	for _, s := range []int{laneChunk, 4 * laneChunk} {
		n := 64 * s
		fK := make([]field.K, n)
		fE := make([]field.E, n)
		b := make([]field.E, n)
		for i := range fK {
			fK[i] = field.K(rng.Uint64())
			fE[i] = field.FromK(fK[i])
			b[i] = randE(rng)
		}
		for _, workers := range []int{1, 2, 3} {
			sums := lookaheadK(fK, b, s, par.New(nil, workers))
			f, bb := fE, b
			src := fK
			for j := 0; j < 6; j += 2 {
				name := fmt.Sprintf("s=%d/workers=%d/round=%d", s, workers, j)
				if j == 0 {
					u0, u2 := sums.msg()
					if w0, w2 := naiveRound(f, bb, s); u0 != w0 || u2 != w2 {
						t.Fatalf("%s: first message differs", name)
					}
				}
				r0, r1 := randE(rng), randE(rng)
				f1, b1 := naiveFold(f, r0, s), naiveFold(bb, r0, s)
				u0, u2 := sums.next(r0)
				if w0, w2 := naiveRound(f1, b1, s); u0 != w0 || u2 != w2 {
					t.Fatalf("%s: lookahead message differs", name)
				}
				f2, b2 := naiveFold(f1, r1, s), naiveFold(b1, r1, s)
				nf, nb := make([]field.E, len(f2)), make([]field.E, len(b2))
				var fIn []field.E
				if src == nil {
					fIn = f
				}
				final := j == 4
				sums = foldTwice(nf, nb, src, fIn, bb, r0, r1, s, final, par.New(nil, workers))
				for i := range f2 {
					if nf[i] != f2[i] || nb[i] != b2[i] {
						t.Fatalf("%s: folded entry %d differs", name, i)
					}
				}
				next := s
				if final {
					next = 1
				}
				u0, u2 = sums.msg()
				if w0, w2 := naiveRound(f2, b2, next); u0 != w0 || u2 != w2 {
					t.Fatalf("%s: message after the double fold differs", name)
				}
				f, bb, src = f2, b2, nil
			}
		}
	}
}

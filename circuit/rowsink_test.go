package circuit

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// gappedCircuit is a 2^logSize-column circuit (logSize ≥ 13) whose rows leave gaps
// longer than a window between them and after the last.
func gappedCircuit(logSize int) *Circuit {
	b := NewBuilder("gapped", logSize, 0)
	b.Input("x", 8, 8)
	prev := []Wire{b.Col(8), b.Col(9)}
	for _, run := range [][2]int{{16, 300}, {2500, 2600}, {5000, 5100}} {
		for row := run[0]; row < run[1]; row++ {
			prev[row%2] = b.Product(row, b.Xor(prev[0], b.One()), b.Xor(prev[1], b.Col(8+row%8)))
		}
	}
	return b.Compile()
}

// RowsTensorOn's sink and TransposeTensorOn (also plus ν·e with loops beside it,
// TransposeTensorBeside) agree with the walks at full weights (RowValues, Transpose), at every kernel level, serially and on segments, on
// circuits whose rows come in order (BLAKE2s, a random one) and out of order
// (scrambled), at tensor weights of low factors of 1, 64 and 1024 entries.
func TestRowsAndTransposeTensor(t *testing.T) {
	oldSteps, oldShare := minSegmentSteps, maxSliceShare
	minSegmentSteps, maxSliceShare = 1<<10, 16
	defer func() { minSegmentSteps, maxSliceShare = oldSteps, oldShare }()
	r := testrand.New(t)
	for _, c := range []*Circuit{buildBlake2s(), randomCircuit(r, 12), scrambledCircuit(r, 13), gappedCircuit(13)} {
		n := c.Size()
		mu, nu := randE(r), randE(r)
		for _, lowLog := range []int{0, 6, 10} {
			w := randTensor(r, lowLog, c.LogSize())
			e := randTensor(r, lowLog, c.LogSize())
			fw, fe := make([]field.E, n), make([]field.E, n)
			w.Fill(fw)
			e.Fill(fe)
			// Expected: v = (A0 + μ·B0)·w and its sink outputs; (A0 + μ·B0)ᵀ·e.
			v, vb := make([]field.E, n), make([]field.E, n)
			c.RowValues(v, vb, fw)
			va := slices.Clone(v)
			field.AddScaledE(v, vb, mu)
			ul := 1 << min(6, c.LogSize())
			uHigh := randVec(r, n/ul)
			foldLow := randVec(r, 64)
			wantU := make([]field.E, ul)
			wantFold := make([]field.E, n/64)
			for i, x := range v {
				wantU[i%ul] = wantU[i%ul].Add(uHigh[i/ul].Mul(x))
				wantFold[i/64] = wantFold[i/64].Add(foldLow[i%64].Mul(x))
			}
			// Apart: A0·w and B0·w and their sums.
			wantUA, wantUB := make([]field.E, ul), make([]field.E, ul)
			for i := range va {
				wantUA[i%ul] = wantUA[i%ul].Add(uHigh[i/ul].Mul(va[i]))
				wantUB[i%ul] = wantUB[i%ul].Add(uHigh[i/ul].Mul(vb[i]))
			}
			wantT := make([]field.E, n)
			c.Transpose(wantT, fe, mu)
			for _, l := range Kernels.Levels() {
				for _, k := range []int{1, 2, 4} {
					what := fmt.Sprintf("%s low 2^%d level %v on %d workers", c.Name(), lowLog, l, k)
					func() {
						defer cpu.SetLevel(l)()
						s := RowSink{Dst: randVec(r, n), U: randVec(r, ul), UHigh: uHigh, Fold: randVec(r, n/64), FoldLow: foldLow}
						c.RowsTensorOn(w, mu, s, par.New(nil, k))
						for i := range v {
							if s.Dst[i] != v[i] {
								t.Fatalf("%s: row %d: %v, want %v", what, i, s.Dst[i], v[i])
							}
						}
						for i := range wantU {
							if s.U[i] != wantU[i] {
								t.Fatalf("%s: U[%d]", what, i)
							}
						}
						for i := range wantFold {
							if s.Fold[i] != wantFold[i] {
								t.Fatalf("%s: Fold[%d]", what, i)
							}
						}
						// A0·w and B0·w apart, into dirty vectors.
						sa := RowSink{Dst: randVec(r, n), U: randVec(r, ul), UHigh: uHigh, DstB: randVec(r, n), UB: randVec(r, ul)}
						c.RowsTensorOn(w, mu, sa, par.New(nil, k))
						if !slices.Equal(sa.Dst, va) || !slices.Equal(sa.DstB, vb) {
							t.Fatalf("%s: rows apart differ from A0·w, B0·w", what)
						}
						if !slices.Equal(sa.U, wantUA) || !slices.Equal(sa.UB, wantUB) {
							t.Fatalf("%s: sums apart differ", what)
						}
						// Only U (no stored rows).
						u := make([]field.E, ul)
						c.RowsTensorOn(w, mu, RowSink{U: u, UHigh: uHigh}, par.New(nil, k))
						for i := range u {
							if u[i] != wantU[i] {
								t.Fatalf("%s: U alone [%d]", what, i)
							}
						}
						got := randVec(r, n)
						c.TransposeTensorOn(got, e, mu, par.New(nil, k))
						for i := range got {
							if got[i] != wantT[i] {
								t.Fatalf("%s: transpose column %d", what, i)
							}
						}
						// Dirty spare vectors for the extra workers.
						spare := func(int) []field.E { return randVec(r, n) }
						c.TransposeTensorWith(got, spare, e, mu, par.New(nil, k))
						for i := range got {
							if got[i] != wantT[i] {
								t.Fatalf("%s: transpose with spares, column %d", what, i)
							}
						}
						// Plus ν·e, with two loops beside the walk, each item run once.
						got = randVec(r, n)
						seen := [2][]int32{make([]int32, 1000), make([]int32, 7)}
						loop := func(i int) par.Loop {
							return par.Loop{N: len(seen[i]), Fn: func(w, lo, hi int) {
								if w >= k {
									t.Errorf("%s: loop beside on worker %d", what, w)
								}
								for j := lo; j < hi; j++ {
									atomic.AddInt32(&seen[i][j], 1)
								}
							}}
						}
						c.TransposeTensorBeside(got, e, mu, nu, par.New(nil, k), loop(0), loop(1))
						for i := range got {
							if got[i] != wantT[i].Add(nu.Mul(fe[i])) {
								t.Fatalf("%s: transpose plus ν·e beside loops, column %d", what, i)
							}
						}
						for i := range seen {
							for j, v := range seen[i] {
								if v != 1 {
									t.Fatalf("%s: loop beside %d: item %d run %d times", what, i, j, v)
								}
							}
						}
					}()
				}
			}
		}
	}
}

// A circuit's first k tensor transposes on two workers walk serially (no segments
// planned), as TransposeOn's do, and the next plans the segments and walks them; k
// is serialWalksFirst by default and 0 after PlanSegmentsAfter(0) (a long-running
// process), which returns the count it replaced. Every one gives the serial
// transpose.
func TestTransposeTensorSerialFirst(t *testing.T) {
	oldSteps, oldShare := minSegmentSteps, maxSliceShare
	minSegmentSteps, maxSliceShare = 1<<10, 16
	defer func() { minSegmentSteps, maxSliceShare = oldSteps, oldShare }()
	defer PlanSegmentsAfter(serialWalksFirst) // should a check below fail
	r := testrand.New(t)
	for _, k := range []int{serialWalksFirst, 0} {
		prev := PlanSegmentsAfter(k)
		if prev != serialWalksFirst {
			t.Fatalf("PlanSegmentsAfter(%d) replaced %d, want the default %d", k, prev, serialWalksFirst)
		}
		c := buildBlake2s()
		n := c.Size()
		mu := randE(r)
		e := randTensor(r, 6, c.LogSize())
		fe := make([]field.E, n)
		e.Fill(fe)
		want := make([]field.E, n)
		c.Transpose(want, fe, mu)
		for walk := 1; walk <= k+1; walk++ {
			got := randVec(r, n)
			if walk == 1 {
				// With a loop beside it: on the other worker while the walk is
				// serial, after the segments otherwise.
				var items atomic.Int32
				c.TransposeTensorBeside(got, e, mu, field.Zero, par.New(nil, 2), par.Loop{N: 100, Fn: func(_, lo, hi int) { items.Add(int32(hi - lo)) }})
				if items.Load() != 100 {
					t.Fatalf("k = %d: %d of 100 items run beside tensor transpose %d", k, items.Load(), walk)
				}
			} else {
				c.TransposeTensorOn(got, e, mu, par.New(nil, 2))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("k = %d: tensor transpose %d differs from the serial transpose", k, walk)
			}
			if planned := c.segsReady.Load(); planned != (walk > k) {
				t.Fatalf("k = %d: after tensor transpose %d on 2 workers the segments planned: %v", k, walk, planned)
			}
		}
		PlanSegmentsAfter(prev)
		if len(c.segs) < 2 {
			t.Fatalf("k = %d: %d segments planned", k, len(c.segs))
		}
	}
}

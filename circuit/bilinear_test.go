package circuit

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// scrambledCircuit emits its rows in a random order and reads random earlier
// columns, so that walks step behind and far past their windows: logSize 13 is
// eight windows of columns and rows.
func scrambledCircuit(r *rand.Rand, logSize int) *Circuit {
	n := 1 << logSize
	b := NewBuilder("scrambled", logSize, 3)
	b.Input("x", 8, 64)
	cols := []int{3}
	for i := range 64 {
		cols = append(cols, 8+i)
	}
	rows := r.Perm(n - 100)
	pool := []Wire{b.One(), Zero}
	for _, row := range rows {
		row += 100
		if r.IntN(5) == 0 {
			continue
		}
		for range 2 {
			pool = append(pool, b.Col(cols[r.IntN(len(cols))]))
		}
		x := b.Xor(pool[r.IntN(len(pool))], pool[r.IntN(len(pool))])
		y := b.Xor(pool[r.IntN(len(pool))], pool[r.IntN(len(pool))])
		pool = append(pool, x, y, b.Product(row, x, y))
		cols = append(cols, row)
		if len(pool) > 100 {
			pool = pool[len(pool)-100:]
		}
	}
	return b.Compile()
}

// streamsCircuit is laid out as the recursion blocks are: per unit, inputs in a
// first region (input rows), product rows in a last region and materialised outputs
// in a middle one, emitted unit by unit, so that its walks run three streams of
// rows and read columns far behind the forward window (inputs read again by later
// units, and by the unit's own products long after its input rows).
func streamsCircuit(r *rand.Rand, logSize int) *Circuit {
	n := 1 << logSize
	const perIn, perRow, perOut = 24, 40, 12
	units := (n - 64) / (perIn + perRow + perOut)
	in, out, rows := 64, 64+perIn*units, 64+(perIn+perOut)*units
	b := NewBuilder("streams", logSize, 0)
	for u := range units {
		b.Input(fmt.Sprintf("x%d", u), in+perIn*u, perIn)
		var prev []Wire
		for i := range perRow {
			x := b.Xor(b.Col(in+perIn*u+r.IntN(perIn)), b.Col(in+perIn*r.IntN(u+1)+r.IntN(perIn)))
			y := b.Col(in + perIn*u + r.IntN(perIn))
			if len(prev) > 0 {
				y = b.Xor(y, prev[r.IntN(len(prev))])
			}
			prev = append(prev, b.Product(rows+perRow*u+i, x, y))
		}
		for i := range perOut {
			b.Linear(out+perOut*u+i, b.Xor(prev[r.IntN(len(prev))], prev[r.IntN(len(prev))]))
		}
	}
	return b.Compile()
}

// bilinearByRows is (eᵀA0·w, eᵀB0·w) from the row values: the reference the walks
// are held to.
func bilinearByRows(c *Circuit, e, w []field.E) (va, vb field.E) {
	a, b := make([]field.E, c.Size()), make([]field.E, c.Size())
	c.RowValues(a, b, w)
	return dot(e, a), dot(e, b)
}

// The bilinear walk at every level of the family gives the row values' bilinear
// forms, at full weights and at tensor weights (low factors of 1, 64 and 1024
// entries, and one of 2048, which is formed in full), serially and on segments,
// on circuits that load columns and emit rows in order (BLAKE2s, a random one) and
// out of order (scrambled: windows missed behind and ahead), with a fixed column
// window over the whole circuit, over its first 2048 columns and over none.
func TestBilinearKernels(t *testing.T) {
	oldSteps, oldShare, oldLow := minSegmentSteps, maxSliceShare, lowCols
	minSegmentSteps, maxSliceShare = 1<<10, 16
	defer func() { minSegmentSteps, maxSliceShare, lowCols = oldSteps, oldShare, oldLow }()
	r := testrand.New(t)
	for _, c := range []*Circuit{buildBlake2s(), randomCircuit(r, 12), scrambledCircuit(r, 13), streamsCircuit(r, 14)} {
		for _, lc := range []int{oldLow, 2048, 0} {
			lowCols = lc
			n := c.Size()
			e, w := randVec(r, n), randVec(r, n)
			wa, wb := bilinearByRows(c, e, w)
			type tensors struct{ e, w Tensor }
			var ts []tensors
			for _, lowLog := range []int{0, 6, 10, 11} {
				ts = append(ts, tensors{randTensor(r, lowLog, c.LogSize()), randTensor(r, lowLog, c.LogSize())})
			}
			ts = append(ts, tensors{randTensor(r, 6, c.LogSize()), randTensor(r, 0, c.LogSize())})
			want := make([][2]field.E, len(ts))
			for i, tt := range ts {
				fe, fw := make([]field.E, n), make([]field.E, n)
				tt.e.Fill(fe)
				tt.w.Fill(fw)
				want[i][0], want[i][1] = bilinearByRows(c, fe, fw)
			}
			for _, l := range Kernels.Levels() {
				// serialWalksFirst serial walks, then segmented ones.
				for walk := range serialWalksFirst + 2 {
					what := fmt.Sprintf("%s level %v walk %d fixed window %d", c.Name(), l, walk, lc)
					func() {
						defer cpu.SetLevel(l)()
						if a, b := c.BilinearPair(e, w); a != wa || b != wb {
							t.Fatalf("%s: full weights: (%v, %v), want (%v, %v)", what, a, b, wa, wb)
						}
						for i, tt := range ts {
							if a, b := c.BilinearTensor(tt.e, tt.w); a != want[i][0] || b != want[i][1] {
								t.Fatalf("%s: tensor weights (low 2^%d, 2^%d): (%v, %v), want (%v, %v)",
									what, tt.e.LogLen()-len(tt.e.High), tt.w.LogLen()-len(tt.w.High), a, b, want[i][0], want[i][1])
							}
						}
					}()
				}
			}
		}
	}
}

// The walk kernels at every level stop at the same steps with the same exits and
// leave the same registers, row windows (forward and back) and row counts, from
// random windows over a scrambled circuit's code and a three-stream circuit's, with
// a fixed column window over their first 2048 columns (loads behind the window are
// served by it or the back window, or exit).
func TestBilinearKernelExits(t *testing.T) {
	defer func(old int) { lowCols = old }(lowCols)
	lowCols = 2048
	r := testrand.New(t)
	for _, c := range []*Circuit{scrambledCircuit(r, 13), streamsCircuit(r, 14)} {
		testKernelExits(t, r, c)
	}
}

func testKernelExits(t *testing.T, r *rand.Rand, c *Circuit) {
	w := randVec(r, c.Size())
	e := randVec(r, c.Size())
	type result struct {
		pcs, exits []int
		regs       []uint64
		rowsA      []field.E
		rowsA2     []field.E
		rcounts    []int
		backs      int // exits served by moving a back window
	}
	run := func(l cpu.Level, seed uint64) result {
		defer cpu.SetLevel(l)()
		rr := rand.New(rand.NewPCG(seed, 1))
		bw := newFullWalk(new(walkScratch), c.nregs, e, w)
		var res result
		pc := 0
		for pc < len(c.code) {
			var exit int
			pc, exit = bilinearKernel(bw, c.code, pc)
			res.pcs, res.exits = append(res.pcs, pc), append(res.exits, exit)
			res.rcounts = append(res.rcounts, bw.rcount, bw.rcount2)
			switch exit {
			case walkColMiss:
				if col := int(c.code[pc].col()); col < bw.cbase && col >= len(bw.low) {
					res.backs++
				}
				pc = bw.colMiss(c.code, pc)
			case walkRowMiss:
				if row := int(c.code[pc].dst()); row >= bw.rbase {
					res.rcounts = append(res.rcounts, -1) // the window is folded in
				} else {
					res.backs++
					res.rowsA2 = append(res.rowsA2, bw.rowsA2...) // before it is folded in
				}
				pc = bw.rowMiss(c.code, pc)
			}
			// Move the column window at random, too.
			if rr.IntN(4) == 0 {
				bw.moveCols(rr.IntN(c.Size()))
			}
		}
		res.regs = append([]uint64(nil), bw.regs...)
		for i := range res.regs {
			if i%4 == 3 {
				res.regs[i] = 0 // padding
			}
		}
		res.rowsA = append([]field.E(nil), bw.rowsA...)
		return res
	}
	want := run(cpu.Portable, 9)
	if len(want.exits) < 100 || want.backs < 20 || len(want.rowsA2) == 0 {
		t.Fatalf("%s: only %d kernel exits, %d to the back windows: the test does not exercise the windows", c.Name(), len(want.exits), want.backs)
	}
	for _, l := range Kernels.Levels() {
		got := run(l, 9)
		if fmt.Sprint(got.pcs, got.exits, got.rcounts) != fmt.Sprint(want.pcs, want.exits, want.rcounts) {
			t.Fatalf("%s level %v: the kernel stops at other steps than the portable one", c.Name(), l)
		}
		if fmt.Sprint(got.regs) != fmt.Sprint(want.regs) || fmt.Sprint(got.rowsA) != fmt.Sprint(want.rowsA) ||
			fmt.Sprint(got.rowsA2) != fmt.Sprint(want.rowsA2) {
			t.Fatalf("%s level %v: registers or row windows differ from the portable kernel's", c.Name(), l)
		}
	}
}

// One walker running several segments, in either order, sums each row once: a row
// window placed again after a restart at a base it had before holds none of the
// rows the earlier segment left in its slots.
func TestBilinearWalkerRestart(t *testing.T) {
	oldSteps, oldShare := minSegmentSteps, maxSliceShare
	minSegmentSteps, maxSliceShare = 1<<10, 16
	defer func() { minSegmentSteps, maxSliceShare = oldSteps, oldShare }()
	r := testrand.New(t)
	for _, c := range []*Circuit{randomCircuit(r, 12), scrambledCircuit(r, 13), streamsCircuit(r, 14)} {
		segs := planSegments(c.code, c.nregs, 4)
		if len(segs) < 2 {
			t.Fatalf("%s: %d segments", c.Name(), len(segs))
		}
		n := c.Size()
		e, w := randVec(r, n), randVec(r, n)
		wa, wb := bilinearByRows(c, e, w)
		te, tw := randTensor(r, 6, c.LogSize()), randTensor(r, 6, c.LogSize())
		fe, fw := make([]field.E, n), make([]field.E, n)
		te.Fill(fe)
		tw.Fill(fw)
		ta, tb := bilinearByRows(c, fe, fw)
		te, tw = te.widen(walkWindowLog), tw.widen(walkWindowLog)
		hiE, hiW := make([]field.E, 1<<len(te.High)), make([]field.E, 1<<len(tw.High))
		field.EqTable(hiE, te.High)
		field.EqTable(hiW, tw.High)
		for _, l := range Kernels.Levels() {
			for _, reverse := range []bool{false, true} {
				func() {
					defer cpu.SetLevel(l)()
					for _, full := range []bool{true, false} {
						var bw *bilinearWalk
						if full {
							bw = newFullWalk(new(walkScratch), c.nregs, e, w)
						} else {
							bw = newTensorWalk(new(walkScratch), c.nregs, n, te, tw, hiE, hiW)
						}
						for k := range segs {
							s := segs[k]
							if reverse {
								s = segs[len(segs)-1-k]
							}
							if k > 0 {
								bw.restart()
							}
							bw.run(s.slice)
							bw.run(c.code[s.lo:s.hi])
						}
						a, b := bw.sums()
						wantA, wantB := wa, wb
						if !full {
							wantA, wantB = ta, tb
						}
						if a != wantA || b != wantB {
							t.Fatalf("%s level %v reverse %v full %v: (%v, %v), want (%v, %v)", c.Name(), l, reverse, full, a, b, wantA, wantB)
						}
					}
				}()
			}
		}
	}
}

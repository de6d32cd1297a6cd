package recursion

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
)

// TestLiftTargets: a child's tree table is its parent's rows under the child's digit
// (docs/recursion.md §6.11), so a claim on the child's table at any point, lifted, is a
// true claim on the parent's; the target claim reads the child's own row. The parent's
// table has other rows (its own, another child's subtree) that the lift must not read.
func TestLiftTargets(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	randRow := func(cols int) sparseRow {
		var r sparseRow
		for c := range cols {
			if rng.IntN(3) == 0 {
				r.cols, r.coeffs = append(r.cols, int32(c)), append(r.coeffs, randomE(rng))
			}
		}
		return r
	}
	build := func(rows map[int]sparseRow, rb, cb int) *sparseKind {
		b := newSparse(targetsName, 1<<rb, 1<<cb)
		for a := range 1 << rb {
			b.row(rows[a].cols, rows[a].coeffs)
		}
		return b.done()
	}
	// The child: itself at 0 and two descendants at 1 and 2 (rows of 2 bits, 2^5
	// columns, a block of 2^6); the parent of three children (digits of 2 bits): itself,
	// the child as child 1 (digit 2), another subtree under digit 1; 2^8 columns.
	child := map[int]sparseRow{0: randRow(32), 1: randRow(20), 2: randRow(32)}
	x := build(child, 2, 5)
	w, c := 2, 1
	parent := map[int]sparseRow{0: randRow(256), 1: randRow(256), 5: randRow(100)}
	for a, r := range child {
		parent[c+1+a<<w] = r
	}
	p := build(parent, 4, 8)
	if x.rowBits != 2 || x.colBits != 5 || x.logSize != 6 || p.logSize != 8 {
		t.Fatalf("sizes: child %d×%d in 2^%d, parent 2^%d", x.rowBits, x.colBits, x.logSize, p.logSize)
	}
	rand := func(n int) []field.E { return randomPoint(rng, n) }
	for range 4 {
		// The child's batch point is longer than its table's block (its batch's largest
		// kind sets it).
		a, b := rand(9), rand(9)
		va, vb := x.BilinearTensor(EqWeight(a[:x.logSize]), EqWeight(b[:x.logSize]))
		cl := liftTargets(c, w, p.logSize, x.logSize, x.rowBits, x.colBits, a, b, va, vb)
		got, gotB := p.BilinearTensor(cl.Row, cl.Col)
		if got != va || gotB != vb {
			t.Fatal("a lifted claim on the child's table is false on the parent's")
		}
		// Another value is refused.
		if got == va.Add(field.One) {
			t.Fatal("the lift cannot tell values apart")
		}
		// The child's own row at a point τ is its target.
		tau := rand(5)
		var want field.E
		eq := make([]field.E, 32)
		field.EqTable(eq, tau)
		for i, col := range child[0].cols {
			want = want.Add(eq[col].Mul(child[0].coeffs[i]))
		}
		tc := targetClaim(c, w, p.logSize, tau, want)
		if got, _ := p.BilinearTensor(tc.Row, tc.Col); got != want {
			t.Fatal("the target claim does not read the child's own row")
		}
		// Another digit reads another row.
		if got, _ := p.BilinearTensor(targetClaim(0, w, p.logSize, tau, want).Row, tc.Col); got == want {
			t.Fatal("child 0's digit reads child 1's row")
		}
	}
}

// TestTapeTargets: the tape's lift and target claims, evaluated on the values their
// inputs stand for, are the native ones (what a grandparent replays of its child's
// batch).
func TestTapeTargets(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const w, c, L, lx, rb, cb = 2, 1, 9, 7, 3, 6
	vals := make([]field.E, 2*lx+2+cb)
	for i := range vals {
		vals[i] = randomE(rng)
	}
	tp := &Tape{}
	in := make([]Lin, len(vals))
	for i := range in {
		in[i] = tp.Input(0, i)
	}
	input := func(_, word int) field.E { return vals[word] }
	rRow, rCol, va, vb, tau := in[:lx], in[lx:2*lx], in[2*lx], in[2*lx+1], in[2*lx+2:]
	lift := tapeLiftTargets(tp, c, w, L, lx, rb, cb, rRow, rCol, va, vb)
	target := tapeTargetClaim(c, w, L, tau, va)
	ev := func(ls []Lin, units []field.E) []field.E {
		out := make([]field.E, len(ls))
		for i, l := range ls {
			out[i] = l.Eval(input, units)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		native MatrixClaim
		tape   TapeMatrixClaim
	}{
		{"lift", liftTargets(c, w, L, lx, rb, cb, vals[:lx], vals[lx:2*lx], vals[2*lx], vals[2*lx+1]), lift},
		{"target", targetClaim(c, w, L, vals[2*lx+2:], vals[2*lx]), target},
	} {
		n, tc2 := tc.native, tc.tape
		rowLow, rowHigh, colLow, colHigh := tc2.tables(tp)
		_, _, units := tp.Operands(input)
		if !slices.Equal(ev(rowLow, units), n.Row.Low) || !slices.Equal(ev(rowHigh, units), n.Row.High) ||
			!slices.Equal(ev(colLow, units), n.Col.Low) || !slices.Equal(ev(colHigh, units), n.Col.High) ||
			tc2.VA.Eval(input, units) != n.VA || tc2.VB.Eval(input, units) != n.VB {
			t.Fatalf("the %s claim on the tape is not the native one", tc.name)
		}
	}
}

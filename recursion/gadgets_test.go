package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// gadgetCircuit builds a 2^logSize block with E inputs a and b, the gadget's
// output materialised, and returns the circuit, the rows the gadget emitted and
// the output's first column.
func gadgetCircuit(logSize int, gadget func(b *circuit.Builder, cols *Cols, x, y EWires) EWires) (*circuit.Circuit, int, int) {
	b := circuit.NewBuilder("gadget", logSize, 0)
	cols := NewCols(1, 1<<logSize)
	x := InputE(b, cols, "a")
	y := InputE(b, cols, "b")
	start := cols.Next()
	z := gadget(b, cols, x, y)
	rows := cols.Next() - start
	out := cols.Next()
	for _, k := range z {
		MaterializeK(b, cols, k)
	}
	return b.Compile(), rows, out
}

// setK writes element v of instance j (bit-sliced: bit j of w[col+i] is bit i).
func setK(w []uint64, col, j int, v field.K) {
	for i := range KBits {
		w[col+i] |= (uint64(v) >> i & 1) << j
	}
}

func getK(w []uint64, col, j int) field.K {
	var v uint64
	for i := range KBits {
		v |= (w[col+i] >> j & 1) << i
	}
	return field.K(v)
}

func checkGadget(t *testing.T, name string, wantRows int, gadget func(b *circuit.Builder, cols *Cols, x, y EWires) EWires,
	want func(x, y field.E) field.E) {
	t.Helper()
	c, rows, out := gadgetCircuit(15, gadget)
	if rows != wantRows {
		t.Fatalf("%s: %d rows, want %d", name, rows, wantRows)
	}
	rng := testrand.New(t)
	w := make([]uint64, c.Size())
	w[c.ConstCol()] = ^uint64(0)
	xs, ys := make([]field.E, 64), make([]field.E, 64)
	for j := range 64 {
		xs[j] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
		ys[j] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
		if j == 0 {
			xs[j], ys[j] = field.Zero, field.One
		}
		for l, v := range [3]field.K{xs[j].C0, xs[j].C1, xs[j].C2} {
			setK(w, 1+64*l, j, v)
		}
		for l, v := range [3]field.K{ys[j].C0, ys[j].C1, ys[j].C2} {
			setK(w, 1+192+64*l, j, v)
		}
	}
	c.Solve(w, nil, nil)
	if r := c.Satisfied(w); r >= 0 {
		t.Fatalf("%s: row %d violated by the solved witness", name, r)
	}
	for j := range 64 {
		got := field.E{C0: getK(w, out, j), C1: getK(w, out+64, j), C2: getK(w, out+128, j)}
		if exp := want(xs[j], ys[j]); got != exp {
			t.Fatalf("%s: instance %d: %v·%v = %v, want %v", name, j, xs[j], ys[j], got, exp)
		}
	}
	// A flipped product bit violates its row.
	w[out-1] ^= 1 << 5
	if c.Satisfied(w) < 0 {
		t.Fatalf("%s: a flipped product column satisfied every row", name)
	}
}

func TestMulKGadget(t *testing.T) {
	checkGadget(t, "MulK", ANDsKK, func(b *circuit.Builder, cols *Cols, x, y EWires) EWires {
		return EWires{MulK(b, cols, x[0], y[0]), x[1], y[2]}
	}, func(x, y field.E) field.E { return field.E{C0: x.C0.Mul(y.C0), C1: x.C1, C2: y.C2} })
}

func TestMulEGadget(t *testing.T) {
	checkGadget(t, "MulE", ANDsEE, MulE, field.E.Mul)
}

func TestMulEKGadget(t *testing.T) {
	checkGadget(t, "MulEK", ANDsEK, func(b *circuit.Builder, cols *Cols, x, y EWires) EWires {
		return MulEK(b, cols, x, y[1])
	}, func(x, y field.E) field.E { return x.MulK(y.C1) })
}

// TestClmulScratchK: MulK's stack scratch is clmulTo's need for K operands.
func TestClmulScratchK(t *testing.T) {
	if got := clmulScratch(KBits); got != clmulScratchK {
		t.Fatalf("clmulScratch(%d) = %d, clmulScratchK %d", KBits, got, clmulScratchK)
	}
}

// genericOps is an evaluator that clmulTo does not recognise: it runs the generic code.
type genericOps struct{ *circuit.Evaluator }

// TestClmulEvalMatchesGeneric pins clmulTo's evaluator twin to its generic code: MulK
// and MulE on an evaluator, and on the same evaluator behind genericOps, give the same
// output values and the same two sums at random weights.
func TestClmulEvalMatchesGeneric(t *testing.T) {
	rng := testrand.New(t)
	const logSize = 14
	e, w := make([]field.E, 1<<logSize), make([]field.E, 1<<logSize)
	for i := range e {
		e[i], w[i] = randomE(rng), randomE(rng)
	}
	run := func(generic bool) ([]field.E, field.E, field.E) {
		ev := circuit.NewEvaluator(logSize, 0, e, w)
		var x, y EWiresOf[circuit.EvalWire]
		for k := range 3 {
			for i := range KBits {
				x[k][i], y[k][i] = ev.Col(1+k*KBits+i), ev.Col(1+(3+k)*KBits+i)
			}
		}
		cols := NewCols(1+6*KBits, 1<<logSize)
		var z EWiresOf[circuit.EvalWire]
		var k KWiresOf[circuit.EvalWire]
		if generic {
			z = MulE(genericOps{ev}, cols, x, y)
			k = MulK(genericOps{ev}, cols, x[0], y[1])
		} else {
			z = MulE(ev, cols, x, y)
			k = MulK(ev, cols, x[0], y[1])
		}
		var out []field.E
		for _, kw := range append(z[:], k) {
			for _, wire := range kw {
				out = append(out, wire.V)
			}
		}
		va, vb := ev.Sums()
		return out, va, vb
	}
	got, ga, gb := run(false)
	want, wa, wb := run(true)
	if ga != wa || gb != wb {
		t.Fatal("the evaluator twin's sums differ from the generic code's")
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("output wire %d: %v, generic %v", i, got[i], want[i])
		}
	}
}

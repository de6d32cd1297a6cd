package circuit

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// describeRandom emits a random circuit of XOR/AND gates from seed, over literals,
// repeated operands (x ⊕ x folds to the literal 0) and word gadgets, so that an
// Evaluator must number and fold wires exactly as the Builder does.
func describeRandom[W comparable, B Ops[W]](b B, logSize int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	n := 1 << logSize
	b.Input("x", 8, 64)
	var zero W
	pool := []W{b.One(), zero, b.One()}
	for i := range 64 {
		pool = append(pool, b.Col(8+i))
	}
	pick := func() W { return pool[r.IntN(len(pool))] }
	row := 128
	for row < n-200 {
		switch r.IntN(8) {
		case 0: // a word addition, which folds literal words
			var x, y WordOf[W]
			for i := range x {
				x[i], y[i] = pick(), pick()
			}
			switch r.IntN(4) {
			case 0:
				y = ConstWord(b, r.Uint32())
			case 1: // the literal 0 by wire identity: the addition folds away
				for i := range y {
					y[i] = b.Xor(x[i], x[i])
				}
			}
			var s WordOf[W]
			s, row = AddAuto(b, row, x, y)
			pool = append(pool, s[:]...)
		case 1: // x ⊕ x and literal sums, then a product of them
			x := pick()
			pool = append(pool, Product(b, row, b.Xor(x, x), b.Xor(pick(), pick())))
			row++
		default:
			x, y := b.Xor(pick(), pick()), b.Xor(pick(), pick())
			pool = append(pool, x, y, Product(b, row, x, y))
			row++
		}
		if len(pool) > 300 {
			pool = pool[len(pool)-300:]
		}
	}
}

func randTensor(r *rand.Rand, lowLog, logSize int) Tensor {
	return Tensor{Low: randVec(r, 1<<lowLog), High: randVec(r, logSize-lowLog)}
}

// matricesAgree checks that d gives c's values at random full weights, at random
// tensor weights (with a 64-entry low factor, as the lincheck's, a 1-entry one and
// a 1024-entry one, as the merged verifier's: longer than a tensor cache's line) and
// at random points.
func matricesAgree(t *testing.T, r *rand.Rand, c *Circuit, d *Described) {
	t.Helper()
	n := c.Size()
	if d.LogSize() != c.LogSize() || d.ConstCol() != c.ConstCol() {
		t.Fatalf("%s: shape 2^%d const %d, circuit 2^%d const %d", d.Name(), d.LogSize(), d.ConstCol(), c.LogSize(), c.ConstCol())
	}
	for trial := range 2 {
		e, w := randVec(r, n), randVec(r, n)
		wa, wb := c.BilinearPair(e, w)
		ga, gb := d.BilinearPair(e, w)
		if ga != wa || gb != wb {
			t.Fatalf("%s trial %d: full weights: described (%v, %v), walk (%v, %v)", d.Name(), trial, ga, gb, wa, wb)
		}
		for _, lowLog := range []int{6, 0, 10} {
			te, tw := randTensor(r, lowLog, c.LogSize()), randTensor(r, lowLog, c.LogSize())
			fe, fw := make([]field.E, n), make([]field.E, n)
			te.Fill(fe)
			tw.Fill(fw)
			wa, wb := c.BilinearPair(fe, fw)
			for name, m := range map[string]Matrices{"described": d, "walk": c} {
				ga, gb := m.BilinearTensor(te, tw)
				if ga != wa || gb != wb {
					t.Fatalf("%s trial %d: tensor weights (low 2^%d), %s: (%v, %v), want (%v, %v)", d.Name(), trial, lowLog, name, ga, gb, wa, wb)
				}
			}
		}
		rr, rc := randVec(r, c.LogSize()), randVec(r, c.LogSize())
		wa, wb = Eval(c, rr, rc)
		if ga, gb := Eval(d, rr, rc); ga != wa || gb != wb {
			t.Fatalf("%s trial %d: at a point: described (%v, %v), walk (%v, %v)", d.Name(), trial, ga, gb, wa, wb)
		}
		// The point's tensor and its eq table are the same vector.
		fe, fw := make([]field.E, n), make([]field.E, n)
		field.EqTable(fe, rr)
		field.EqTable(fw, rc)
		if ga, gb := c.BilinearPair(fe, fw); ga != wa || gb != wb {
			t.Fatalf("%s trial %d: Eval differs from the eq tables' bilinear form", d.Name(), trial)
		}
	}
}

// The BLAKE2s circuit's description, run on an Evaluator, gives the compiled
// circuit's bilinear forms.
func TestDescribedBlake2sMatchesWalk(t *testing.T) {
	matricesAgree(t, testrand.New(t), BLAKE2s(), BLAKE2sMatrices())
}

// Random descriptions with literals, x ⊕ x and folded word additions: the
// Evaluator folds and numbers wires as the Builder does.
func TestDescribedRandomMatchesWalk(t *testing.T) {
	r := testrand.New(t)
	for trial := range 4 {
		seed := r.Uint64()
		const logSize = 12
		b := NewBuilder("random", logSize, 3)
		describeRandom(b, logSize, seed)
		c := b.Compile()
		d := NewDescribed("random", logSize, 3, func(ev *Evaluator) { describeRandom[EvalWire](ev, logSize, seed) })
		t.Logf("trial %d: %v", trial, c)
		matricesAgree(t, r, c, d)
	}
}

// A description that differs from the circuit in one row gives other values: the
// comparison above can fail.
func TestDescribedDetectsOtherMatrices(t *testing.T) {
	r := testrand.New(t)
	const logSize = 12
	b := NewBuilder("random", logSize, 3)
	describeRandom(b, logSize, 5)
	c := b.Compile()
	d := NewDescribed("random+1", logSize, 3, func(ev *Evaluator) {
		describeRandom[EvalWire](ev, logSize, 5)
		ev.Row(1<<logSize-1, ev.Col(8), ev.One())
	})
	rr, rc := randVec(r, logSize), randVec(r, logSize)
	wa, wb := Eval(c, rr, rc)
	if ga, gb := Eval(d, rr, rc); ga == wa && gb == wb {
		t.Fatal("an extra row left both values unchanged")
	}
}

func BenchmarkDescribedBlake2s(b *testing.B) {
	r := testrand.New(b)
	d, c := BLAKE2sMatrices(), BLAKE2s()
	e, w := randTensor(r, 6, Blake2sLogSize), randTensor(r, 6, Blake2sLogSize)
	b.Run("described", func(b *testing.B) {
		for b.Loop() {
			d.BilinearTensor(e, w)
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			c.BilinearTensor(e, w)
		}
	})
}

// rowSums gives Σ_r e[r]·a_r and Σ_r e[r]·b_r over the rows added, at full and at
// tensor weights (Low of 1, 8, 64 and 1024 entries) and at every kernel level, for
// rows in runs with holes, jumps back to rows already added and ahead, and repeated
// rows (a repeat counts twice, as in the sums of rows added one by one), and taking
// the sums twice.
func TestRowSums(t *testing.T) {
	r := testrand.New(t)
	const logSize = 12
	n := 1 << logSize
	var rows []int
	for row := 0; row < n; {
		rows = append(rows, row)
		switch x := r.IntN(16); {
		case x == 0:
			row += 1 + r.IntN(200)
		case x == 1:
			rows = append(rows, r.IntN(n))
		case x == 2:
			rows = append(rows, row)
		default:
			row++
		}
	}
	a, b := randVec(r, len(rows)), randVec(r, len(rows))
	check := func(what string, s *rowSums, e []field.E) {
		t.Helper()
		var wa, wb field.E
		for i, row := range rows {
			wa, wb = wa.Add(e[row].Mul(a[i])), wb.Add(e[row].Mul(b[i]))
			s.add(row, a[i], b[i])
		}
		for range 2 { // taking the sums leaves them as they are
			if ga, gb := s.sums(); ga != wa || gb != wb {
				t.Fatalf("%s: sums (%v, %v), want (%v, %v)", what, ga, gb, wa, wb)
			}
		}
	}
	for _, l := range append([]cpu.Level{cpu.Portable}, Kernels.Levels()...) {
		func() {
			defer cpu.SetLevel(l)()
			e := randVec(r, n)
			s := newFullRows(e)
			check(fmt.Sprintf("level %v, full weights", l), &s, e)
			for _, lowLog := range []int{0, 3, 6, 10} {
				te := randTensor(r, lowLog, logSize)
				fe := make([]field.E, n)
				te.Fill(fe)
				s := newTensorRows(te)
				check(fmt.Sprintf("level %v, tensor weights with low 2^%d", l, lowLog), &s, fe)
			}
		}()
	}
}

// BenchmarkDescribedCompress evaluates two Compress gadgets and two word sums
// (describeCompressMix, some words literal) at tensor weights, through the
// Evaluator twins and through the generic gadgets.
func BenchmarkDescribedCompress(b *testing.B) {
	r := testrand.New(b)
	const logSize = 15
	e, w := randTensor(r, 6, logSize), randTensor(r, 6, logSize)
	seed := r.Uint64()
	d := NewDescribed("compress-mix", logSize, 3, func(ev *Evaluator) { describeCompressMix[EvalWire](ev, seed) })
	defer func() { evalTwins = true }()
	for _, twins := range []bool{true, false} {
		b.Run(map[bool]string{true: "twins", false: "generic"}[twins], func(b *testing.B) {
			evalTwins = twins
			for b.Loop() {
				d.BilinearTensor(e, w)
			}
		})
	}
}

// The Evaluator twins of the word gadgets (eval_words.go) give the generic
// gadgets' sums and number as many wires, on random descriptions (literal and
// folded words, x ⊕ x) and on BLAKE2s, at full and at tensor weights.
func TestEvalTwinsMatchGeneric(t *testing.T) {
	r := testrand.New(t)
	defer func() { evalTwins = true }()
	run := func(logSize int, e, w []field.E, te, tw Tensor, describe func(*Evaluator)) (sums [4]field.E, wires [2]uint32) {
		ev := NewEvaluator(logSize, 3, e, w)
		describe(ev)
		sums[0], sums[1] = ev.Sums()
		ev2 := NewTensorEvaluator(logSize, 3, te, tw)
		describe(ev2)
		sums[2], sums[3] = ev2.Sums()
		return sums, [2]uint32{ev.next, ev2.next}
	}
	type desc struct {
		name     string
		logSize  int
		describe func(*Evaluator)
	}
	mixSeed := r.Uint64()
	cases := []desc{
		{"blake2s", Blake2sLogSize, func(ev *Evaluator) { describeBlake2s[EvalWire](ev) }},
		{"compress", 15, func(ev *Evaluator) { describeCompressMix[EvalWire](ev, mixSeed) }},
	}
	for trial := range 3 {
		seed := r.Uint64()
		cases = append(cases, desc{fmt.Sprintf("random %d", trial), 14, func(ev *Evaluator) { describeRandom[EvalWire](ev, 14, seed) }})
	}
	for _, c := range cases {
		n := c.logSize
		e, w := randVec(r, 1<<n), randVec(r, 1<<n)
		te, tw := randTensor(r, 6, n), randTensor(r, 10, n)
		evalTwins = false
		want, wantWires := run(n, e, w, te, tw, c.describe)
		evalTwins = true
		got, gotWires := run(n, e, w, te, tw, c.describe)
		if got != want || gotWires != wantWires {
			t.Fatalf("%s: twins give sums %v over %v wires, the generic gadgets %v over %v", c.name, got, gotWires, want, wantWires)
		}
		if want[0] == (field.E{}) || wantWires[0] < 1000 {
			t.Fatalf("%s: a degenerate description (sum %v, %d wires)", c.name, want[0], wantWires[0])
		}
	}
}

// describeCompressMix emits two Compress gadgets (some chaining and message words
// literal, the second compression final) and word sums of four and five words with
// literals among them, from seed: what the Evaluator twins of Compress and AddAuto
// must fold and number as the generic code does.
func describeCompressMix[W comparable, B Ops[W]](b B, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 9))
	b.Input("in", 8, 24*WordBits)
	word := func(i int) WordOf[W] {
		if r.IntN(4) == 0 {
			return ConstWord(b, r.Uint32())
		}
		return ColWord(b, 8+WordBits*i)
	}
	var h [8]WordOf[W]
	var m [16]WordOf[W]
	for i := range h {
		h[i] = word(i)
	}
	for i := range m {
		m[i] = word(8 + i)
	}
	col := 1024
	h, col = Compress(b, col, h, m, r.Uint64(), false)
	h, col = Compress(b, col, h, m, r.Uint64(), true)
	s, col := AddAuto(b, col, h[0], ConstWord(b, r.Uint32()), h[1], h[2])
	s, col = AddAuto(b, col, s, h[3], ConstWord(b, 5), h[4], ConstWord(b, r.Uint32()))
	LinearWord(b, col, s)
}

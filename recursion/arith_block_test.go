package recursion

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// arithTestLog is a small arithmetic block (6 products) for the tests.
const arithTestLog = 15

func randEOf(rng interface{ Uint64() uint64 }) field.E {
	return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
}

// eWords reads the E value at words [w, w+3) of a packed column.
func eWords(col []field.K, w int) field.E { return field.E{C0: col[w], C1: col[w+1], C2: col[w+2]} }

// TestArithBlockProducts: the filled witness holds each operand pair at its words and
// their product at the output words, in every live slot.
func TestArithBlockProducts(t *testing.T) {
	rng := testrand.New(t)
	ab := NewArithBlock(arithTestLog)
	if ab.Products != 6 {
		t.Fatalf("%d products in a 2^%d block, want 6", ab.Products, arithTestLog)
	}
	ops := make([][2]field.E, 20)
	for i := range ops {
		ops[i] = [2]field.E{randEOf(rng), randEOf(rng)}
	}
	ops[3][0] = field.E{} // a zero operand
	seg := ab.Segment(ops)
	if seg.N != 4 {
		t.Fatalf("%d slots for 20 products, want 4", seg.N)
	}
	const nLog = 3
	words := 1 << (nLog + arithTestLog - 6)
	wit, a, b := make([]field.K, words), make([]field.K, words), make([]field.K, words)
	if err := seg.Fill(par.New(nil, 2), nLog, wit, a, b); err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		s, u := ab.At(i)
		x, y := eWords(wit, ab.SegmentWord(s, ab.XWord(u))), eWords(wit, ab.SegmentWord(s, ab.YWord(u)))
		z := eWords(wit, ab.SegmentWord(s, ab.ZWord(u)))
		if x != op[0] || y != op[1] || z != op[0].Mul(op[1]) {
			t.Fatalf("product %d (slot %d, unit %d): x %v y %v z %v, want %v", i, s, u, x, y, z, op[0].Mul(op[1]))
		}
	}
	// Units past the last product hold zeros.
	s, u := ab.At(len(ops))
	if z := eWords(wit, ab.SegmentWord(s, ab.ZWord(u))); z != (field.E{}) {
		t.Fatalf("an unused unit holds %v", z)
	}
}

// arithChain is the wiring of (a·b)·c and d·((a·b)·c): products 0, 1 and 7 (slot 1),
// product 0's output copied to product 1's x, product 1's to product 7's y; the claim
// is that product 7's output is v.
func arithChain(ab *ArithBlock, v field.E) *flows.Evaluations {
	word := func(i int, w func(int) int) int { s, u := ab.At(i); return ab.SegmentWord(s, w(u)) }
	var cp flows.CopyClaim
	for k := range 3 {
		cp.FromWords = append(cp.FromWords, word(0, ab.ZWord)+k, word(1, ab.ZWord)+k)
		cp.ToWords = append(cp.ToWords, word(1, ab.XWord)+k, word(7, ab.YWord)+k)
	}
	out := flows.LinearClaim{Value: v}
	for _, tm := range flows.LinearTermsE(word(7, ab.ZWord), field.One) {
		out.Terms = append(out.Terms, tm)
	}
	return &flows.Evaluations{Linear: []flows.LinearClaim{out}, Copies: []flows.CopyClaim{cp}}
}

// TestArithBlockWiredProof proves d·((a·b)·c) = v through one arithmetic segment tied
// by copy claims, and rejects a witness that breaks the chain (x of product 1 not
// product 0's output) though its last product is the claimed value; without the copy
// claims that witness verifies, so the copies are what reject it.
func TestArithBlockWiredProof(t *testing.T) {
	rng := testrand.New(t)
	ab := NewArithBlock(arithTestLog)
	a, b, c, d := randEOf(rng), randEOf(rng), randEOf(rng), randEOf(rng)
	ops := func(x1 field.E) [][2]field.E {
		out := make([][2]field.E, 8)
		out[0] = [2]field.E{a, b}
		out[1] = [2]field.E{x1, c}
		for i := 2; i < 7; i++ {
			out[i] = [2]field.E{randEOf(rng), randEOf(rng)}
		}
		out[7] = [2]field.E{d, x1.Mul(c)}
		return out
	}
	v := d.Mul(a.Mul(b).Mul(c))
	const label = "leanpipe-recursion-arith-test"
	shapes := []flows.SegmentShape{ab.Shape(8)}
	honest := []flows.Segment{ab.Segment(ops(a.Mul(b)))}
	proof, err := flows.ProveSegments(label, nil, honest, arithChain(ab, v), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flows.VerifySegments(proof, label, nil, shapes, arithChain(ab, v), 1); err != nil {
		t.Fatal(err)
	}
	serial, err := flows.ProveSegments(label, nil, honest, arithChain(ab, v), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(proof.MarshalWire(), serial.MarshalWire()) {
		t.Fatal("the proof depends on the workers")
	}
	if _, err := flows.VerifySegments(proof, label, nil, shapes, arithChain(ab, v.Add(field.One)), 1); err == nil {
		t.Fatal("another value verified")
	}

	// The chain broken at product 1's x, the last value made to match.
	x1 := randEOf(rng)
	broken := []flows.Segment{ab.Segment(ops(x1))}
	w := d.Mul(x1.Mul(c))
	forged, err := flows.ProveSegments(label, nil, broken, arithChain(ab, w), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flows.VerifySegments(forged, label, nil, shapes, arithChain(ab, w), 1); err == nil {
		t.Fatal("a broken chain verified")
	}
	noCopies := func() *flows.Evaluations { ev := arithChain(ab, w); ev.Copies = nil; return ev }
	unwired, err := flows.ProveSegments(label, nil, broken, noCopies(), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flows.VerifySegments(unwired, label, nil, shapes, noCopies(), 1); err != nil {
		t.Fatalf("without copy claims the broken chain's last product should verify: %v", err)
	}
}

// TestArithSegmentCost times a segment of LEANPIPE_ARITH products in 2^20-column
// blocks (its proof alone, at rate 2, at 1 and 2 workers): the go/no-go measurement of
// segment F (docs/recursion.md §6.4).
func TestArithSegmentCost(t *testing.T) {
	spec := os.Getenv("LEANPIPE_ARITH")
	if spec == "" {
		t.Skip("set LEANPIPE_ARITH=N")
	}
	n, err := strconv.Atoi(spec)
	if err != nil || n < 1 {
		t.Fatalf("LEANPIPE_ARITH=%q: a positive count", spec)
	}
	rng := testrand.New(t)
	ab := NewArithBlock(20)
	ops := make([][2]field.E, n)
	for i := range ops {
		ops[i] = [2]field.E{randEOf(rng), randEOf(rng)}
	}
	const label = "leanpipe-recursion-arith-cost"
	for _, w := range []int{1, 2, 1, 2} {
		start := time.Now()
		proof, err := flows.ProveSegments(label, nil, []flows.Segment{ab.Segment(ops)}, nil, 2, par.New(nil, w))
		if err != nil {
			t.Fatal(err)
		}
		prove := time.Since(start)
		start = time.Now()
		if _, err := flows.VerifySegments(proof, label, nil, []flows.SegmentShape{ab.Shape(n)}, nil, 2); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d products (%d per block, %d blocks of 2^20), %d workers: prove %v, verify %v, proof %d B",
			n, ab.Products, ab.Slots(n), w, prove, time.Since(start), len(proof.MarshalWire()))
	}
}

// TestSquareBlockSquares: the filled witness holds each input and its square at
// their words, in every live slot.
func TestSquareBlockSquares(t *testing.T) {
	rng := testrand.New(t)
	sb := NewSquareBlock(arithTestLog)
	xs := make([]field.E, 2*sb.Units+5)
	for i := range xs {
		xs[i] = randEOf(rng)
	}
	xs[1] = field.One
	seg := sb.Segment(xs)
	const nLog = 3
	words := 1 << (nLog + arithTestLog - 6)
	wit, a, b := make([]field.K, words), make([]field.K, words), make([]field.K, words)
	if err := seg.Fill(par.New(nil, 2), nLog, wit, a, b); err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		s, u := sb.At(i)
		in, out := eWords(wit, sb.SegmentWord(s, sb.InWord(u))), eWords(wit, sb.SegmentWord(s, sb.OutWord(u)))
		if in != x || out != x.Square() {
			t.Fatalf("square %d (slot %d, unit %d): in %v out %v, want %v", i, s, u, in, out, x.Square())
		}
	}
}

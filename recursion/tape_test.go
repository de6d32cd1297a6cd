package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// sumcheckRun is an honest degree-2 sumcheck of Σ_x g(x)·h(x) = S over n variables
// (lowest first): per round c0 and c2 of the round polynomial and the challenge, then
// g(r) and h(r), in that order as the committed data.
func sumcheckRun(rng interface{ Uint64() uint64 }, n int) (sum field.E, data []field.E) {
	g, h := make([]field.E, 1<<n), make([]field.E, 1<<n)
	for i := range g {
		g[i], h[i] = randEOf(rng), randEOf(rng)
		sum = sum.Add(g[i].Mul(h[i]))
	}
	for range n {
		var c0, c2 field.E
		for j := 0; j < len(g); j += 2 {
			c0 = c0.Add(g[j].Mul(h[j]))
			c2 = c2.Add(g[j].Add(g[j+1]).Mul(h[j].Add(h[j+1])))
		}
		r := randEOf(rng)
		data = append(data, c0, c2, r)
		half := len(g) / 2
		for j := range half {
			g[j] = g[2*j].Add(r.Mul(g[2*j].Add(g[2*j+1])))
			h[j] = h[2*j].Add(r.Mul(h[2*j].Add(h[2*j+1])))
		}
		g, h = g[:half], h[:half]
	}
	return sum, append(data, g[0], h[0])
}

// sumcheckTape is the sumcheck's verifier on a tape, its data at the x operands of
// data segment 0 (an arithmetic block): c1 = claim + c2, the next claim
// c0 + c1·r + c2·r², and the last claim g(r)·h(r).
func sumcheckTape(ab *ArithBlock, sum field.E, n int) *Tape {
	t := &Tape{}
	at := func(i int) Lin { s, u := ab.At(i); return t.Input(0, ab.SegmentWord(s, ab.XWord(u))) }
	claim := ConstLin(sum)
	for i := range n {
		c0, c2, r := at(3*i), at(3*i+1), at(3*i+2)
		claim = c0.Add(t.Mul(claim.Add(c2), r)).Add(t.Mul(c2, t.Mul(r, r)))
	}
	t.Equal("the last claim", claim, t.Mul(at(3*n), at(3*n+1)))
	return t
}

// dataOps holds each value as the x operand of an arithmetic block's product (y = 1).
func dataOps(data []field.E) [][2]field.E {
	ops := make([][2]field.E, len(data))
	for i, v := range data {
		ops[i] = [2]field.E{v, field.One}
	}
	return ops
}

// TestTapeVerifiesSumcheck: a sumcheck's verifier written on a tape, its data and
// challenges committed in one segment and its products in another, tied by the
// tape's relations: the honest run verifies (the same bytes at 1 and 2 workers); a
// wrong round coefficient, with the products computed from it, is rejected by the
// last claim; products filled from other data than the committed one are rejected by
// the operand relations.
func TestTapeVerifiesSumcheck(t *testing.T) {
	rng := testrand.New(t)
	ab := NewArithBlock(arithTestLog)
	const n = 4
	sum, data := sumcheckRun(rng, n)
	tape := sumcheckTape(ab, sum, n)
	if tape.Products() != 3*n+1 {
		t.Fatalf("%d products, want %d", tape.Products(), 3*n+1)
	}
	rels, err := tape.Relations(TapeLayout{F: ab, FSeg: 1})
	if err != nil {
		t.Fatal(err)
	}
	const label = "leanpipe-recursion-tape-test"
	shapes := []flows.SegmentShape{ab.Shape(len(data)), ab.Shape(tape.Products())}
	ev := func() *flows.Evaluations { return &flows.Evaluations{Relations: rels} }
	prove := func(committed, computed []field.E, w par.Workers) []byte {
		t.Helper()
		ops, _, _ := tape.Operands(func(seg, word int) field.E {
			for i := range computed {
				if s, u := ab.At(i); ab.SegmentWord(s, ab.XWord(u)) == word {
					return computed[i]
				}
			}
			t.Fatalf("no data at word %d", word)
			return field.E{}
		})
		segs := []flows.Segment{ab.Segment(dataOps(committed)), ab.Segment(ops)}
		proof, err := flows.ProveSegments(label, nil, segs, ev(), 1, w)
		if err != nil {
			t.Fatal(err)
		}
		return proof.MarshalWire()
	}
	verify := func(wire []byte) error {
		var proof transcript.Proof
		if err := proof.UnmarshalWire(wire); err != nil {
			return err
		}
		_, err := flows.VerifySegments(&proof, label, nil, shapes, ev(), 1)
		return err
	}
	honest := prove(data, data, par.New(nil, 2))
	if err := verify(honest); err != nil {
		t.Fatal(err)
	}
	if string(prove(data, data, par.Serial())) != string(honest) {
		t.Fatal("the proof depends on the workers")
	}
	wrong := append([]field.E(nil), data...)
	wrong[3] = wrong[3].Add(field.One) // round 1's c0
	if err := verify(prove(wrong, wrong, par.Serial())); err == nil {
		t.Fatal("a wrong round coefficient verified")
	}
	if err := verify(prove(wrong, data, par.Serial())); err == nil {
		t.Fatal("products of other data than the committed verified")
	}
}

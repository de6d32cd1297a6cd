package recursion

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
)

// nativeInputs are tape inputs on three pretend segments (0 the stream, 1 the
// challenges, 2 the hints, each value at word 3·index) and the values they hold.
func nativeInputs(stream, challenges, hints []field.E) (TapeInputs, func(seg, word int) field.E) {
	in := TapeInputs{
		Stream:    func(j int) Lin { return (&Tape{}).Input(0, 3*j) },
		Challenge: func(i int) Lin { return (&Tape{}).Input(1, 3*i) },
		Hint:      func(h int) Lin { return (&Tape{}).Input(2, 3*h) },
	}
	value := func(seg, word int) field.E {
		return [][]field.E{stream, challenges, hints}[seg][word/3]
	}
	return in, value
}

// tapeHolds evaluates every assertion of t on the values.
func tapeHolds(t *Tape, value func(seg, word int) field.E) error {
	_, products := t.Operands(value)
	for _, a := range t.Asserts {
		if !a.Form.Eval(value, products).IsZero() {
			return fmt.Errorf("%s fails", a.What)
		}
	}
	return nil
}

// TestChildTapeHolds records a real child's verification on a tape, with its stream,
// challenges and deferred values as committed inputs: every assertion holds on the
// true values, and a changed stream scalar or deferred value breaks one.
func TestChildTapeHolds(t *testing.T) {
	for _, rate := range []int{1, 2} {
		p, v := childWithValues(t, 4, rate, 31+uint64(rate))
		rev, stream, err := RevealChild(p.Proof, p.Statement)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := nativeInputs(nil, nil, nil)
		ct, err := NewChildTape(p.Statement, in)
		if err != nil {
			t.Fatal(err)
		}
		if ct.Vars != len(stream) || ct.Challenges != len(rev.Challenges) {
			t.Fatalf("rate %d: the tape reads %d scalars and %d challenges of %d and %d", rate, ct.Vars, ct.Challenges, len(stream), len(rev.Challenges))
		}
		hints := []field.E{v.VA, v.VB, v.Key}
		for l := range rev.Enforced {
			hints = append(hints, rev.Enforced[l], rev.Induced[l])
		}
		_, value := nativeInputs(stream, rev.Challenges, hints)
		if err := tapeHolds(ct.Tape, value); err != nil {
			t.Fatalf("rate %d: %v on the true values", rate, err)
		}
		frobs := len(ct.Tape.Units) - ct.Tape.Products()
		t.Logf("rate %d: %d products, %d Frobenius maps, %d assertions, %d stream scalars, %d challenges", rate, ct.Tape.Products(), frobs, len(ct.Tape.Asserts), ct.Vars, ct.Challenges)
		for _, j := range []int{0, 2, 2 + 64, 2 + 64 + 5, ct.Vars - 1} {
			bad := append([]field.E(nil), stream...)
			bad[j] = bad[j].Add(field.One)
			_, value := nativeInputs(bad, rev.Challenges, hints)
			if j >= 2 && tapeHolds(ct.Tape, value) == nil {
				t.Fatalf("rate %d: stream scalar %d changed: the tape holds", rate, j)
			}
		}
		for h := range hints {
			bad := append([]field.E(nil), hints...)
			bad[h] = bad[h].Add(field.One)
			_, value := nativeInputs(stream, rev.Challenges, bad)
			if tapeHolds(ct.Tape, value) == nil {
				t.Fatalf("rate %d: hint %d changed: the tape holds", rate, h)
			}
		}
	}
}

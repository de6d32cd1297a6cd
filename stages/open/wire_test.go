package open

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/testtranscript"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// newRepeatedInstance is newInstance with the stack's top rep+1 lane blocks equal
// (as a Flock batch's padding lanes are), the claims computed on that stack.
func newRepeatedInstance(rng *rand.Rand, stackLog, rate, colVars, nPoints, rep int) *instance {
	in := newInstance(rng, stackLog, rate, colVars, nPoints)
	block := 1 << (stackLog - InitialFold)
	top := in.stack[(level0LaneWords-1)*block:]
	for lane := level0LaneWords - 1 - rep; lane < level0LaneWords-1; lane++ {
		copy(in.stack[lane*block:(lane+1)*block], top)
	}
	in.ringTarget = field.EvalMLEK(in.stack[in.place.Offset:in.place.Offset+1<<colVars], in.ringPoint)
	for i := range in.points {
		in.points[i].Value = field.EvalMLEK(in.stack, in.points[i].Point)
	}
	return in
}

// proveWire is instance.prove with the wire form w.
func (in *instance) proveWire(t testing.TB, w Wire, workers int) (*transcript.Proof, error) {
	t.Helper()
	c, err := commit.Commit(in.committed(), in.stackLog, in.rate, par.New(nil, workers))
	if err != nil {
		t.Fatal(err)
	}
	tr := transcript.NewProver(testLabel, nil)
	h := commit.RootHalves(c.Root())
	tr.SendMany(h[:])
	s := &Scratch{Wire: w}
	if err := s.ProveStacked(tr, c, in.place, in.ring(true), in.points, par.New(nil, workers)); err != nil {
		return nil, err
	}
	return tr.Proof(), nil
}

// verifyWire is instance.verify with the wire form w.
func (in *instance) verifyWire(proof *transcript.Proof, w Wire) error {
	tr := transcript.NewVerifier(proof, testLabel, nil)
	root, err := ReceiveRoot(tr)
	if err != nil {
		return err
	}
	sh := commit.Shape{StackLog: in.stackLog, LogInvRate: in.rate, Lanes: in.lanes}
	if err := VerifyStackedWire(tr, root, sh, in.place, in.ring(false), in.points, w); err != nil {
		return err
	}
	return tr.Finish()
}

// The repeated-lanes form: the same stream and raw openings as the reference form;
// the level-0 wire rows lose their first rep words and nothing else changes; both
// byte forms verify with the form, the raw one also without it; the wire bytes do
// not depend on the workers; a verifier given another rep or none rejects the wire
// bytes.
func TestWireRepeatedLanes(t *testing.T) {
	rng := testrand.New(t)
	for _, c := range []struct{ log, rate, col, points, rep int }{
		{15, 1, 13, 1, 1}, {16, 1, 16, 0, 20}, {15, 2, 12, 2, 63}, {17, 1, 15, 1, 40},
	} {
		in := newRepeatedInstance(rng, c.log, c.rate, c.col, c.points, c.rep)
		w := Wire{RepeatedLanes: c.rep}
		proof, err := in.proveWire(t, w, 2)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		ref := in.prove(t, 2)
		if !bytes.Equal(proof.MarshalRaw(), ref.MarshalRaw()) {
			t.Fatalf("%+v: the raw form differs from the reference form's", c)
		}
		for l, ph := range proof.Phases {
			want := ref.Phases[l]
			if !slices.Equal(ph.Siblings, want.Siblings) || len(ph.Rows) != len(want.Rows) {
				t.Fatalf("%+v: level %d's siblings or rows differ", c, l)
			}
			cut := 0
			if l == 0 {
				cut = c.rep
			}
			for k, r := range ph.Rows {
				if !slices.Equal(r, want.Rows[k][cut:]) {
					t.Fatalf("%+v: level %d row %d is not the reference row without its first %d words", c, l, k, cut)
				}
			}
		}
		one, err := in.proveWire(t, w, 1)
		if err != nil || !bytes.Equal(one.MarshalWire(), proof.MarshalWire()) {
			t.Fatalf("%+v: wire bytes differ between 1 and 2 workers (%v)", c, err)
		}
		var wire, raw transcript.Proof
		if err := wire.UnmarshalWire(proof.MarshalWire()); err != nil {
			t.Fatal(err)
		}
		if err := raw.UnmarshalRaw(proof.MarshalRaw()); err != nil {
			t.Fatal(err)
		}
		if err := in.verifyWire(&wire, w); err != nil {
			t.Fatalf("%+v: wire form rejected: %v", c, err)
		}
		if err := in.verifyWire(&raw, w); err != nil {
			t.Fatalf("%+v: raw form rejected: %v", c, err)
		}
		if err := in.verify(&raw); err != nil {
			t.Fatalf("%+v: raw form rejected by the reference verifier: %v", c, err)
		}
		for _, other := range []Wire{{}, {RepeatedLanes: c.rep - 1}, {RepeatedLanes: min(c.rep+1, 63)}} {
			if other == w {
				continue
			}
			if err := in.verifyWire(&wire, other); err == nil {
				t.Fatalf("%+v: wire form accepted with %+v", c, other)
			}
		}
	}
}

// A stack whose top lanes are not equal: the prover returns an error (no panic), and
// the raw proof of the reference form, whose openings authenticate, is rejected by a
// verifier expecting repeated lanes.
func TestWireRepeatedLanesRefused(t *testing.T) {
	rng := testrand.New(t)
	in := newRepeatedInstance(rng, 15, 1, 13, 1, 3)
	block := 1 << (in.stackLog - InitialFold)
	in.stack[(level0LaneWords-3)*block+7] ^= 1 // lane 61 ≠ lane 63 at one word
	in.ringTarget = field.EvalMLEK(in.stack[in.place.Offset:in.place.Offset+1<<len(in.ringPoint)], in.ringPoint)
	in.points[0].Value = field.EvalMLEK(in.stack, in.points[0].Point)
	w := Wire{RepeatedLanes: 3}
	if _, err := in.proveWire(t, w, 2); err == nil {
		t.Fatal("a stack whose top lanes differ proved in the repeated-lanes form")
	}
	var raw transcript.Proof
	if err := raw.UnmarshalRaw(in.prove(t, 2).MarshalRaw()); err != nil {
		t.Fatal(err)
	}
	if err := in.verify(&raw); err != nil {
		t.Fatal(err)
	}
	if err := in.verifyWire(&raw, w); err == nil {
		t.Fatal("raw openings of lanes that differ accepted in the repeated-lanes form")
	}
}

// Out-of-range forms and a form on a stack of fewer committed lanes are ErrShape on
// both sides.
func TestWireBadShapes(t *testing.T) {
	rng := testrand.New(t)
	in := newRepeatedInstance(rng, 15, 1, 13, 0, 2)
	proof := in.prove(t, 1)
	for _, w := range []Wire{{RepeatedLanes: -1}, {RepeatedLanes: 64}} {
		if _, err := in.proveWire(t, w, 1); !errors.Is(err, ErrShape) {
			t.Errorf("prover with %+v: %v", w, err)
		}
		if err := in.verifyWire(proof, w); !errors.Is(err, ErrShape) {
			t.Errorf("verifier with %+v: %v", w, err)
		}
	}
	part := newPartialInstance(rng, 15, 1, 32, 12, 0)
	if _, err := part.proveWire(t, Wire{RepeatedLanes: 1}, 1); !errors.Is(err, ErrShape) {
		t.Errorf("prover, 32 lanes: %v", err)
	}
	if err := part.verifyWire(part.prove(t, 1), Wire{RepeatedLanes: 1}); !errors.Is(err, ErrShape) {
		t.Errorf("verifier, 32 lanes: %v", err)
	}
}

// testtranscript.Mutate over a repeated-lanes proof: every mutation is rejected and
// none panics (300 mutations; VerifyStackedWire returns errors on hostile input).
func TestWireRepeatedLanesMutations(t *testing.T) {
	rng := testrand.New(t)
	in := newRepeatedInstance(rng, 15, 1, 13, 1, 17)
	w := Wire{RepeatedLanes: 17}
	proof, err := in.proveWire(t, w, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range 300 {
		q, what, ok := testtranscript.Mutate(rng, proof)
		if !ok {
			continue
		}
		if err := in.verifyWire(q, w); err == nil {
			t.Fatalf("%s: accepted", what)
		}
		n++
	}
	t.Logf("%d parsed mutations rejected", n)
}

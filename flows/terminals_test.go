package flows

import (
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// TestSegmentsDeferredTerminals: the linchecks' terminal checks handed to the caller
// (Evaluations.DeferTerminals) are the segments' own: each passes with the matrices'
// true values and fails with a changed one; SegmentsTerminals gives the same checks
// from the transcript alone; an untraced verification refuses to defer them.
func TestSegmentsDeferredTerminals(t *testing.T) {
	segs := []Segment{blake2sSegment(10, 3), blake2sSegment(3, 4)}
	shapes := []SegmentShape{{circuit.BLAKE2s(), 10, nil}, {circuit.BLAKE2s(), 3, nil}}
	const label = "leanpipe-segments-test"
	stmt := []byte("statement")
	p, err := ProveSegments(label, stmt, segs, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := VerifySegmentsTraced(p, label, stmt, shapes, &Evaluations{DeferTerminals: true}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := SegmentsTerminals(p, label, stmt, shapes, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Terminals) != len(shapes) || len(pre) != len(shapes) {
		t.Fatalf("%d and %d terminal checks for %d segments", len(tr.Terminals), len(pre), len(shapes))
	}
	for i, tc := range tr.Terminals {
		row, col := tc.Weights()
		va, vb := circuit.BLAKE2s().BilinearTensor(row, col)
		if err := tc.CheckValues(va, vb); err != nil {
			t.Fatalf("segment %d with its true values: %v", i, err)
		}
		if err := tc.Check(); err != nil {
			t.Fatalf("segment %d: %v", i, err)
		}
		if err := tc.CheckValues(va, vb.Add(field.One)); !errors.Is(err, lincheck.ErrTerminal) {
			t.Fatalf("segment %d with a changed B0 value: %v", i, err)
		}
		r2, c2 := pre[i].Weights()
		if r2.High[0] != row.High[0] || c2.Low[5] != col.Low[5] {
			t.Fatalf("segment %d: SegmentsTerminals' point is not the verifier's", i)
		}
		if err := pre[i].CheckValues(va, vb); err != nil {
			t.Fatalf("segment %d from the transcript prefix: %v", i, err)
		}
	}
	if _, err := VerifySegments(p, label, stmt, shapes, &Evaluations{DeferTerminals: true}, 1); !errors.Is(err, ErrInput) {
		t.Fatalf("an untraced verification deferring its terminal checks: %v", err)
	}
}

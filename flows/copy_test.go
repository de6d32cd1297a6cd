package flows

import (
	"bytes"
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// copySetup is two segments of the layered circuit (128 words per slot; word 1 holds
// a slot's input, word 2 its first product layer): segment 0 with n0 inputs, segment 1
// with the same inputs in reverse order and n1 − n0 more; and the copy claim tying
// every live slot of segment 0 to its partner in segment 1, on words 1 and 2.
func copySetup(t *testing.T, n0, n1 int) ([]Segment, []SegmentShape, CopyClaim) {
	t.Helper()
	rng := testrand.New(t)
	layered := layeredCircuit(4)
	xs := make([]uint64, n0)
	for i := range xs {
		xs[i] = rng.Uint64()
	}
	ys := make([]uint64, n1)
	for i := range ys {
		if i < n0 {
			ys[i] = xs[n0-1-i]
		} else {
			ys[i] = rng.Uint64()
		}
	}
	var c CopyClaim
	c.To = 1
	for s := range n0 {
		for _, w := range []int{1, 2} {
			c.FromWords = append(c.FromWords, w+128*s)
			c.ToWords = append(c.ToWords, w+128*(n0-1-s))
		}
	}
	segs := []Segment{layeredSegment(layered, xs), layeredSegment(layered, ys)}
	shapes := []SegmentShape{{layered, n0, nil}, {layered, n1, nil}}
	return segs, shapes, c
}

func copyEv(copies ...CopyClaim) *Evaluations { return &Evaluations{Copies: copies} }

func TestCopyClaims(t *testing.T) {
	const label = "leanpipe-segments-copies"
	segs, shapes, c := copySetup(t, 12, 20)
	// A single pair (τ of no coordinates) and a copy within one segment: slot 3's
	// input of segment 1 is slot 8's of segment 0.
	one := CopyClaim{From: 1, To: 0, FromWords: []int{1 + 128*3}, ToWords: []int{1 + 128*8}}
	ev := copyEv(c, one)
	proof, err := ProveSegments(label, nil, segs, ev, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, label, nil, shapes, copyEv(c, one), 1); err != nil {
		t.Fatal(err)
	}
	serial, err := ProveSegments(label, nil, segs, copyEv(c, one), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(proof.MarshalWire(), serial.MarshalWire()) {
		t.Fatal("the proof depends on the workers")
	}

	// The verifier's copy claims must be the prover's.
	swapped := CopyClaim{From: c.From, To: c.To, FromWords: c.FromWords, ToWords: append([]int(nil), c.ToWords...)}
	swapped.ToWords[4], swapped.ToWords[6] = swapped.ToWords[6], swapped.ToWords[4]
	if _, err := VerifySegments(proof, label, nil, shapes, copyEv(swapped, one), 1); err == nil {
		t.Fatal("verified against other copy claims")
	}
	if _, err := VerifySegments(proof, label, nil, shapes, copyEv(c), 1); err == nil {
		t.Fatal("verified with a copy claim missing")
	}
	if _, err := VerifySegments(proof, label, nil, shapes, nil, 1); err == nil {
		t.Fatal("verified without the copy claims")
	}

	// Every scalar of the stream changed, one at a time (the copy values among them):
	// rejected, never a panic.
	for i := range proof.Stream {
		bad := *proof
		bad.Stream = append([]field.E(nil), proof.Stream...)
		bad.Stream[i] = bad.Stream[i].Add(field.One)
		if _, err := VerifySegments(&bad, label, nil, shapes, copyEv(c, one), 1); err == nil {
			t.Fatalf("stream scalar %d of %d changed: verified", i, len(proof.Stream))
		}
	}
}

// TestCopyClaimsRejectFalseCopies: a copy that does not hold, proved by the honest
// prover (which sends the From side's sum), is rejected; so is one whose To side is
// the one that differs, and one wrong pair among many.
func TestCopyClaimsRejectFalseCopies(t *testing.T) {
	const label = "leanpipe-segments-copies"
	segs, shapes, c := copySetup(t, 12, 20)
	for _, tc := range []struct {
		name string
		edit func(c *CopyClaim)
	}{
		{"one pair off by a slot", func(c *CopyClaim) { c.ToWords[5] += 128 }},
		{"input copied to a product word", func(c *CopyClaim) { c.ToWords[0]++ }},
		{"sides exchanged, one pair off", func(c *CopyClaim) {
			c.From, c.To = c.To, c.From
			c.FromWords, c.ToWords = c.ToWords, c.FromWords
			c.FromWords[len(c.FromWords)-1] += 128 * 15 // slot 15 of segment 1: an input segment 0 does not hold
		}},
	} {
		bad := CopyClaim{From: c.From, To: c.To, FromWords: append([]int(nil), c.FromWords...), ToWords: append([]int(nil), c.ToWords...)}
		tc.edit(&bad)
		proof, err := ProveSegments(label, nil, segs, copyEv(bad), 1, par.Serial())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := VerifySegments(proof, label, nil, shapes, copyEv(bad), 1); err == nil {
			t.Fatalf("%s: a false copy verified", tc.name)
		}
	}
}

func TestCopyClaimsRefuseBadInput(t *testing.T) {
	const label = "leanpipe-segments-copies"
	segs, shapes, c := copySetup(t, 8, 8)
	proof, err := ProveSegments(label, nil, segs, copyEv(c), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    CopyClaim
	}{
		{"no pairs", CopyClaim{From: 0, To: 1}},
		{"unequal sides", CopyClaim{From: 0, To: 1, FromWords: []int{1, 2}, ToWords: []int{1}}},
		{"word past the column", CopyClaim{From: 0, To: 1, FromWords: []int{1 << 20}, ToWords: []int{1}}},
		{"negative word", CopyClaim{From: 0, To: 1, FromWords: []int{1}, ToWords: []int{-1}}},
		{"no such segment", CopyClaim{From: 0, To: 2, FromWords: []int{1}, ToWords: []int{1}}},
	} {
		if _, err := ProveSegments(label, nil, segs, copyEv(tc.c), 1, par.Serial()); !errors.Is(err, ErrInput) {
			t.Errorf("%s: prove: %v, want ErrInput", tc.name, err)
		}
		if _, err := VerifySegments(proof, label, nil, shapes, copyEv(tc.c), 1); !errors.Is(err, ErrInput) {
			t.Errorf("%s: verify: %v, want ErrInput", tc.name, err)
		}
	}
}

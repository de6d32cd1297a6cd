package flows

import (
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// Forging tests for relations and copy claims (issue 22): a malicious prover with
// full control of the witness and the proof's stream tries to make a false relation
// verify. Each attempt below is rejected; the honest control beside it verifies, so
// the rejection is the relation's doing.

const forgeRelLabel = "leanpipe-segments-relations-forge"

// relSegments is three layered segments of 5, 12 and 9 live slots and their inputs.
func relSegments(t *testing.T) ([]Segment, []SegmentShape, [][]uint64) {
	t.Helper()
	rng := testrand.New(t)
	layered := layeredCircuit(4)
	xs := [][]uint64{make([]uint64, 5), make([]uint64, 12), make([]uint64, 9)}
	var segs []Segment
	var shapes []SegmentShape
	for _, v := range xs {
		for i := range v {
			v[i] = rng.Uint64()
		}
		segs = append(segs, layeredSegment(layered, v))
		shapes = append(shapes, SegmentShape{layered, len(v), nil})
	}
	return segs, shapes, xs
}

// inputRel is the relation Σ coeffs_i·x_{seg_i}[slot_i] = value on the slots' input
// words, with its true value when value is nil.
func inputRel(xs [][]uint64, segSlots [][2]int, coeffs []field.E) Relation {
	var r Relation
	for i, ss := range segSlots {
		r.Terms = append(r.Terms, RelationTerm{Segment: ss[0], Word: 1 + 128*ss[1], Coeff: coeffs[i]})
		r.Value = r.Value.Add(coeffs[i].MulK(field.K(xs[ss[0]][ss[1]])))
	}
	return r
}

// proveVerify proves ev's relations with the honest prover on segs and verifies them
// against the same relations.
func proveVerify(t *testing.T, segs []Segment, shapes []SegmentShape, ev func() *Evaluations) error {
	t.Helper()
	proof, err := ProveSegments(forgeRelLabel, nil, segs, ev(), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	_, err = VerifySegments(proof, forgeRelLabel, nil, shapes, ev(), 1)
	return err
}

// TestForgeRelationOneSegment: a relation touching one segment only (so no value is
// sent: the verifier implies the segment's value from the batched target) is still
// checked: a false one is rejected, alone or beside true relations on other segments,
// and with its only term's coefficient zero (0 = Value, Value ≠ 0).
func TestForgeRelationOneSegment(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, xs := relSegments(t)
	a, b := randE(rng), randE(rng)
	good := inputRel(xs, [][2]int{{1, 3}, {1, 7}}, []field.E{a, b})
	if err := proveVerify(t, segs, shapes, func() *Evaluations { return &Evaluations{Relations: []Relation{good}} }); err != nil {
		t.Fatalf("a true one-segment relation: %v", err)
	}
	bad := good
	bad.Value = bad.Value.Add(field.One)
	if err := proveVerify(t, segs, shapes, func() *Evaluations { return &Evaluations{Relations: []Relation{bad}} }); err == nil {
		t.Fatal("a false relation on one segment (no value sent) verified")
	}
	// Beside a true relation on segments 0 and 2 (segment 1, the false one's, is then
	// neither first nor last of the touched segments).
	other := inputRel(xs, [][2]int{{0, 2}, {2, 8}}, []field.E{randE(rng), randE(rng)})
	if err := proveVerify(t, segs, shapes, func() *Evaluations { return &Evaluations{Relations: []Relation{other, good}} }); err != nil {
		t.Fatalf("true relations: %v", err)
	}
	if err := proveVerify(t, segs, shapes, func() *Evaluations { return &Evaluations{Relations: []Relation{other, bad}} }); err == nil {
		t.Fatal("a false one-segment relation beside a true one verified")
	}
	zero := Relation{Terms: []RelationTerm{{Segment: 2, Word: 1, Coeff: field.E{}}}, Value: field.One}
	if err := proveVerify(t, segs, shapes, func() *Evaluations { return &Evaluations{Relations: []Relation{zero}} }); err == nil {
		t.Fatal("0 = 1 (a relation whose only coefficient is zero) verified")
	}
	zero.Value = field.E{}
	if err := proveVerify(t, segs, shapes, func() *Evaluations { return &Evaluations{Relations: []Relation{zero}} }); err != nil {
		t.Fatalf("0 = 0: %v", err)
	}
}

// TestForgeRelationsCancel: two false relations whose errors would cancel under some
// τ. With errors δ0, δ1 on relations 0 and 1 the batch's error is
// δ0·(1+τ) + δ1·τ: equal errors give δ0 for every τ, and opposite-looking choices
// (δ1 = δ0·(1+τ*)/τ* for a guessed τ*) cancel only at τ = τ*, which the prover cannot
// choose (τ is drawn after the commitment). Both are rejected; so are two false
// relations with the same error on one segment each, where the prover's sent value
// for the first segment cannot absorb the second's error.
func TestForgeRelationsCancel(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, xs := relSegments(t)
	r0 := inputRel(xs, [][2]int{{0, 1}, {1, 2}, {2, 3}}, []field.E{randE(rng), randE(rng), randE(rng)})
	r1 := inputRel(xs, [][2]int{{0, 4}, {1, 11}, {2, 0}}, []field.E{randE(rng), randE(rng), randE(rng)})
	ev := func(rs ...Relation) func() *Evaluations {
		return func() *Evaluations { return &Evaluations{Relations: rs} }
	}
	if err := proveVerify(t, segs, shapes, ev(r0, r1)); err != nil {
		t.Fatal(err)
	}
	delta := randE(rng)
	shift := func(r Relation, d field.E) Relation {
		return Relation{Terms: r.Terms, Value: r.Value.Add(d)}
	}
	if err := proveVerify(t, segs, shapes, ev(shift(r0, delta), shift(r1, delta))); err == nil {
		t.Fatal("two relations off by the same δ verified")
	}
	guess := randE(rng) // τ* the prover bets on
	d1 := delta.Mul(guess.Add(field.One)).Mul(guess.Inv())
	if err := proveVerify(t, segs, shapes, ev(shift(r0, delta), shift(r1, d1))); err == nil {
		t.Fatal("two relations whose errors cancel at a guessed τ verified")
	}
	// The same relation twice, once false: count 2, errors (0, δ).
	if err := proveVerify(t, segs, shapes, ev(r0, shift(r0, delta))); err == nil {
		t.Fatal("a relation listed true and false verified")
	}
	// One term each, segments 0 and 2, the same error: the prover sends v_0 (true on
	// segment 0) and segment 2's implied value carries both errors.
	s0 := inputRel(xs, [][2]int{{0, 3}}, []field.E{randE(rng)})
	s2 := inputRel(xs, [][2]int{{2, 5}}, []field.E{randE(rng)})
	if err := proveVerify(t, segs, shapes, ev(shift(s0, delta), shift(s2, delta))); err == nil {
		t.Fatal("two one-term relations off by δ on two segments verified")
	}
}

// TestForgeRelationStream: the honest prover's stream for a false relation (off by
// 1), every scalar shifted by the relation's error in turn, among them each value the
// relations send (one per touched segment but the last): all rejected. The malicious
// prover knows every column, so it can move the error onto any one segment's share;
// that segment's linear claim is then false. Also for a relation whose first touched
// segment has only a zero coefficient (its share must be 0, so moving the error there
// makes the claim 0 = 1).
func TestForgeRelationStream(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, xs := relSegments(t)
	r := inputRel(xs, [][2]int{{0, 1}, {1, 2}, {2, 3}}, []field.E{randE(rng), randE(rng), randE(rng)})
	zeroFirst := inputRel(xs, [][2]int{{0, 1}, {2, 3}}, []field.E{{}, randE(rng)})
	for _, rel := range []Relation{r, zeroFirst} {
		bad := Relation{Terms: rel.Terms, Value: rel.Value.Add(field.One)}
		ev := func() *Evaluations { return &Evaluations{Relations: []Relation{bad}} }
		proof, err := ProveSegments(forgeRelLabel, nil, segs, ev(), 1, par.Serial())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := VerifySegments(proof, forgeRelLabel, nil, shapes, ev(), 1); err == nil {
			t.Fatal("a false relation verified")
		}
		for i := range proof.Stream {
			p := *proof
			p.Stream = append([]field.E(nil), proof.Stream...)
			p.Stream[i] = p.Stream[i].Add(field.One)
			if _, err := VerifySegments(&p, forgeRelLabel, nil, shapes, ev(), 1); err == nil {
				t.Fatalf("stream scalar %d of %d shifted by the relation's error: a false relation verified", i, len(proof.Stream))
			}
		}
	}
}

// TestForgeRelationCancellingTerms: a word named twice with one coefficient (the
// terms cancel in characteristic 2) is a relation on the other words only: with no
// other word it is 0 = Value, refused for Value ≠ 0; beside another word it holds
// exactly for that word's value.
func TestForgeRelationCancellingTerms(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, xs := relSegments(t)
	a, b := randE(rng), randE(rng)
	twice := []RelationTerm{{Segment: 1, Word: 1 + 128*3, Coeff: a}, {Segment: 1, Word: 1 + 128*3, Coeff: a}}
	ev := func(r Relation) func() *Evaluations {
		return func() *Evaluations { return &Evaluations{Relations: []Relation{r}} }
	}
	if err := proveVerify(t, segs, shapes, ev(Relation{Terms: twice, Value: a.MulK(field.K(xs[1][3]))})); err == nil {
		t.Fatal("a word named twice (cancelling) proved its value")
	}
	if err := proveVerify(t, segs, shapes, ev(Relation{Terms: twice})); err != nil {
		t.Fatalf("a word named twice, value 0: %v", err)
	}
	other := append(slices.Clone(twice), RelationTerm{Segment: 2, Word: 1 + 128*4, Coeff: b})
	v := b.MulK(field.K(xs[2][4]))
	if err := proveVerify(t, segs, shapes, ev(Relation{Terms: other, Value: v})); err != nil {
		t.Fatalf("cancelling terms beside a true one: %v", err)
	}
	if err := proveVerify(t, segs, shapes, ev(Relation{Terms: other, Value: v.Add(a.MulK(field.K(xs[1][3])))})); err == nil {
		t.Fatal("cancelling terms counted once verified")
	}
}

// TestForgeSelfCopy: a copy claim from a word to itself is vacuous (col(w) + col(w) =
// 0) and verifies; it cannot hide a false relation or a false copy batched with it.
func TestForgeSelfCopy(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, xs := relSegments(t)
	self := CopyClaim{From: 1, To: 1, FromWords: []int{1 + 128*4, 2 + 128*4}, ToWords: []int{1 + 128*4, 2 + 128*4}}
	r := inputRel(xs, [][2]int{{1, 4}, {2, 1}}, []field.E{randE(rng), randE(rng)})
	ev := func(rs []Relation, cs ...CopyClaim) func() *Evaluations {
		return func() *Evaluations { return &Evaluations{Relations: rs, Copies: cs} }
	}
	if err := proveVerify(t, segs, shapes, ev(nil, self)); err != nil {
		t.Fatalf("a self copy: %v", err)
	}
	if err := proveVerify(t, segs, shapes, ev([]Relation{r}, self)); err != nil {
		t.Fatalf("a self copy and a true relation: %v", err)
	}
	bad := Relation{Terms: r.Terms, Value: r.Value.Add(field.One)}
	if err := proveVerify(t, segs, shapes, ev([]Relation{bad}, self)); err == nil {
		t.Fatal("a false relation beside a self copy verified")
	}
	// A false copy (slot 4's input to slot 5's) beside self copies of both words.
	falseCp := CopyClaim{From: 1, To: 1, FromWords: []int{1 + 128*4}, ToWords: []int{1 + 128*5}}
	if xs[1][4] == xs[1][5] {
		t.Fatal("equal inputs")
	}
	selfBoth := CopyClaim{From: 1, To: 1, FromWords: []int{1 + 128*4, 1 + 128*5}, ToWords: []int{1 + 128*4, 1 + 128*5}}
	if err := proveVerify(t, segs, shapes, ev(nil, selfBoth, falseCp)); err == nil {
		t.Fatal("a false copy beside self copies verified")
	}
}

// TestForgeRelationWithLinear: a segment touched by relations and by an ordinary
// linear claim: each false one is rejected while the other is true, and a false
// linear claim and a false relation whose errors are equal (so that a merged check
// could cancel them) are rejected together.
func TestForgeRelationWithLinear(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, xs := relSegments(t)
	r := inputRel(xs, [][2]int{{0, 2}, {1, 6}}, []field.E{randE(rng), randE(rng)})
	a := randE(rng)
	lin := LinearClaim{Segment: 1, Terms: []LinearTerm{{Word: 1 + 128*6, Coeff: a}}, Value: a.MulK(field.K(xs[1][6]))}
	ev := func(l LinearClaim, rel Relation) func() *Evaluations {
		return func() *Evaluations { return &Evaluations{Linear: []LinearClaim{l}, Relations: []Relation{rel}} }
	}
	if err := proveVerify(t, segs, shapes, ev(lin, r)); err != nil {
		t.Fatal(err)
	}
	badR := Relation{Terms: r.Terms, Value: r.Value.Add(field.One)}
	badL := lin
	badL.Value = badL.Value.Add(field.One)
	if err := proveVerify(t, segs, shapes, ev(lin, badR)); err == nil {
		t.Fatal("a false relation beside a true linear claim on its segment verified")
	}
	if err := proveVerify(t, segs, shapes, ev(badL, r)); err == nil {
		t.Fatal("a false linear claim beside a true relation on its segment verified")
	}
	if err := proveVerify(t, segs, shapes, ev(badL, badR)); err == nil {
		t.Fatal("a false linear claim and a false relation with the same error verified")
	}
}

// TestForgeRelationOnPadding: a segment of 5 live slots has 8 (slots 5–7 padding,
// which repeat slot 0). checkRelations accepts any word of the column, padding
// included, so a relation may name padding slot 6's input. A malicious prover fills
// slot 6 with another valid block (input P ≠ slot 0's: the block circuit's checks
// pass) and proves col_0(slot 6's input) = P: rejected (by the lincheck, whose
// matrices weigh padding as slot 0's copies), with the relation and without it. The
// honest padding proves slot 0's input there and refuses P.
func TestForgeRelationOnPadding(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(4)
	xs := make([]uint64, 5)
	for i := range xs {
		xs[i] = rng.Uint64()
	}
	p := rng.Uint64()
	shapes := []SegmentShape{{layered, len(xs), nil}}
	for _, tc := range []struct {
		name      string
		pad, val  uint64
		withRel   bool
		wantValid bool
	}{
		{"honest padding, slot 0's value", xs[0], xs[0], true, true},
		{"honest padding, another value", xs[0], p, true, false},
		{"forged padding, its value", p, p, true, false},
		{"forged padding, no relation", p, p, false, false},
	} {
		rel := Relation{Terms: []RelationTerm{{Segment: 0, Word: 1 + 128*6, Coeff: field.One}}, Value: field.FromK(field.K(tc.val))}
		ev := func() *Evaluations {
			if !tc.withRel {
				return nil
			}
			return &Evaluations{Relations: []Relation{rel}}
		}
		seg := paddedSegment(layered, xs, func(s int) uint64 {
			if s == 6 {
				return tc.pad
			}
			return xs[0]
		})
		proof, err := ProveSegments(forgeRelLabel, nil, []Segment{seg}, ev(), 1, par.Serial())
		if err != nil {
			t.Fatal(err)
		}
		_, err = VerifySegments(proof, forgeRelLabel, nil, shapes, ev(), 1)
		if tc.wantValid && err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.wantValid && err == nil {
			t.Fatalf("%s: verified", tc.name)
		}
	}
}

// TestForgePaddingInvalidBlock: padding slots are free only within the block circuit:
// a padding slot whose witness breaks the circuit (a product column flipped, A·w and
// B·w recomputed) is rejected, relation or not.
func TestForgePaddingInvalidBlock(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(4)
	xs := make([]uint64, 5)
	for i := range xs {
		xs[i] = rng.Uint64()
	}
	shapes := []SegmentShape{{layered, len(xs), nil}}
	seg := func(flip bool) Segment {
		honest := layeredSegment(layered, xs)
		return Segment{Circuit: layered, N: len(xs), Fill: func(w par.Workers, nLog int, wit, a, b []field.K) error {
			if err := honest.Fill(w, nLog, wit, a, b); err != nil {
				return err
			}
			if !flip {
				return nil
			}
			// Slot 6's first product layer (column 128, a row) flipped (bit 0 of K
			// word 2), then its A0·w and B0·w recomputed from the changed witness.
			words := layered.Size() / 64
			col := wit[6*words : 7*words]
			col[2] ^= 1
			v, va, vb := make([]uint64, layered.Size()), make([]uint64, layered.Size()), make([]uint64, layered.Size())
			for i := range v {
				v[i] = uint64(col[i/64]) >> (i % 64) & 1
			}
			circuit.RowValuesWords(layered, va, vb, v)
			layered.PackLanes(a[6*words:7*words], va, 1)
			layered.PackLanes(b[6*words:7*words], vb, 1)
			return nil
		}}
	}
	for _, flip := range []bool{false, true} {
		proof, err := ProveSegments(forgeRelLabel, nil, []Segment{seg(flip)}, nil, 1, par.Serial())
		if err != nil {
			t.Fatal(err)
		}
		_, err = VerifySegments(proof, forgeRelLabel, nil, shapes, nil, 1)
		if !flip && err != nil {
			t.Fatalf("honest: %v", err)
		}
		if flip && err == nil {
			t.Fatal("a padding slot breaking the block circuit verified")
		}
	}
}

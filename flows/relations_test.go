package flows

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
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

// TestRelations: relations across three segments (each touched, so two values are
// sent and the third implied), proved with a copy claim in the same batch; a false
// relation, a changed value and a dropped relation are rejected; bad relations are
// refused.
func TestRelations(t *testing.T) {
	const label = "leanpipe-segments-relations"
	rng := testrand.New(t)
	layered := layeredCircuit(4)
	xs := [3][]uint64{make([]uint64, 8), make([]uint64, 12), make([]uint64, 9)}
	for _, v := range xs {
		for i := range v {
			v[i] = rng.Uint64()
		}
	}
	var segs []Segment
	var shapes []SegmentShape
	for _, v := range xs {
		segs = append(segs, layeredSegment(layered, v))
		shapes = append(shapes, SegmentShape{layered, len(v), nil})
	}
	// Relation r: Σ_s a_{r,s}·x_s[slot_{r,s}] = value, over all three segments.
	rels := make([]Relation, 5)
	for r := range rels {
		for s := range 3 {
			slot := rng.IntN(len(xs[s]))
			a := randE(rng)
			rels[r].Terms = append(rels[r].Terms, RelationTerm{Segment: s, Word: 1 + 128*slot, Coeff: a})
			rels[r].Value = rels[r].Value.Add(a.MulK(field.K(xs[s][slot])))
		}
	}
	cp := CopyClaim{From: 2, To: 2, FromWords: []int{1 + 128*2}, ToWords: []int{1 + 128*2}}
	ev := func(rs []Relation) *Evaluations { return &Evaluations{Relations: rs, Copies: []CopyClaim{cp}} }
	proof, err := ProveSegments(label, nil, segs, ev(rels), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, label, nil, shapes, ev(rels), 1); err != nil {
		t.Fatal(err)
	}
	clone := func() []Relation {
		out := make([]Relation, len(rels))
		for i, r := range rels {
			out[i] = Relation{Terms: append([]RelationTerm(nil), r.Terms...), Value: r.Value}
		}
		return out
	}
	changed := clone()
	changed[3].Value = changed[3].Value.Add(field.One)
	if _, err := VerifySegments(proof, label, nil, shapes, ev(changed), 1); err == nil {
		t.Fatal("verified with a relation's value changed")
	}
	if _, err := VerifySegments(proof, label, nil, shapes, ev(rels[:4]), 1); err == nil {
		t.Fatal("verified with a relation dropped")
	}
	// False relations proved by the honest prover, the wrong term on each segment in
	// turn (so the last segment's implied value is the wrong one too).
	for s := range 3 {
		bad := clone()
		bad[1].Terms[s].Word++ // the slot's first product word, not its input
		forged, err := ProveSegments(label, nil, segs, ev(bad), 1, par.Serial())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := VerifySegments(forged, label, nil, shapes, ev(bad), 1); err == nil {
			t.Fatalf("a relation false on segment %d verified", s)
		}
	}
	for _, tc := range []struct {
		name string
		r    Relation
	}{
		{"no terms", Relation{}},
		{"no such segment", Relation{Terms: []RelationTerm{{Segment: 3, Word: 1, Coeff: field.One}}}},
		{"word past the column", Relation{Terms: []RelationTerm{{Segment: 0, Word: 1 << 20, Coeff: field.One}}}},
	} {
		if _, err := VerifySegments(proof, label, nil, shapes, ev([]Relation{tc.r}), 1); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", tc.name, err)
		}
	}
}

// TestRelationWeightsMatchBatch pins the verifier's relation weights (summed from the
// relations at the linear claims' point) to the prover's batched terms read at that
// point: random relations and copy pairs over four segments of 2^10 words, repeated
// words and coefficients one included, the same τ drawn by both.
func TestRelationWeightsMatchBatch(t *testing.T) {
	rng := testrand.New(t)
	const segments, vars = 4, 10
	for trial := range 20 {
		rels := make([]Relation, 1+rng.IntN(300))
		for r := range rels {
			for range 1 + rng.IntN(6) {
				c := randE(rng)
				if rng.IntN(3) == 0 {
					c = field.One
				}
				rels[r].Terms = append(rels[r].Terms, RelationTerm{Segment: rng.IntN(segments - 1), Word: rng.IntN(1 << vars), Coeff: c})
			}
			rels[r].Value = randE(rng)
		}
		var copies []CopyClaim
		for range rng.IntN(3) {
			c := CopyClaim{From: rng.IntN(segments), To: rng.IntN(segments)}
			for range 1 + rng.IntN(20) {
				c.FromWords = append(c.FromWords, rng.IntN(1<<vars))
				c.ToWords = append(c.ToWords, rng.IntN(1<<vars))
			}
			copies = append(copies, c)
		}
		sampler := replaySamples(rng)
		b := batchRelations(rels, copies, segments, sampler(), par.New(nil, 1))
		rw := newRelationWeights(rels, copies, segments, sampler())
		if b.target != rw.target || len(b.segments) != len(rw.segments) {
			t.Fatalf("trial %d: target or segments differ: %v %v", trial, b.segments, rw.segments)
		}
		for k, s := range b.segments {
			if rw.segments[k] != s || rw.counts[s] != len(b.terms[k]) {
				t.Fatalf("trial %d: segment %d: %d terms batched, %d counted", trial, s, len(b.terms[k]), rw.counts[s])
			}
			rho := make([]field.E, vars)
			for i := range rho {
				rho[i] = randE(rng)
			}
			claims := []LinearClaim{{Segment: s, Terms: b.terms[k]}}
			want := linearWeightAt(claims, []int{0}, []field.E{field.One}, rho)
			if got := rw.weight(s, rho); got != want {
				t.Fatalf("trial %d: segment %d's weight %v, the batched terms give %v", trial, s, got, want)
			}
		}
		// All segments at once (prepare, as verifyLinear does), each at a point of its
		// own length, a suffix of one point as the linear claims' sumcheck gives them;
		// then a point prepare did not see is summed afresh.
		full := make([]field.E, vars+segments)
		for i := range full {
			full[i] = randE(rng)
		}
		points := make([][]field.E, segments)
		for s := range points {
			points[s] = full[segments-s:]
		}
		rw.prepare(points)
		for k, s := range b.segments {
			claims := []LinearClaim{{Segment: s, Terms: b.terms[k]}}
			want := linearWeightAt(claims, []int{0}, []field.E{field.One}, points[s])
			if got := rw.weight(s, points[s]); got != want {
				t.Fatalf("trial %d: segment %d's prepared weight %v, the batched terms give %v", trial, s, got, want)
			}
			other := slices.Clone(points[s])
			other[0] = randE(rng)
			want = linearWeightAt(claims, []int{0}, []field.E{field.One}, other)
			if got := rw.weight(s, other); got != want {
				t.Fatalf("trial %d: segment %d's weight at an unprepared point %v, the batched terms give %v", trial, s, got, want)
			}
		}
	}
}

// TestBatchRelationsWorkers checks the relations' batch on 2–4 workers (relations
// scaled in chunks side by side) against one worker's: the same terms, in the same
// order, per segment, and the same target, for enough terms to be cut into chunks.
func TestBatchRelationsWorkers(t *testing.T) {
	rng := testrand.New(t)
	const segments, vars = 5, 14
	rels := make([]Relation, 4*sparseChunk/3)
	for r := range rels {
		for range 1 + rng.IntN(5) {
			rels[r].Terms = append(rels[r].Terms, RelationTerm{Segment: rng.IntN(segments), Word: rng.IntN(1 << vars), Coeff: randE(rng)})
		}
		if rng.IntN(2) == 0 {
			rels[r].Value = randE(rng)
		}
	}
	copies := []CopyClaim{{From: 1, To: 3, FromWords: []int{5, 9, 700}, ToWords: []int{8, 1, 2}}, {From: 2, To: 2, FromWords: []int{4, 6}, ToWords: []int{7, 3}}}
	sampler := replaySamples(rng)
	want := batchRelations(rels, copies, segments, sampler(), par.New(nil, 1))
	for _, n := range []int{2, 3, 4} {
		got := batchRelations(rels, copies, segments, sampler(), par.New(nil, n))
		if got.target != want.target || !slices.Equal(got.segments, want.segments) {
			t.Fatalf("%d workers: target or segments differ from one worker's", n)
		}
		for k := range want.terms {
			if !slices.Equal(got.terms[k], want.terms[k]) {
				t.Fatalf("%d workers: segment %d's terms differ from one worker's", n, want.segments[k])
			}
		}
	}
}

// replaySamples draws 20 random challenges and returns a maker of samplers that each
// replay them in order: two sides drawing τ from their own transcript see the same.
func replaySamples(rng *rand.Rand) func() func() field.E {
	taus := make([]field.E, 20)
	for i := range taus {
		taus[i] = randE(rng)
	}
	return func() func() field.E {
		i := 0
		return func() field.E { i++; return taus[i-1] }
	}
}

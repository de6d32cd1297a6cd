package open

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// ringsInstance is a random stack with eq-weighted ring claims on several columns
// (StackOffsets' placements of the given sizes) and one point claim.
type ringsInstance struct {
	stackLog int
	stack    []field.K
	places   []Placement
	points   [][]field.E // one eq point per column
	targets  []field.E
	pc       []PointClaim
}

func newRingsInstance(rng *rand.Rand, sizes []int) *ringsInstance {
	places, log := StackOffsets(sizes)
	log = max(log, MinStackLog)
	in := &ringsInstance{stackLog: log, stack: make([]field.K, 1<<log), places: places}
	for i := range in.stack {
		in.stack[i] = field.K(rng.Uint64())
	}
	for _, p := range places {
		pt := randPoint(rng, p.Variables)
		in.points = append(in.points, pt)
		in.targets = append(in.targets, field.EvalMLEK(in.stack[p.Offset:p.Offset+1<<p.Variables], pt))
	}
	pt := randPoint(rng, log)
	in.pc = []PointClaim{{Point: pt, Value: field.EvalMLEK(in.stack, pt)}}
	return in
}

func (in *ringsInstance) rings(prover bool) []PlacedRing {
	out := make([]PlacedRing, len(in.places))
	for i, p := range in.places {
		pt := in.points[i]
		rc := RingClaim{Target: in.targets[i], WeightAt: func(x []field.E) field.E { return field.EqEval(pt, x) }}
		if prover {
			rc.Weights = make([]field.E, 1<<len(pt))
			field.EqTable(rc.Weights, pt)
		}
		out[i] = PlacedRing{Place: p, Claim: rc}
	}
	return out
}

func (in *ringsInstance) prove(t *testing.T, rings []PlacedRing, workers int) *transcript.Proof {
	t.Helper()
	c, err := commit.Commit(in.stack, in.stackLog, 1, par.New(nil, workers))
	if err != nil {
		t.Fatal(err)
	}
	tr := transcript.NewProver(testLabel, nil)
	h := commit.RootHalves(c.Root())
	tr.SendMany(h[:])
	if err := ProveStackedRings(tr, c, rings, in.pc, par.New(nil, workers)); err != nil {
		t.Fatal(err)
	}
	return tr.Proof()
}

func (in *ringsInstance) verify(proof *transcript.Proof, rings []PlacedRing) error {
	tr := transcript.NewVerifier(proof, testLabel, nil)
	root, err := ReceiveRoot(tr)
	if err != nil {
		return err
	}
	if err := VerifyStackedRings(tr, root, commit.FullShape(in.stackLog, 1), rings, in.pc); err != nil {
		return err
	}
	return tr.Finish()
}

func TestStackedRingsRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	for _, sizes := range [][]int{{14, 12, 12, 9}, {15, 15}, {13}} {
		in := newRingsInstance(rng, sizes)
		p1 := in.prove(t, in.rings(true), 1)
		p2 := in.prove(t, in.rings(true), 2)
		if !bytes.Equal(p1.MarshalWire(), p2.MarshalWire()) {
			t.Fatalf("sizes %v: 1 and 2 workers gave different proofs", sizes)
		}
		if err := in.verify(p1, in.rings(false)); err != nil {
			t.Fatalf("sizes %v: %v", sizes, err)
		}
		if len(sizes) == 1 {
			continue
		}
		// Each ring claim is held to its own column: a changed target, a swapped pair
		// of placements or a weight evaluated at another point is rejected.
		bad := in.rings(false)
		last := len(bad) - 1
		bad[last].Claim.Target = bad[last].Claim.Target.Add(field.One)
		if err := in.verify(p1, bad); err == nil {
			t.Fatalf("sizes %v: a changed target of the last column verified", sizes)
		}
		bad = in.rings(false)
		if bad[1].Place.Variables == bad[2%len(bad)].Place.Variables && len(bad) > 2 {
			bad[1].Place, bad[2].Place = bad[2].Place, bad[1].Place
			if err := in.verify(p1, bad); err == nil {
				t.Fatalf("sizes %v: swapped columns verified", sizes)
			}
		}
		bad = in.rings(false)
		other := randPoint(rng, len(in.points[0]))
		bad[0].Claim.WeightAt = func(x []field.E) field.E { return field.EqEval(other, x) }
		if err := in.verify(p1, bad); !errors.Is(err, ErrTerminal) {
			t.Fatalf("sizes %v: a weight at another point: %v", sizes, err)
		}
	}
}

// With one ring claim the stream is VerifyStacked's and ProveStacked's.
func TestStackedRingsOneIsStacked(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	rings := in.rings(true)[1:]
	c, err := commit.Commit(in.stack, in.stackLog, 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	a, b := transcript.NewProver(testLabel, nil), transcript.NewProver(testLabel, nil)
	if err := ProveStacked(a, c, rings[0].Place, rings[0].Claim, in.pc, par.Serial()); err != nil {
		t.Fatal(err)
	}
	if err := ProveStackedRings(b, c, rings, in.pc, par.Serial()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Proof().MarshalWire(), b.Proof().MarshalWire()) {
		t.Fatal("one ring claim: ProveStackedRings differs from ProveStacked")
	}
}

// Two claims on one column at different points, and a column inside another, add
// their weights.
func TestStackedRingsOverlap(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	// Column 1 moves inside column 0, and a third claim shares column 0.
	in.places[1].Offset = in.places[0].Offset + 1<<12
	in.places = append(in.places, in.places[0])
	in.points = append(in.points, randPoint(rng, in.places[0].Variables))
	in.targets = in.targets[:1]
	for _, i := range []int{1, 2} {
		p := in.places[i]
		in.targets = append(in.targets, field.EvalMLEK(in.stack[p.Offset:p.Offset+1<<p.Variables], in.points[i]))
	}
	proof := in.prove(t, in.rings(true), 2)
	if err := in.verify(proof, in.rings(false)); err != nil {
		t.Fatal(err)
	}
	bad := in.rings(false)
	bad[2].Claim.Target = bad[2].Claim.Target.Add(field.One)
	if err := in.verify(proof, bad); err == nil {
		t.Fatal("a changed target of a shared column verified")
	}
	v := transcript.NewVerifier(nil, testLabel, nil)
	if err := VerifyStackedRings(v, merkle.Digest{}, commit.FullShape(in.stackLog, 1), nil, nil); !errors.Is(err, ErrClaim) {
		t.Fatalf("no ring claim: %v", err)
	}
}

// gappedRings is a ringsInstance of three disjoint columns with gaps between and after
// them, and its commitment: column 1 moved up to 2^14 (aligned), column 2 just after
// it, the stack's tail past it another gap.
func gappedRings(t *testing.T, rng *rand.Rand) (*ringsInstance, *commit.Committed) {
	t.Helper()
	in := newRingsInstance(rng, []int{13, 12, 10})
	if in.stackLog < 15 {
		t.Fatalf("a stack of 2^%d", in.stackLog)
	}
	in.places[1].Offset = 1 << 14
	in.places[2].Offset = in.places[1].Offset + 1<<12
	for i := range in.places {
		p := in.places[i]
		in.targets[i] = field.EvalMLEK(in.stack[p.Offset:p.Offset+1<<p.Variables], in.points[i])
	}
	c, err := commit.Commit(in.stack, in.stackLog, 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	return in, c
}

// TestStackedRingsGapsOnUsedScratch: disjoint columns with gaps between them and after
// them, proved on a scratch whose weight buffer holds another proof's words, give
// the bytes of a fresh scratch, and the proof verifies (the gaps are cleared, the
// columns written whole).
func TestStackedRingsGapsOnUsedScratch(t *testing.T) {
	rng := testrand.New(t)
	in, c := gappedRings(t, rng)
	prove := func(s *Scratch) []byte {
		tr := transcript.NewProver(testLabel, nil)
		h := commit.RootHalves(c.Root())
		tr.SendMany(h[:])
		if err := s.ProveStackedRings(tr, c, in.rings(true), in.pc, par.New(nil, 2)); err != nil {
			t.Fatal(err)
		}
		return tr.Proof().MarshalWire()
	}
	fresh := prove(new(Scratch))
	used := new(Scratch)
	used.weight = make([]field.E, len(in.stack))
	for i := range used.weight {
		used.weight[i] = field.E{C0: field.K(rng.Uint64()), C1: 1}
	}
	if got := prove(used); !bytes.Equal(got, fresh) {
		t.Fatal("a used scratch gave other bytes than a fresh one")
	}
	var proof transcript.Proof
	if err := proof.UnmarshalWire(fresh); err != nil {
		t.Fatal(err)
	}
	if err := in.verify(&proof, in.rings(false)); err != nil {
		t.Fatal(err)
	}
}

// TestStackedRingsIn: the rings' weights written into one weight at their columns
// (gaps holding garbage) and proved in place give ProveStackedRings' bytes; weights
// that are not the given weight's columns, or overlapping columns, are refused.
func TestStackedRingsIn(t *testing.T) {
	rng := testrand.New(t)
	in, c := gappedRings(t, rng)
	start := func() *transcript.Prover {
		tr := transcript.NewProver(testLabel, nil)
		h := commit.RootHalves(c.Root())
		tr.SendMany(h[:])
		return tr
	}
	want := start()
	if err := ProveStackedRings(want, c, in.rings(true), in.pc, par.New(nil, 2)); err != nil {
		t.Fatal(err)
	}
	placed := func() ([]field.E, []PlacedRing) {
		b := make([]field.E, len(in.stack))
		for i := range b {
			b[i] = field.E{C0: field.K(rng.Uint64()), C2: 1}
		}
		rings := in.rings(true)
		for i := range rings {
			w := b[rings[i].Place.Offset : rings[i].Place.Offset+len(rings[i].Claim.Weights)]
			copy(w, rings[i].Claim.Weights)
			rings[i].Claim.Weights = w
		}
		return b, rings
	}
	b, rings := placed()
	got := start()
	if err := new(Scratch).ProveStackedRingsIn(got, c, rings, in.pc, b, par.New(nil, 2)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Proof().MarshalWire(), want.Proof().MarshalWire()) {
		t.Fatal("in place: other bytes than ProveStackedRings")
	}
	b, rings = placed()
	rings[1].Claim.Weights = append([]field.E(nil), rings[1].Claim.Weights...)
	if err := new(Scratch).ProveStackedRingsIn(start(), c, rings, in.pc, b, par.Serial()); !errors.Is(err, ErrClaim) {
		t.Fatalf("a ring's weights outside the given weight: %v", err)
	}
	b, rings = placed()
	rings[2].Place.Offset = rings[1].Place.Offset
	rings[2].Claim.Weights = b[rings[2].Place.Offset : rings[2].Place.Offset+len(rings[2].Claim.Weights)]
	if err := new(Scratch).ProveStackedRingsIn(start(), c, rings, in.pc, b, par.Serial()); !errors.Is(err, ErrClaim) {
		t.Fatalf("overlapping columns: %v", err)
	}
}

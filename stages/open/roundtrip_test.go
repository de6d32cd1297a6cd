package open

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

var (
	_ ProverTranscript   = (*transcript.Prover)(nil)
	_ VerifierTranscript = (*transcript.Verifier)(nil)
)

var testLabel = []byte("leanpipe-open-test")

// instance is one stacked opening: a committed random stack, a ring-style claim
// (an eq weight) on a placed column, and point claims.
type instance struct {
	stackLog, rate int
	stack          []field.K
	place          Placement
	ringPoint      []field.E
	ringTarget     field.E
	points         []PointClaim
	lanes          int // committed lane blocks (the stack's words after them are zero)
}

// committed returns the committed part of the stack.
func (in *instance) committed() []field.K { return in.stack[:in.lanes<<(in.stackLog-InitialFold)] }

// newPartialInstance is an instance committed in its first lanes lane blocks: the
// column and every point claim (boolean high coordinates selecting one block) lie
// inside them.
func newPartialInstance(rng *rand.Rand, stackLog, rate, lanes, colVars, nPoints int) *instance {
	blockLog := stackLog - InitialFold
	in := &instance{stackLog: stackLog, rate: rate, stack: make([]field.K, 1<<stackLog), lanes: lanes}
	for i := range in.committed() {
		in.stack[i] = field.K(rng.Uint64())
	}
	slots := (lanes << blockLog) >> colVars
	in.place = Placement{Variables: colVars, Offset: rng.IntN(slots) << colVars}
	in.ringPoint = randPoint(rng, colVars)
	in.ringTarget = field.EvalMLEK(in.stack[in.place.Offset:in.place.Offset+1<<colVars], in.ringPoint)
	for i := 0; i < nPoints; i++ {
		pt := randPoint(rng, stackLog)
		blk := rng.IntN(lanes)
		for k := 0; k < InitialFold; k++ {
			pt[blockLog+k] = field.FromK(field.K(blk >> k & 1))
		}
		in.points = append(in.points, PointClaim{Point: pt, Value: field.EvalMLEK(in.stack, pt)})
	}
	return in
}

func randPoint(rng *rand.Rand, n int) []field.E {
	p := make([]field.E, n)
	for i := range p {
		p[i] = randE(rng)
	}
	return p
}

func newInstance(rng *rand.Rand, stackLog, rate, colVars, nPoints int) *instance {
	in := &instance{stackLog: stackLog, rate: rate, stack: make([]field.K, 1<<stackLog), lanes: 1 << InitialFold}
	for i := range in.stack {
		in.stack[i] = field.K(rng.Uint64())
	}
	slots := 1 << (stackLog - colVars)
	in.place = Placement{Variables: colVars, Offset: rng.IntN(slots) << colVars}
	in.ringPoint = randPoint(rng, colVars)
	col := in.stack[in.place.Offset : in.place.Offset+1<<colVars]
	in.ringTarget = field.EvalMLEK(col, in.ringPoint)
	for i := 0; i < nPoints; i++ {
		pt := randPoint(rng, stackLog)
		if i%2 == 1 {
			// A claim on an aligned region: boolean high coordinates.
			for k := stackLog - 1 - rng.IntN(4); k < stackLog; k++ {
				pt[k] = field.FromK(field.K(rng.IntN(2)))
			}
		}
		in.points = append(in.points, PointClaim{Point: pt, Value: field.EvalMLEK(in.stack, pt)})
	}
	return in
}

func (in *instance) ring(prover bool) RingClaim {
	rc := RingClaim{Target: in.ringTarget, WeightAt: func(x []field.E) field.E { return field.EqEval(in.ringPoint, x) }}
	if prover {
		rc.Weights = make([]field.E, 1<<len(in.ringPoint))
		field.EqTable(rc.Weights, in.ringPoint)
	}
	return rc
}

func (in *instance) prove(t testing.TB, workers int) *transcript.Proof {
	t.Helper()
	c, err := commit.Commit(in.committed(), in.stackLog, in.rate, par.New(nil, workers))
	if err != nil {
		t.Fatal(err)
	}
	tr := transcript.NewProver(testLabel, nil)
	h := commit.RootHalves(c.Root())
	tr.SendMany(h[:])
	if err := ProveStacked(tr, c, in.place, in.ring(true), in.points, par.New(nil, workers)); err != nil {
		t.Fatal(err)
	}
	return tr.Proof()
}

func (in *instance) verify(proof *transcript.Proof) error {
	tr := transcript.NewVerifier(proof, testLabel, nil)
	root, err := ReceiveRoot(tr)
	if err != nil {
		return err
	}
	if err := VerifyStacked(tr, root, commit.Shape{StackLog: in.stackLog, LogInvRate: in.rate, Lanes: in.lanes}, in.place, in.ring(false), in.points); err != nil {
		return err
	}
	return tr.Finish()
}

func TestRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	type shape struct{ log, rate, col, points int }
	shapes := []shape{{15, 1, 13, 0}, {15, 2, 15, 3}, {16, 1, 12, 2}, {17, 1, 17, 1}, {15, 4, 10, 2}, {18, 3, 16, 1}}
	if !testing.Short() && os.Getenv("LEANPIPE_HEAVY") != "" {
		shapes = append(shapes, shape{20, 1, 20, 2}, shape{21, 2, 19, 1})
	}
	for _, s := range shapes {
		in := newInstance(rng, s.log, s.rate, s.col, s.points)
		proof := in.prove(t, 2)
		if err := in.verify(proof); err != nil {
			t.Fatalf("shape %+v: honest proof rejected: %v", s, err)
		}
		// Both byte forms decode to a proof the verifier accepts.
		var raw, wire transcript.Proof
		if err := raw.UnmarshalRaw(proof.MarshalRaw()); err != nil {
			t.Fatal(err)
		}
		if err := wire.UnmarshalWire(proof.MarshalWire()); err != nil {
			t.Fatal(err)
		}
		if err := in.verify(&raw); err != nil {
			t.Fatalf("shape %+v: raw form rejected: %v", s, err)
		}
		if err := in.verify(&wire); err != nil {
			t.Fatalf("shape %+v: wire form rejected: %v", s, err)
		}
		// A wrong claim value is rejected.
		bad := *in
		bad.ringTarget = bad.ringTarget.Add(field.One)
		if err := bad.verify(proof); err == nil {
			t.Fatalf("shape %+v: wrong ring target accepted", s)
		}
	}
}

// A stack committed in fewer lanes: round trip in both forms, the same stream and
// raw openings as committing the zero-padded full stack, and a wire form whose
// level-0 rows carry only the committed lanes.
func TestRoundTripPartialLanes(t *testing.T) {
	rng := testrand.New(t)
	for _, c := range []struct{ log, rate, lanes, col, points int }{
		{15, 1, 1, 9, 1}, {15, 2, 5, 10, 2}, {16, 1, 37, 12, 1}, {15, 1, 63, 14, 0}, {17, 3, 2, 11, 3},
	} {
		in := newPartialInstance(rng, c.log, c.rate, c.lanes, c.col, c.points)
		proof := in.prove(t, 2)
		for _, form := range []struct {
			wire bool
			data []byte
		}{{false, proof.MarshalRaw()}, {true, proof.MarshalWire()}} {
			if in.rejects(form.data, form.wire) {
				t.Fatalf("%+v wire=%v: honest proof rejected", c, form.wire)
			}
		}
		full := *in
		full.lanes = 1 << InitialFold
		fullProof := full.prove(t, 2)
		if !bytes.Equal(fullProof.MarshalRaw(), proof.MarshalRaw()) {
			t.Fatalf("%+v: raw proof differs from the zero-padded full stack's", c)
		}
		if w, fw := len(proof.MarshalWire()), len(fullProof.MarshalWire()); w >= fw {
			t.Fatalf("%+v: wire proof of %d bytes, full-lane one %d", c, w, fw)
		}
		// The lane count is part of the statement: the wire proof fails under another.
		other := *in
		other.lanes = 1 << InitialFold
		if !other.rejects(proof.MarshalWire(), true) {
			t.Fatalf("%+v: wire proof accepted with 64 lanes", c)
		}
		// A claim reaching outside the committed lanes is refused by the prover.
		if c.lanes < 1<<InitialFold {
			cm, _ := commit.Commit(in.committed(), in.stackLog, in.rate, par.New(nil, 1))
			bad := []PointClaim{{Point: randPoint(rng, in.stackLog)}}
			tr := transcript.NewProver(testLabel, nil)
			if err := ProveStacked(tr, cm, in.place, in.ring(true), bad, par.New(nil, 1)); !errors.Is(err, ErrClaim) {
				t.Fatalf("%+v: claim over the absent lanes: err %v", c, err)
			}
		}
	}
}

func TestWorkersIdentical(t *testing.T) {
	rng := testrand.New(t)
	in := newInstance(rng, 16, 1, 14, 2)
	ref := in.prove(t, 1).MarshalWire()
	for _, w := range []int{2, 4} {
		if got := in.prove(t, w).MarshalWire(); !bytes.Equal(got, ref) {
			t.Fatalf("workers %d: proof bytes differ from workers 1", w)
		}
	}
	// A reused Scratch (buffers holding the previous proof's data) changes nothing,
	// for a column filling the stack and for one that does not.
	c, err := commit.Commit(in.stack, in.stackLog, in.rate, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	var s Scratch
	for _, full := range []bool{false, true, false} {
		place, ring := in.place, in.ring(true)
		want := ref
		if full {
			place = Placement{Variables: in.stackLog}
			ring = RingClaim{Weights: make([]field.E, 1<<in.stackLog)}
			full := randPoint(rng, in.stackLog)
			field.EqTable(ring.Weights, full)
			ring.Target = field.EvalMLEK(in.stack, full)
			ring.WeightAt = func(x []field.E) field.E { return field.EqEval(full, x) }
			tr := transcript.NewProver(testLabel, nil)
			h := commit.RootHalves(c.Root())
			tr.SendMany(h[:])
			w2 := append([]field.E(nil), ring.Weights...)
			if err := ProveStacked(tr, c, place, RingClaim{Target: ring.Target, Weights: w2}, in.points, par.New(nil, 1)); err != nil {
				t.Fatal(err)
			}
			want = tr.Proof().MarshalWire()
		}
		tr := transcript.NewProver(testLabel, nil)
		h := commit.RootHalves(c.Root())
		tr.SendMany(h[:])
		if err := s.ProveStacked(tr, c, place, ring, in.points, par.New(nil, 2)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tr.Proof().MarshalWire(), want) {
			t.Fatalf("reused scratch (full column %v): proof bytes differ", full)
		}
		vtr := transcript.NewVerifier(tr.Proof(), testLabel, nil)
		root, _ := ReceiveRoot(vtr)
		if err := VerifyStacked(vtr, root, commit.FullShape(in.stackLog, in.rate), place, ring, in.points); err != nil || vtr.Finish() != nil {
			t.Fatalf("reused scratch (full column %v): rejected: %v", full, err)
		}
	}
}

func TestEncodeMatchesNovelBasis(t *testing.T) {
	rng := testrand.New(t)
	// Level 0: 2^15 K words, rows of 64 lanes in descending block order.
	stack := make([]field.K, 1<<15)
	for i := range stack {
		stack[i] = field.K(rng.Uint64())
	}
	c, err := commit.Commit(stack, 15, 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	cols := len(stack) >> 6
	for _, q := range []int{0, 1, 7, rng.IntN(1 << c.BlockLog()), 1<<c.BlockLog() - 1} {
		basis := make([]field.E, cols)
		InducedTable(basis, 9, []int{q}, []field.E{field.One}, par.New(nil, 1))
		row := c.Tree.Row(q)
		for lane := 0; lane < 64; lane++ {
			want := field.Zero
			for x, b := range basis {
				want = want.Add(b.MulK(stack[lane*cols+x]))
			}
			if field.FromK(field.K(row[63-lane])) != want {
				t.Fatalf("level 0 row %d lane %d disagrees with the novel basis", q, lane)
			}
		}
	}
	// Deeper levels: E message, lanes in the low index bits, rows of E lanes.
	msg := randPoint(rng, 1<<9)
	words := make([]uint64, 24<<9)
	commit.EncodeE(words, msg, 3, 3, par.New(nil, 2))
	for q := 0; q < 1<<9; q += 37 {
		basis := make([]field.E, 64)
		InducedTable(basis, 6, []int{q}, []field.E{field.One}, par.New(nil, 1))
		row := extRow(words[q*24 : (q+1)*24])
		for lane := 0; lane < 8; lane++ {
			want := field.Zero
			for x, b := range basis {
				want = want.Add(b.Mul(msg[x*8+lane]))
			}
			if row[lane] != want {
				t.Fatalf("ext row %d lane %d disagrees with the novel basis", q, lane)
			}
		}
	}
}

func TestVerifierRejectsBadShapes(t *testing.T) {
	rng := testrand.New(t)
	in := newInstance(rng, 15, 1, 13, 1)
	proof := in.prove(t, 2)
	ring := in.ring(false)
	cases := []struct {
		name   string
		log    int
		place  Placement
		points []PointClaim
	}{
		{"small stack", 14, in.place, in.points},
		{"large stack", 29, in.place, in.points},
		{"misaligned", 15, Placement{13, 100}, in.points},
		{"outside", 15, Placement{13, 1 << 15}, in.points},
		{"virtual", 15, Virtual, in.points},
		{"short point", 15, in.place, []PointClaim{{Point: in.points[0].Point[:3]}}},
	}
	for _, c := range cases {
		tr := transcript.NewVerifier(proof, testLabel, nil)
		root, _ := ReceiveRoot(tr)
		if err := VerifyStacked(tr, root, commit.FullShape(c.log, 1), c.place, ring, c.points); err == nil {
			t.Errorf("%s: accepted", c.name)
		} else if c.name != "small stack" && c.name != "large stack" && !errors.Is(err, ErrClaim) {
			t.Errorf("%s: error %v is not ErrClaim", c.name, err)
		}
	}
}

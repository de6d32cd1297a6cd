package recursion

import (
	"slices"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// TestMergedChildProof proves a no-reveal merged proof's whole verification in a
// parent proof (the step a depth-2 merge takes for each merged child): the merged
// proof's transcript in schedule-pinned transcript blocks chained from its label, its
// segmented verification on a tape, its WHIR queries and grinding checks in no-reveal
// blocks; what the parent carries (each segment's matrices and public table and each
// linear batch's weight at their committed points) checked natively, with the merged
// proof's own carried claims. The honest proof verifies; a carried value or point
// other than the true one is rejected.
func TestMergedChildProof(t *testing.T) {
	skipProofs(t, "proves a merge and its verification")
	m, err := MergeNR(mergeChildren(siblingLeaves(t, 2, 4, 2, 71)), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	mShapes, mEv, statement := l.shapes(), &flows.Evaluations{Relations: l.rels}, m.statementBytes()
	var chain, grind []transcript.Step
	if _, err := flows.VerifySegmentsTraced(m.Proof, MergeLabelNR, statement, mShapes, mEv, m.LogInvRate, func(s transcript.Step) {
		if s.OnChain {
			chain = append(chain, s)
		} else {
			grind = append(grind, s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := flows.VerifySegments(m.Proof, MergeLabelNR, statement, mShapes, mEv, m.LogInvRate)
	if err != nil {
		t.Fatal(err)
	}

	// A replay on the true values gives what the parent carries and the queries' inputs.
	harness, _ := nativeTapeInputs(nil, nil, nil)
	dry, err := NewSegmentsTape(statement, mShapes, mEv, m.LogInvRate, harness)
	if err != nil {
		t.Fatal(err)
	}
	e := func(w [4]uint64) field.E { return field.E{C0: field.K(w[0]), C1: field.K(w[1]), C2: field.K(w[2])} }
	stream, chals := make([]field.E, dry.Vars), make([]field.E, dry.Challenges)
	for i, s := range dry.Steps {
		switch s.Kind {
		case StepScalar:
			stream[s.Var] = e(chain[i].Block)
		case StepSqueeze:
			chals[s.Challenge] = e(chain[i].Out)
		}
	}
	_, value := nativeTapeInputs(stream, chals, make([]field.E, len(dry.Hints)))
	_, _, units := dry.Tape.Operands(value)
	evs := func(ls []Lin) []field.E {
		out := make([]field.E, len(ls))
		for i, x := range ls {
			out[i] = x.Eval(value, units)
		}
		return out
	}
	var carried SegmentsCarried
	for h, hk := range dry.Hints {
		if hk.Kind == HintLevelEnforced || hk.Kind == HintLevelInduced {
			break // the levels' sums come last; the query blocks prove them
		}
		carried.Points = append(carried.Points, evs(dry.HintPoint(h)))
		carried.Values = append(carried.Values, field.E{})
	}
	hints := make([]SegmentHint, len(carried.Values))
	copy(hints, dry.Hints)
	mPlaces, _, _ := placesOf(t, mShapes, m.LogInvRate, statement)
	for h := range carried.Values {
		if carried.Values[h], err = carriedValue(hints[h], carried.Points[h], mShapes, mEv, mPlaces); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckCarried(hints, &carried, mShapes, mEv, m.LogInvRate, statement); err != nil {
		t.Fatal(err)
	}
	sh, err := flows.CommittedShape(placesOf(t, mShapes, m.LogInvRate, statement))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		t.Fatal(err)
	}
	openings := raw.Openings
	lqs := make([]LevelQueries, len(dry.Levels))
	for lv, tl := range dry.Levels {
		samples := evs(tl.Samples)
		ml := cfg.MessageLog(lv)
		idx := transcript.QueriesFrom(1<<(ml+cfg.LogInvRates[lv]), cfg.Queries[lv], func() field.E { x := samples[0]; samples = samples[1:]; return x })
		eq := make([]field.E, 1<<len(tl.Folds))
		field.EqTable(eq, evs(tl.Folds))
		if lv == 0 {
			slices.Reverse(eq)
		}
		point := evs(tl.Point)
		for _, q := range idx {
			o := openings[0]
			openings = openings[1:]
			lqs[lv].Queries = append(lqs[lv].Queries, QueryInput{Index: q, Row: o.Leaf, Path: o.Path, Eq: eq, Weight: field.One, Point: point})
		}
		lqs[lv].MessageLog, lqs[lv].Point = ml, point
	}

	// The parent's proof of the merged proof's verification.
	tb := NewTranscriptBlock()
	layout := TapeLayout{F: NewArithBlock(20), FSeg: 1, S: NewSquareBlock(20), SSeg: 2}
	start := [4]uint64(transcript.NewVerifier(nil, []byte(MergeLabelNR), nil).State())
	build := func(c *SegmentsCarried) (*SegmentsTape, TapeInputs, []flows.Relation, []flows.SegmentShape) {
		t.Helper()
		in := TranscriptInputs(tb, 0, 0, CarriedHints(c))
		for lv, lq := range lqs {
			in.Levels = append(in.Levels, TapeQueryLevel{QB: NewQueryBlockNR(lv == 0, len(lq.Queries[0].Path), len(lq.Point)), Seg: 3 + lv})
		}
		in.Grind = &TapeGrind{GB: NewGrindBlockNR(), Seg: 3 + len(lqs)}
		st, err := NewSegmentsTape(statement, mShapes, mEv, m.LogInvRate, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AssertCarried(c); err != nil {
			t.Fatal(err)
		}
		rels, err := st.Tape.Relations(layout)
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, tb.ChainRelations(0, 0, (len(st.Steps)+TranscriptSteps-1)/TranscriptSteps, start)...)
		rels = append(rels, st.Words...)
		shapes := []flows.SegmentShape{tb.ScheduleShape(st.Steps), layout.F.Shape(st.Tape.Products()), layout.S.Shape(st.Tape.Squares())}
		for lv, lq := range lqs {
			shapes = append(shapes, in.Levels[lv].QB.NRShape(len(lq.Queries)))
		}
		return st, in, rels, append(shapes, in.Grind.GB.NRShape(len(lqs)))
	}
	ev := func(c *SegmentsCarried) (*flows.Evaluations, []flows.SegmentShape) {
		_, _, rels, shapes := build(c)
		return &flows.Evaluations{Relations: rels, Native: []flows.NativeCheck{{What: "the carried claims", Check: func() error {
			return CheckCarried(hints, c, mShapes, mEv, m.LogInvRate, statement)
		}}}}, shapes
	}
	st, in, rels, _ := build(&carried)
	tseg := tb.ScheduleSegment(TranscriptRuns(chain))
	words := map[int][]field.K{0: filledWords(t, tseg)}
	tval := func(seg, word int) field.E {
		w := words[seg]
		return field.E{C0: w[word], C1: w[word+1], C2: w[word+2]}
	}
	segs := []flows.Segment{tseg, {}, {}}
	for lv := range lqs {
		samples := make([]field.E, len(st.Levels[lv].Samples))
		for i, s := range st.Levels[lv].Samples {
			samples[i] = s.Eval(tval, nil)
		}
		qs := in.Levels[lv].QB.NRSegment(&lqs[lv], samples)
		words[3+lv] = filledWords(t, qs)
		segs = append(segs, qs)
	}
	gs := in.Grind.GB.NRSegment(grind)
	words[3+len(lqs)] = filledWords(t, gs)
	segs = append(segs, gs)
	ops, sq, _ := st.Tape.Operands(tval)
	segs[1], segs[2] = layout.F.Segment(ops), layout.S.Segment(sq)
	const label = "leanpipe-recursion-merged-child-test"
	began := time.Now()
	proof, err := flows.ProveSegments(label, nil, segs, &flows.Evaluations{Relations: rels}, 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a 2→1 merged child's verification: %d transcript blocks, %d products, %d squares, %d levels, %d carried claims: proved in %v, %d B",
		len(TranscriptRuns(chain)), len(ops), len(sq), len(lqs), len(carried.Values), time.Since(began), len(proof.MarshalWire()))
	ok, okShapes := ev(&carried)
	if _, err := flows.VerifySegments(proof, label, nil, okShapes, ok, 2); err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(c *SegmentsCarried){
		func(c *SegmentsCarried) { c.Values[0] = c.Values[0].Add(field.One) },
		func(c *SegmentsCarried) { c.Points[len(c.Points)-1][0] = c.Points[len(c.Points)-1][0].Add(field.One) },
	} {
		c := SegmentsCarried{Values: slices.Clone(carried.Values), Points: make([][]field.E, len(carried.Points))}
		for i := range c.Points {
			c.Points[i] = slices.Clone(carried.Points[i])
		}
		edit(&c)
		bad, badShapes := ev(&c)
		if _, err := flows.VerifySegments(proof, label, nil, badShapes, bad, 2); err == nil {
			t.Fatal("verified against carried claims other than the true ones")
		}
	}
}

func placesOf(t *testing.T, shapes []flows.SegmentShape, rate int, statement []byte) ([]open.Placement, int, int) {
	t.Helper()
	_, places, stackLog, _, err := flows.SegmentsLayout(shapes, rate, statement)
	if err != nil {
		t.Fatal(err)
	}
	return places, stackLog, rate
}

package recursion

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// tapeHolds evaluates every assertion of t on the values.
func tapeHolds(t *Tape, value func(seg, word int) field.E) error {
	_, _, products := t.Operands(value)
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
		in, _ := nativeTapeInputs(nil, nil, nil)
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
		_, value := nativeTapeInputs(stream, rev.Challenges, hints)
		if err := tapeHolds(ct.Tape, value); err != nil {
			t.Fatalf("rate %d: %v on the true values", rate, err)
		}
		frobs := ct.Tape.Squares()
		t.Logf("rate %d: %d products, %d squares, %d assertions, %d stream scalars, %d challenges", rate, ct.Tape.Products(), frobs, len(ct.Tape.Asserts), ct.Vars, ct.Challenges)
		for _, j := range []int{0, 2, 2 + 64, 2 + 64 + 5, ct.Vars - 1} {
			bad := append([]field.E(nil), stream...)
			bad[j] = bad[j].Add(field.One)
			_, value := nativeTapeInputs(bad, rev.Challenges, hints)
			if j >= 2 && tapeHolds(ct.Tape, value) == nil {
				t.Fatalf("rate %d: stream scalar %d changed: the tape holds", rate, j)
			}
		}
		for h := range hints {
			bad := append([]field.E(nil), hints...)
			bad[h] = bad[h].Add(field.One)
			_, value := nativeTapeInputs(stream, rev.Challenges, bad)
			if tapeHolds(ct.Tape, value) == nil {
				t.Fatalf("rate %d: hint %d changed: the tape holds", rate, h)
			}
		}
	}
}

// TestChildTapeProof proves a real child's whole arithmetic verification with nothing
// revealed: its stream, challenges and hints committed in three data segments (stand-ins
// for the transcript blocks and the deferred claims), the tape's products and squares in
// an arithmetic and a squaring segment, all tied by the tape's relations. The honest
// proof verifies; a changed round coefficient, with every product and square computed
// from it, is rejected (the lincheck's terminal assertion); products and squares of the
// true stream against a changed committed one are rejected (the operand relations).
func TestChildTapeProof(t *testing.T) {
	skipProofs(t, "proves a child's tape")
	p, v := childWithValues(t, 4, 2, 33)
	rev, stream, err := RevealChild(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	hints := []field.E{v.VA, v.VB, v.Key}
	for l := range rev.Enforced {
		hints = append(hints, rev.Enforced[l], rev.Induced[l])
	}
	data := NewSquareBlock(17)
	at := func(seg, i int) Lin {
		s, u := data.At(i)
		return (&Tape{}).Input(seg, data.SegmentWord(s, data.InWord(u)))
	}
	in := TapeInputs{
		Stream:    func(j, _ int) Lin { return at(0, j) },
		Challenge: func(i, _ int) Lin { return at(1, i) },
		Hint:      func(h int) Lin { return at(2, h) },
	}
	ct, err := NewChildTape(p.Statement, in)
	if err != nil {
		t.Fatal(err)
	}
	layout := TapeLayout{F: NewArithBlock(20), FSeg: 3, S: NewSquareBlock(20), SSeg: 4}
	rels, err := ct.Tape.Relations(layout)
	if err != nil {
		t.Fatal(err)
	}
	index := map[int]int{} // a data word → its value's index
	for i := range max(len(stream), len(rev.Challenges), len(hints)) {
		s, u := data.At(i)
		index[data.SegmentWord(s, data.InWord(u))] = i
	}
	const label = "leanpipe-recursion-child-tape-test"
	shapes := []flows.SegmentShape{data.Shape(len(stream)), data.Shape(len(rev.Challenges)), data.Shape(len(hints)),
		layout.F.Shape(ct.Tape.Products()), layout.S.Shape(ct.Tape.Squares())}
	ev := func() *flows.Evaluations { return &flows.Evaluations{Relations: rels} }
	prove := func(committed, computed []field.E) *transcript.Proof {
		t.Helper()
		value := func(seg, word int) field.E {
			return [][]field.E{computed, rev.Challenges, hints}[seg][index[word]]
		}
		ops, sq, _ := ct.Tape.Operands(value)
		segs := []flows.Segment{data.Segment(committed), data.Segment(rev.Challenges), data.Segment(hints),
			layout.F.Segment(ops), layout.S.Segment(sq)}
		start := time.Now()
		proof, err := flows.ProveSegments(label, nil, segs, ev(), 1, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d products, %d squares, %d relations: proved in %v", len(ops), len(sq), len(rels), time.Since(start))
		return proof
	}
	if _, err := flows.VerifySegments(prove(stream, stream), label, nil, shapes, ev(), 1); err != nil {
		t.Fatal(err)
	}
	bad := append([]field.E(nil), stream...)
	bad[2+64+3] = bad[2+64+3].Add(field.One)
	if _, err := flows.VerifySegments(prove(bad, bad), label, nil, shapes, ev(), 1); err == nil {
		t.Fatal("a changed round coefficient verified")
	}
	if _, err := flows.VerifySegments(prove(bad, stream), label, nil, shapes, ev(), 1); err == nil {
		t.Fatal("units of another stream than the committed one verified")
	}
}

// TestChildTapeSchedule: the tape's transcript schedule is the child's, step for step
// (tags, the scalars and challenges at their steps, the known data, and the observed
// values evaluated on the true inputs).
func TestChildTapeSchedule(t *testing.T) {
	p, v := childWithValues(t, 4, 2, 35)
	rev, stream, err := RevealChild(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	chain, _, err := ChildTrace(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := nativeTapeInputs(nil, nil, nil)
	ct, err := NewChildTape(p.Statement, in)
	if err != nil {
		t.Fatal(err)
	}
	hints := []field.E{v.VA, v.VB, v.Key}
	for l := range rev.Enforced {
		hints = append(hints, rev.Enforced[l], rev.Induced[l])
	}
	_, value := nativeTapeInputs(stream, rev.Challenges, hints)
	_, _, units := ct.Tape.Operands(value)
	if len(ct.Steps) != len(chain) {
		t.Fatalf("%d steps replayed, the child has %d", len(ct.Steps), len(chain))
	}
	words := func(x field.E) [3]uint64 { return [3]uint64{uint64(x.C0), uint64(x.C1), uint64(x.C2)} }
	for i, s := range ct.Steps {
		blk := chain[i].Block
		var want [3]uint64
		switch {
		case s.Kind == StepScalar:
			want = words(stream[s.Var])
		case s.Kind == StepSqueeze:
			if got := [3]uint64(chain[i].Out[:3]); got != words(rev.Challenges[s.Challenge]) {
				t.Fatalf("step %d squeezes challenge %d, the child's output differs", i, s.Challenge)
			}
			want = [3]uint64{}
		case s.Observed != nil:
			want = words(s.Observed.Eval(value, units))
		default:
			want = s.Data
		}
		if s.Tag != blk[3] || [3]uint64(blk[:3]) != want {
			t.Fatalf("step %d (kind %d): tag %d data %x, the child's tag %d data %x", i, s.Kind, s.Tag, want, blk[3], blk[:3])
		}
	}
}

// filledWords returns a segment's packed witness (filledSegment, failing the test on
// an error).
func filledWords(t *testing.T, seg flows.Segment) []field.K {
	t.Helper()
	f, err := filledSegment(seg, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	return f.W
}

// TestChildTapeTranscriptProof proves a real child's transcript and arithmetic
// verification with nothing revealed: its on-chain steps in transcript blocks pinned
// to the schedule only (tags, squeeze flags), chained from the label's chaining
// value by relations, its stream and challenges read from the blocks' words, the
// public steps' data asserted, the hints in a data segment, the tape's units in an
// arithmetic and a squaring segment. The honest proof verifies; a chain started from
// another label is rejected; a transcript with one absorbed scalar changed (and the
// chain, the challenges and every unit recomputed from it) is rejected.
func TestChildTapeTranscriptProof(t *testing.T) {
	skipProofs(t, "proves a child's transcript and tape")
	p, v := childWithValues(t, 4, 2, 37)
	rev, _, err := RevealChild(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	chain, _, err := ChildTrace(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	hints := []field.E{v.VA, v.VB, v.Key}
	for l := range rev.Enforced {
		hints = append(hints, rev.Enforced[l], rev.Induced[l])
	}
	tb := NewTranscriptBlock()
	data := NewSquareBlock(15)
	hintAt := func(h int) Lin { s, u := data.At(h); return (&Tape{}).Input(1, data.SegmentWord(s, data.InWord(u))) }
	ct, err := NewChildTape(p.Statement, TranscriptInputs(tb, 0, 0, hintAt))
	if err != nil {
		t.Fatal(err)
	}
	layout := TapeLayout{F: NewArithBlock(20), FSeg: 2, S: NewSquareBlock(20), SSeg: 3}
	rels, err := ct.Tape.Relations(layout)
	if err != nil {
		t.Fatal(err)
	}
	runs := TranscriptRuns(chain)
	start := [4]uint64(transcript.NewVerifier(nil, []byte(aggregate.FlowLabel), nil).State())
	const label = "leanpipe-recursion-child-transcript-test"
	shapes := []flows.SegmentShape{tb.ScheduleShape(ct.Steps), data.Shape(len(hints)),
		layout.F.Shape(ct.Tape.Products()), layout.S.Shape(ct.Tape.Squares())}
	ev := func(start [4]uint64) *flows.Evaluations {
		return &flows.Evaluations{Relations: append(slices.Clip(rels), tb.ChainRelations(0, 0, len(runs), start)...)}
	}
	prove := func(runs []TranscriptRun) *transcript.Proof {
		t.Helper()
		tseg, hseg := tb.ScheduleSegment(runs), data.Segment(hints)
		tw, hw := filledWords(t, tseg), filledWords(t, hseg)
		value := func(seg, word int) field.E {
			w := [][]field.K{tw, hw}[seg]
			return field.E{C0: w[word], C1: w[word+1], C2: w[word+2]}
		}
		ops, sq, _ := ct.Tape.Operands(value)
		segs := []flows.Segment{tseg, hseg, layout.F.Segment(ops), layout.S.Segment(sq)}
		start := time.Now()
		proof, err := flows.ProveSegments(label, nil, segs, ev([4]uint64(chain[0].In)), 1, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d transcript blocks, %d products, %d squares: proved in %v", len(runs), len(ops), len(sq), time.Since(start))
		return proof
	}
	honest := prove(runs)
	if _, err := flows.VerifySegments(honest, label, nil, shapes, ev(start), 1); err != nil {
		t.Fatal(err)
	}
	other := [4]uint64(transcript.NewVerifier(nil, []byte("another-flow"), nil).State())
	if _, err := flows.VerifySegments(honest, label, nil, shapes, ev(other), 1); err == nil {
		t.Fatal("verified against another label's chaining value")
	}
	// One absorbed scalar changed (a zerocheck round coefficient), the chain recomputed.
	bad := slices.Clone(chain)
	for i, s := range ct.Steps {
		if s.Kind == StepScalar && s.Var == 2+64+3 {
			bad[i].Block[0] ^= 1
			break
		}
	}
	for i := range bad {
		if i > 0 {
			bad[i].In = bad[i-1].Out
		}
		bad[i].Out = transcript.Compress(bad[i].In, bad[i].Block)
	}
	if _, err := flows.VerifySegments(prove(TranscriptRuns(bad)), label, nil, shapes, ev(start), 1); err == nil {
		t.Fatal("a transcript with a changed scalar verified")
	}
}

// TestChildTapeQueriesProof proves a real leaf child's whole verification with
// nothing revealed but its deferred claims (their points and values, checked natively
// by the verifier): its transcript blocks, its tape's products and squares, its
// grinding checks, and its WHIR queries in no-reveal query blocks (one segment per
// level),
// whose sums are the tape's enforced sums and induced weights and whose samples, eq
// tables, points and roots are tied to the transcript and the tape. The honest proof
// verifies; a query whose path was changed (it no longer climbs to the level's root,
// its terms unchanged) is rejected, and accepted by a verifier that drops the root
// relations; a query given another eq table is rejected; so is the proof against
// revealed claims other than the child's (a point coordinate, a slice value, the
// matrix value, the key term).
func TestChildTapeQueriesProof(t *testing.T) {
	skipProofs(t, "proves a child's transcript, tape and queries")
	childTapeQueries(t, 4, true)
}

// TestChildTapeCost proves the no-reveal verification of one rate-2 child of
// LEANPIPE_TAPE_SIGS signers (a cost measurement, no forgeries), logging its sizes and
// proving time at 1 and 2 workers.
func TestChildTapeCost(t *testing.T) {
	spec := os.Getenv("LEANPIPE_TAPE_SIGS")
	if spec == "" {
		t.Skip("set LEANPIPE_TAPE_SIGS=N")
	}
	n, err := strconv.Atoi(spec)
	if err != nil || n < 1 {
		t.Fatalf("LEANPIPE_TAPE_SIGS=%q: a positive count", spec)
	}
	childTapeQueries(t, n, false)
}

func childTapeQueries(t *testing.T, n int, forgeries bool) {
	p, v := childWithValues(t, n, 2, 41)
	chain, grind, err := ChildTrace(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	lqs, err := ChildQueries(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	rev, stream, err := RevealChild(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	// What the parent reveals: the deferred claims' points and values.
	hints := []field.E{v.VA, v.VB, v.Key}
	for l := range rev.Enforced {
		hints = append(hints, rev.Enforced[l], rev.Induced[l])
	}
	harness, _ := nativeTapeInputs(nil, nil, nil)
	ch, err := NewChildTape(p.Statement, harness)
	if err != nil {
		t.Fatal(err)
	}
	_, value := nativeTapeInputs(stream, rev.Challenges, hints)
	revealed := ch.Deferred(value, hints)

	tb := NewTranscriptBlock()
	layout := TapeLayout{F: NewArithBlock(20), FSeg: 1, S: NewSquareBlock(20), SSeg: 2}
	const first = 3 // the query segments' first index
	build := func(d *DeferredReveal) (*ChildTape, TapeInputs, []flows.Relation) {
		t.Helper()
		in := TranscriptInputs(tb, 0, 0, RevealedHints(d))
		for l, lq := range lqs {
			in.Levels = append(in.Levels, TapeQueryLevel{QB: NewQueryBlockNR(l == 0, len(lq.Queries[0].Path), len(lq.Point)), Seg: first + l})
		}
		in.Grind = &TapeGrind{GB: NewGrindBlockNR(), Seg: first + len(lqs)}
		ct, err := NewChildTape(p.Statement, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := ct.AssertDeferred(d); err != nil {
			t.Fatal(err)
		}
		rels, err := ct.Tape.Relations(layout)
		if err != nil {
			t.Fatal(err)
		}
		return ct, in, rels
	}
	ct, in, _ := build(&revealed)
	runs := TranscriptRuns(chain)
	start := [4]uint64(transcript.NewVerifier(nil, []byte(aggregate.FlowLabel), nil).State())
	const label = "leanpipe-recursion-child-queries-test"
	shapes := []flows.SegmentShape{tb.ScheduleShape(ct.Steps), layout.F.Shape(ct.Tape.Products()), layout.S.Shape(ct.Tape.Squares())}
	for l, lq := range lqs {
		shapes = append(shapes, in.Levels[l].QB.NRShape(len(lq.Queries)))
	}
	shapes = append(shapes, in.Grind.GB.NRShape(len(grind)/2))
	// ev is a verifier's (or the prover's) evaluations for revealed claims d: the
	// tape's relations, the chain, the word relations (unless dropped) and the native
	// checks of d's claims.
	ev := func(d *DeferredReveal, words bool) *flows.Evaluations {
		ct, _, rels := build(d)
		r := append(slices.Clip(rels), tb.ChainRelations(0, 0, len(runs), start)...)
		if words {
			r = append(r, ct.Words...)
		}
		mc, kc := d.Claims()
		return &flows.Evaluations{Relations: r, Native: []flows.NativeCheck{
			{What: "the matrix claim", Check: func() error { return CheckMatrixClaim(aggregate.VerifierMatrices(), mc) }},
			{What: "the key claim", Check: func() error { return CheckKeyClaim(p.Statement, kc) }},
		}}
	}
	workers := par.New(nil, 2)
	prove := func(edit func(lqs []LevelQueries), withWords bool, grind []transcript.Step) *transcript.Proof {
		t.Helper()
		lqs := slices.Clone(lqs)
		for l := range lqs {
			lqs[l].Queries = slices.Clone(lqs[l].Queries)
		}
		edit(lqs)
		tseg := tb.ScheduleSegment(runs)
		words := [][]field.K{filledWords(t, tseg), nil, nil}
		tval := func(seg, word int) field.E {
			w := words[seg]
			return field.E{C0: w[word], C1: w[word+1], C2: w[word+2]}
		}
		segs := []flows.Segment{tseg, {}, {}}
		for l := range lqs {
			samples := make([]field.E, len(ct.Levels[l].Samples))
			for i, s := range ct.Levels[l].Samples {
				samples[i] = s.Eval(tval, nil)
			}
			qs := in.Levels[l].QB.NRSegment(&lqs[l], samples)
			segs = append(segs, qs)
			words = append(words, filledWords(t, qs))
		}
		gs := in.Grind.GB.NRSegment(grind)
		segs = append(segs, gs)
		words = append(words, filledWords(t, gs))
		ops, sq, _ := ct.Tape.Operands(tval)
		segs[1], segs[2] = layout.F.Segment(ops), layout.S.Segment(sq)
		start := time.Now()
		proof, err := flows.ProveSegments(label, nil, segs, ev(&revealed, withWords), 1, workers)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d transcript blocks, %d products, %d squares, %d query levels, %d workers: proved in %v", len(runs), len(ops), len(sq), len(lqs), workers.N(), time.Since(start))
		return proof
	}
	honest := prove(func([]LevelQueries) {}, true, grind)
	began := time.Now()
	if _, err := flows.VerifySegments(honest, label, nil, shapes, ev(&revealed, true), 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d signers: verified in %v; %d relations, %d segments, proof %d B", n, time.Since(began), len(ev(&revealed, true).Relations), len(shapes), len(honest.MarshalWire()))
	if !forgeries {
		workers = par.Serial()
		prove(func([]LevelQueries) {}, true, grind)
		return
	}
	// Revealed claims other than the child's: a point coordinate (the tape's
	// assertion), a value (the lincheck's terminal assertion and the native check).
	for _, edit := range []func(d *DeferredReveal){
		func(d *DeferredReveal) { d.ChiIn = slices.Clone(d.ChiIn); d.ChiIn[2] = d.ChiIn[2].Add(field.One) },
		func(d *DeferredReveal) { d.S = slices.Clone(d.S); d.S[9] = d.S[9].Add(field.One) },
		func(d *DeferredReveal) { d.VA = d.VA.Add(field.One) },
		func(d *DeferredReveal) { d.Key = d.Key.Add(field.One) },
	} {
		d := revealed
		edit(&d)
		if _, err := flows.VerifySegments(honest, label, nil, shapes, ev(&d, true), 1); err == nil {
			t.Fatal("verified against other revealed claims")
		}
	}
	changePath := func(lqs []LevelQueries) {
		q := &lqs[1].Queries[3]
		q.Path = slices.Clone(q.Path)
		q.Path[2][0] ^= 1
	}
	if _, err := flows.VerifySegments(prove(changePath, true, grind), label, nil, shapes, ev(&revealed, true), 1); err == nil {
		t.Fatal("a query with a changed path verified")
	}
	if _, err := flows.VerifySegments(prove(changePath, false, grind), label, nil, shapes, ev(&revealed, false), 1); err != nil {
		t.Fatalf("without the root relations a changed path should verify: %v", err)
	}
	badEq := prove(func(lqs []LevelQueries) {
		q := &lqs[0].Queries[5]
		q.Eq = slices.Clone(q.Eq)
		q.Eq[7] = q.Eq[7].Add(field.One)
	}, true, grind)
	if _, err := flows.VerifySegments(badEq, label, nil, shapes, ev(&revealed, true), 1); err == nil {
		t.Fatal("a query with another eq table verified")
	}
	// A grinding check from another chaining value (its nonce's proof of work then
	// fails, and its chaining value is not the transcript's).
	other := slices.Clone(grind)
	other[2].In[0] ^= 1
	if _, err := flows.VerifySegments(prove(func([]LevelQueries) {}, true, other), label, nil, shapes, ev(&revealed, true), 1); err == nil {
		t.Fatal("a grinding check from another chaining value verified")
	}
}

// BenchmarkChildTape times what a verifier of a no-reveal merge does per leaf child
// before replaying the proof: record the child's tape and turn it into relations.
func BenchmarkChildTape(b *testing.B) {
	p := proveChild(b, 4, 2, 43)
	tb := NewTranscriptBlock()
	layout := TapeLayout{F: NewArithBlock(20), S: NewSquareBlock(20), FSeg: 1, SSeg: 2}
	hint := func(h int) Lin { return ConstLin(field.E{C0: field.K(h + 1)}) }
	b.ResetTimer()
	for b.Loop() {
		ct, err := NewChildTape(p.Statement, TranscriptInputs(tb, 0, 0, hint))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ct.Tape.Relations(layout); err != nil {
			b.Fatal(err)
		}
	}
}

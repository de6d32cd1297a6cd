package recursion

import (
	"fmt"
	"slices"
	"sync"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// A merged child of a no-reveal merge (docs/recursion.md §6.7, depth 2): its whole
// verification replayed on the parent's tape, with its statement's carried values
// (its own children's deferred claims) committed data of the parent's transcript
// blocks rather than known bytes, and its batch of those claims replayed too, reading
// the same committed values. What the parent cannot evaluate at the child's committed
// points it carries (MergedChildNR) and its verifier checks natively: each segment's
// matrices and public table, each linear batch's weight, the constant part of the
// relations' target, and the child's batched claims on the xmss-aggregate circuit and
// its key table, which join the parent's own batch.

// MergedChildNR is what a no-reveal merge carries of a merged child: the child's
// shape (its leaves' sizes and rates) and, at points the child's verification
// commits, the values the parent cannot compute on its tape.
type MergedChildNR struct {
	// Children are the merged child's own children (leaves), in order.
	Children []ChildInfo
	// Carried are the child's segments tape's hints: values and points.
	Carried SegmentsCarried
	// RRow, RCol, VA, VB are the child's batched matrix claim on the xmss-aggregate
	// circuit (EqWeight of each point).
	RRow, RCol []field.E
	VA, VB     field.E
	// KeyPoint and KeyValue are the child's batched key claim: its key table (its keys,
	// the parent's from its offset) at KeyPoint.
	KeyPoint []field.E
	KeyValue field.E
}

// lists are the carried values in the order the parent's layout asserts them: each
// hint's point, the hints' values, then the batch's row and column points, its two
// values, the key point and value.
func (mc *MergedChildNR) lists() [][]field.E {
	out := append([][]field.E(nil), mc.Carried.Points...)
	return append(out, mc.Carried.Values, mc.RRow, mc.RCol, []field.E{mc.VA, mc.VB}, mc.KeyPoint, []field.E{mc.KeyValue})
}

// nrSub is a merged child as a no-reveal merge lays it out: the child proof (its
// carried values blank on the verifier's side, true on the prover's), its segments'
// shapes, relations and absorbed string, and its dry replay's schedules.
type nrSub struct {
	m         *MergedNR
	carried   *MergedChildNR
	lm        *nrLayout
	shapes    []flows.SegmentShape
	ev        *flows.Evaluations
	statement []byte // the child's statement bytes
	start     []byte // its absorbed string: layout and statement
	atoms     int    // its carried values: committed steps at the end of start
	cfg       *open.Config
	// main and batch are the schedules of the child's segments transcript and of its
	// batch transcript; hints are its tape's carried hints (the WHIR levels' sums are
	// proved by the query blocks).
	main, batch []TapeStep
	hints       []SegmentHint
	kt          KeyTable
}

// newNRSub lays out merged child m (carried: what the parent carries of it, nil on a
// dry run).
func newNRSub(m *MergedNR, carried *MergedChildNR) (*nrSub, error) {
	for _, s := range m.Subs {
		if s != nil {
			return nil, fmt.Errorf("%w: a merged child with merged children of its own (depth 3 is not built)", ErrMerged)
		}
	}
	if len(m.Children) < 2 || len(m.Children) > MaxChildren || len(m.Deferred) != len(m.Children) {
		return nil, fmt.Errorf("%w: a merged child of %d children and %d deferred claim sets", ErrMerged, len(m.Children), len(m.Deferred))
	}
	sts := make([]flows.Statement, len(m.Children))
	for i := range sts {
		var err error
		if sts[i], err = m.childStatement(i); err != nil {
			return nil, err
		}
	}
	lm, err := buildNR(sts, m.Deferred)
	if err != nil {
		return nil, err
	}
	s := &nrSub{m: m, carried: carried, lm: lm, shapes: lm.shapes(), ev: &flows.Evaluations{Relations: lm.rels}, statement: m.statementBytes()}
	_, places, stackLog, start, err := flows.SegmentsLayout(s.shapes, m.LogInvRate, s.statement)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	s.start = start
	for _, d := range m.Deferred {
		s.atoms += d.carriedCount()
	}
	if s.kt, err = m.keyTable(); err != nil {
		return nil, err
	}
	// The schedules, hints and WHIR configuration depend on the child's shape only
	// (its children's sizes and rates, its rate): a dry replay per shape fixes them.
	key := subKey(ChildInfo{N: len(m.Keys), LogInvRate: m.LogInvRate}, m.Children)
	if v, ok := subShapes.Load(key); ok {
		d := v.(*nrSub)
		s.main, s.batch, s.hints, s.cfg = d.main, d.batch, d.hints, d.cfg
		return s, nil
	}
	sh, err := flows.CommittedShape(places, stackLog, m.LogInvRate)
	if err != nil {
		return nil, err
	}
	if s.cfg, err = open.DeriveConfig(sh.StackLog, sh.LogInvRate); err != nil {
		return nil, err
	}
	harness, _ := nativeTapeInputs(nil, nil, nil)
	st, sb, _, err := s.replay(harness, TapeInputs{})
	if err != nil {
		return nil, err
	}
	s.main, s.batch = scheduleOf(st.Steps), scheduleOf(sb.steps)
	for _, h := range st.Hints {
		if h.Kind == HintLevelEnforced || h.Kind == HintLevelInduced {
			break
		}
		s.hints = append(s.hints, h)
	}
	subShapes.Store(key, &nrSub{main: s.main, batch: s.batch, hints: s.hints, cfg: s.cfg})
	return s, nil
}

// subShapes caches a merged child's schedules, hints and WHIR configuration by its
// shape (subKey).
var subShapes sync.Map

func subKey(c ChildInfo, children []ChildInfo) string { return fmt.Sprint(c, children) }

// subConfig is the WHIR configuration of a merged child of this size and rate whose
// children are these.
func subConfig(c ChildInfo, children []ChildInfo) (*open.Config, error) {
	if v, ok := subShapes.Load(subKey(c, children)); ok {
		return v.(*nrSub).cfg, nil
	}
	// The shape does not depend on the keys: lay out a child of placeholder keys.
	m, err := blankMerged(xmss.Message{}, 0, make([]xmss.PublicKey, c.N), c.LogInvRate, children)
	if err != nil {
		return nil, err
	}
	s, err := newNRSub(m, nil)
	if err != nil {
		return nil, err
	}
	return s.cfg, nil
}

// blankMerged is a merged child as its parent's verifier sees it: message, epoch, keys,
// rate and its children's sizes and rates, its carried values zero (the parent reads
// them as committed data).
func blankMerged(msg xmss.Message, epoch uint32, keys []xmss.PublicKey, logInvRate int, children []ChildInfo) (*MergedNR, error) {
	if len(children) < 2 || len(children) > MaxChildren {
		return nil, fmt.Errorf("%w: a merged child of %d children", ErrMerged, len(children))
	}
	m := &MergedNR{Message: msg, Epoch: epoch, Keys: keys, Children: children, LogInvRate: logInvRate}
	total := 0
	for i, c := range children {
		total += c.N
		if total > len(keys) {
			break
		}
		st, err := m.childStatement(i)
		if err != nil {
			return nil, err
		}
		d, err := deferredShape(st)
		if err != nil {
			return nil, fmt.Errorf("%w: a merged child's child %d: %w", ErrMerged, i, err)
		}
		m.Deferred = append(m.Deferred, d)
	}
	if total != len(keys) {
		return nil, fmt.Errorf("%w: a merged child's children hold %d keys, the child %d", ErrMerged, total, len(keys))
	}
	return m, nil
}

// deferredShapes caches a leaf's deferred claims' shape (zero values) by size and rate.
var deferredShapes sync.Map // [2]int → DeferredReveal

// deferredShape is a leaf's deferred claims with every value zero: their lengths.
func deferredShape(st flows.Statement) (DeferredReveal, error) {
	key := [2]int{st.N, st.LogInvRate}
	if v, ok := deferredShapes.Load(key); ok {
		return v.(DeferredReveal), nil
	}
	harness, _ := nativeTapeInputs(nil, nil, nil)
	ct, err := NewChildTape(st, harness)
	if err != nil {
		return DeferredReveal{}, err
	}
	d := DeferredReveal{ChiIn: make([]field.E, len(ct.ChiIn)), S: make([]field.E, len(ct.S)), ChiInPrime: make([]field.E, len(ct.ChiInPrime)),
		Tau: make([]field.E, len(ct.Tau)), ChiOut: make([]field.E, len(ct.ChiOut))}
	deferredShapes.Store(key, d)
	return d, nil
}

func scheduleOf(steps []TapeStep) []TapeStep {
	out := make([]TapeStep, len(steps))
	for i, s := range steps {
		out[i] = TapeStep{Kind: s.Kind, Tag: s.Tag}
	}
	return out
}

// nrBatchOut is a merged child's batch replayed: its batched matrix claim's points and
// values and its key claim's point and value.
type nrBatchOut struct {
	rRow, rCol, keyPt []Lin
	va, vb, keyV      Lin
}

// replay records the child's segments verification on in's tape (with the child's
// carried values committed atoms) and its batch on bIn's transcript, on the same tape
// (bIn.Stream unset: the batch reads through in), returning both and the batch's
// results.
func (s *nrSub) replay(in, bIn TapeInputs) (*SegmentsTape, *tapeTr, nrBatchOut, error) {
	in.CommittedTail, in.CarriedRels = s.atoms, s.lm.carriedRels
	st, err := NewSegmentsTape(s.statement, s.shapes, s.ev, s.m.LogInvRate, in)
	if err != nil {
		return nil, nil, nrBatchOut{}, err
	}
	if bIn.Stream == nil {
		bIn = in
	}
	bIn.Tape = st.Tape
	sb := &tapeTr{t: st.Tape, in: bIn}
	sb.observeBytesTail(s.start, st.Atoms)
	return st, sb, s.batchOn(st.Tape, sb, st.Atoms), nil
}

// batchOn replays the child's MergeBatchLabelNR transcript after its absorbed string:
// its children's matrix and key claims, read from the atoms in the statement's order
// (per child: z, chi_in, s, chi_in′, τ, chi_out, VA, VB, key).
func (s *nrSub) batchOn(t *Tape, sb *tapeTr, atoms []Lin) nrBatchOut {
	var tmats []TapeMatrixClaim
	var tkeys []TapeTableClaim
	next := func(n int) []Lin { out := atoms[:n]; atoms = atoms[n:]; return out }
	off := 0
	for i, d := range s.m.Deferred {
		z := next(1)[0]
		chiIn, sl, chiInPrime, tau, chiOut := next(len(d.ChiIn)), next(len(d.S)), next(len(d.ChiInPrime)), next(len(d.Tau)), next(len(d.ChiOut))
		v := next(3)
		tmats = append(tmats, TapeMatrixClaim{RowLow: t.Lagrange(1<<lincheck.KSkip, z), RowHigh: chiIn, ColLow: sl, ColHigh: chiInPrime, VA: v[0], VB: v[1]})
		tkeys = append(tkeys, TapeTableClaim{Tau: tau, Chi: chiOut, Offset: off, N: s.m.Children[i].N, Value: v[2]})
		off += s.m.Children[i].N
	}
	var o nrBatchOut
	o.rRow, o.rCol, o.va, o.vb = tapeBatchMatrix(t, sb, aggregate.LogSize, tmats)
	o.keyPt, o.keyV = tapeBatchKeys(t, sb, s.kt.T.W.Log, s.kt.SlotBits, tkeys)
	return o
}

// addSub lays merged child c out on the parent's tape: its segments verification on
// the transcript blocks from run runOffset, its batch on the runs after, its carried
// values asserted (from index base of the parent's carried list). It returns the
// runs used.
func (l *nrLayout) addSub(c int, s *nrSub, runOffset, base int, hint func(h int) Lin) (int, error) {
	mainRuns, batchRuns := runsOf(s.main), runsOf(s.batch)
	in := TranscriptInputs(l.tb, 0, runOffset, hint)
	in.Tape, in.Levels = l.tape, l.queries[c]
	in.Grind = &TapeGrind{GB: l.gb, Seg: 4 + len(l.groups), SlotOffset: l.grinds}
	st, sb, out, err := s.replay(in, TranscriptInputs(l.tb, 0, runOffset+mainRuns, nil))
	if err != nil {
		return 0, fmt.Errorf("%w: child %d: %w", ErrMerged, c, err)
	}
	if len(st.Steps) != len(s.main) || len(sb.steps) != len(s.batch) {
		return 0, fmt.Errorf("%w: child %d's replay has %d and %d steps, its schedule %d and %d", ErrMerged, c, len(st.Steps), len(sb.steps), len(s.main), len(s.batch))
	}
	if len(st.Hints) != len(s.hints) {
		return 0, fmt.Errorf("%w: child %d: %d hints, %d carried", ErrMerged, c, len(st.Hints), len(s.hints))
	}
	mc := s.carried
	if len(mc.Carried.Points) != len(s.hints) || len(mc.Carried.Values) != len(s.hints) {
		return 0, fmt.Errorf("%w: child %d: %d carried points and %d values for %d hints", ErrMerged, c, len(mc.Carried.Points), len(mc.Carried.Values), len(s.hints))
	}
	k := base
	assert := func(what string, xs []Lin, vs []field.E) error {
		if len(xs) != len(vs) {
			return fmt.Errorf("%w: child %d: %d carried values of %s for %d", ErrMerged, c, len(vs), what, len(xs))
		}
		for i := range xs {
			l.assertCarried(what, xs[i], vs[i], k)
			k++
		}
		return nil
	}
	for h := range s.hints {
		if err := assert("a carried point", st.HintPoint(h), mc.Carried.Points[h]); err != nil {
			return 0, err
		}
	}
	hs := make([]Lin, len(s.hints))
	for h := range hs {
		hs[h] = hint(h)
	}
	for _, p := range []struct {
		what string
		xs   []Lin
		vs   []field.E
	}{
		{"a carried hint", hs, mc.Carried.Values},
		{"the batch's row point", out.rRow, mc.RRow}, {"the batch's column point", out.rCol, mc.RCol},
		{"the batch's values", []Lin{out.va, out.vb}, []field.E{mc.VA, mc.VB}},
		{"the key batch's point", out.keyPt, mc.KeyPoint}, {"the key batch's value", []Lin{out.keyV}, []field.E{mc.KeyValue}},
	} {
		if err := assert(p.what, p.xs, p.vs); err != nil {
			return 0, err
		}
	}
	l.tapes = append(l.tapes, st.ChildTape)
	l.grinds += len(st.Levels)
	mergeStart := [4]uint64(transcript.NewVerifier(nil, []byte(MergeLabelNR), nil).State())
	batchStart := [4]uint64(transcript.NewVerifier(nil, []byte(MergeBatchLabelNR), nil).State())
	l.rels = append(l.rels, l.tb.ChainRelations(0, runOffset, mainRuns, mergeStart)...)
	l.rels = append(l.rels, l.tb.ChainRelations(0, runOffset+mainRuns, batchRuns, batchStart)...)
	l.rels = append(l.rels, st.Words...)
	return mainRuns + batchRuns, nil
}

// assertCarried asserts x equal to carried value v, index k of the parent's carried
// list (so that the relation it becomes is known to take a carried value).
func (l *nrLayout) assertCarried(what string, x Lin, v field.E, k int) {
	for len(l.carriedAt) < len(l.tape.Asserts) {
		l.carriedAt = append(l.carriedAt, -1)
	}
	l.tape.Equal(what, x, ConstLin(v))
	l.carriedAt = append(l.carriedAt, k)
}

// check evaluates what the parent carries of the child natively: the segments' hints
// (with the relations' target's constant part: the blank child's relations carry zeros
// where the true ones carry its statement's values).
func (s *nrSub) check() error {
	return CheckCarried(s.hints, &s.carried.Carried, s.shapes, s.ev, s.m.LogInvRate, s.statement)
}

// extractSub verifies merged child mm natively and reads what its parent proves and
// carries of it: its segments transcript's and batch transcript's runs (one chain
// each), its grinding steps and WHIR queries, and its layout with the carried values
// (MergedChildNR) filled from a replay on the true values.
func extractSub(mm *MergedNR) (*childExtract, []TranscriptRun, *nrSub, error) {
	if err := mm.Verify(); err != nil {
		return nil, nil, nil, err
	}
	blank, err := blankMerged(mm.Message, mm.Epoch, mm.Keys, mm.LogInvRate, mm.Children)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := newNRSub(blank, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	// The true proof's relations (its carried values as the values) and absorbed string.
	sts := make([]flows.Statement, len(mm.Children))
	for i := range sts {
		if sts[i], err = mm.childStatement(i); err != nil {
			return nil, nil, nil, err
		}
	}
	lt, err := buildNR(sts, mm.Deferred)
	if err != nil {
		return nil, nil, nil, err
	}
	ev, statement := &flows.Evaluations{Relations: lt.rels}, mm.statementBytes()
	_, _, _, start, err := flows.SegmentsLayout(s.shapes, mm.LogInvRate, statement)
	if err != nil {
		return nil, nil, nil, err
	}
	x := &childExtract{}
	if _, err := flows.VerifySegmentsTraced(mm.Proof, MergeLabelNR, statement, s.shapes, ev, mm.LogInvRate, func(st transcript.Step) {
		if st.OnChain {
			x.chain = append(x.chain, st)
		} else {
			x.grind = append(x.grind, st)
		}
	}); err != nil {
		return nil, nil, nil, err
	}
	raw, err := flows.VerifySegments(mm.Proof, MergeLabelNR, statement, s.shapes, ev, mm.LogInvRate)
	if err != nil {
		return nil, nil, nil, err
	}
	var batch []transcript.Step
	if _, _, _, _, err := mm.verifyBatchTraced(start, func(st transcript.Step) {
		if st.OnChain {
			batch = append(batch, st)
		}
	}); err != nil {
		return nil, nil, nil, err
	}
	if len(x.chain) != len(s.main) || len(batch) != len(s.batch) {
		return nil, nil, nil, fmt.Errorf("%w: the merged child's transcripts have %d and %d steps, its schedules %d and %d", ErrMergeInput, len(x.chain), len(batch), len(s.main), len(s.batch))
	}

	// A replay on the true values: the main transcript's data and outputs on
	// segments 0 and 1 by step, the batch's on 3 and 4, the hints (unused by the
	// points) on 2.
	tp := &Tape{}
	in := TapeInputs{Tape: tp,
		Stream:    func(_, step int) Lin { return tp.Input(0, 3*step) },
		Challenge: func(_, step int) Lin { return tp.Input(1, 3*step) },
		Hint:      func(int) Lin { return tp.Input(2, 0) },
	}
	bIn := TapeInputs{Stream: func(_, step int) Lin { return tp.Input(3, 3*step) }, Challenge: func(_, step int) Lin { return tp.Input(4, 3*step) }}
	e := func(w [4]uint64) field.E { return field.E{C0: field.K(w[0]), C1: field.K(w[1]), C2: field.K(w[2])} }
	value := func(seg, word int) field.E {
		switch seg {
		case 0:
			return e(x.chain[word/3].Block)
		case 1:
			return e(x.chain[word/3].Out)
		case 3:
			return e(batch[word/3].Block)
		case 4:
			return e(batch[word/3].Out)
		}
		return field.E{}
	}
	st, _, out, err := s.replay(in, bIn)
	if err != nil {
		return nil, nil, nil, err
	}
	_, _, units := tp.Operands(value)
	evs := func(ls []Lin) []field.E {
		o := make([]field.E, len(ls))
		for i, l := range ls {
			o[i] = l.Eval(value, units)
		}
		return o
	}
	_, places, _, _, err := flows.SegmentsLayout(s.shapes, mm.LogInvRate, s.statement)
	if err != nil {
		return nil, nil, nil, err
	}
	mc := &MergedChildNR{Children: mm.Children, RRow: evs(out.rRow), RCol: evs(out.rCol), KeyPoint: evs(out.keyPt)}
	mc.VA, mc.VB, mc.KeyValue = out.va.Eval(value, units), out.vb.Eval(value, units), out.keyV.Eval(value, units)
	for h, hk := range s.hints {
		pt := evs(st.HintPoint(h))
		v, err := carriedValue(hk, pt, s.shapes, s.ev, places)
		if err != nil {
			return nil, nil, nil, err
		}
		mc.Carried.Points = append(mc.Carried.Points, pt)
		mc.Carried.Values = append(mc.Carried.Values, v)
	}
	s.carried = mc

	// The WHIR levels' queries, from the replay's samples and the proof's openings.
	openings := raw.Openings
	for lv, tl := range st.Levels {
		samples := evs(tl.Samples)
		ml := s.cfg.MessageLog(lv)
		idx := transcript.QueriesFrom(1<<(ml+s.cfg.LogInvRates[lv]), s.cfg.Queries[lv], func() field.E { v := samples[0]; samples = samples[1:]; return v })
		eq := make([]field.E, 1<<len(tl.Folds))
		field.EqTable(eq, evs(tl.Folds))
		if lv == 0 {
			slices.Reverse(eq)
		}
		point := evs(tl.Point)
		lq := LevelQueries{MessageLog: ml, Point: point}
		for _, q := range idx {
			if len(openings) == 0 {
				return nil, nil, nil, fmt.Errorf("%w: the merged child's proof has too few openings", ErrMergeInput)
			}
			o := openings[0]
			openings = openings[1:]
			lq.Queries = append(lq.Queries, QueryInput{Index: q, Row: o.Leaf, Path: o.Path, Eq: eq, Weight: field.One, Point: point})
		}
		x.levels = append(x.levels, lq)
	}
	return x, append(TranscriptRuns(x.chain), TranscriptRuns(batch)...), s, nil
}

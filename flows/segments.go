package flows

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/ntt"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Segmented proofs: several Flock batches of different block circuits in one proof
// (docs/recursion.md §4.2). Each segment is an ordinary Flock batch — its packed
// witness, the zerocheck with the univariate skip, the lincheck and the ring switch —
// over its own column of one committed stack (columns placed by open.StackOffsets,
// largest first), and one stacked WHIR opening discharges every segment's ring claim
// (open.VerifyStackedRings). The transcript starts with the label, then one byte
// string: "leanpipe/segments/v0", the segment count, each segment's block log size
// and live block count (u64 LE each), then the caller's statement bytes.

// Segment is one batch of a segmented proof, as the prover holds it.
type Segment struct {
	Circuit *circuit.Circuit
	// N is the number of live blocks; the batch has 2^NLog slots, NLog =
	// max(3, ⌈log2 N⌉), and slots N and above repeat slot 0.
	N int
	// Fill writes the packed witness, A0·w and B0·w of 2^nLog slots in the circuit
	// package's row packing (as FlockSpec.Fill). The bytes must not depend on the
	// workers.
	Fill func(w par.Workers, nLog int, wit, a, b []field.K) error
	// Public, when set, is the window of columns the segment's lincheck pins to its
	// public table (lincheck.ProvePublic); the witness must hold those bits.
	Public *lincheck.Window
	// Filled, when set, is what Fill writes, already written (a caller that read the
	// witness before proving): the proof takes its A and B columns as they are and
	// copies its witness, instead of calling Fill, when its slot count is the
	// segment's. The caller must not change them until the proof returns. The proof
	// lets go of them as it is done with them (it sets W to nil once copied, A and B
	// once the segment's zerocheck is done), so that a caller holding no other
	// reference lets their memory serve the rest of the proof.
	Filled *Filled
}

// Filled is a segment's Fill output for 2^NLog slots: the packed witness W and the
// columns A0·w and B0·w.
type Filled struct {
	NLog    int
	W, A, B []field.K
}

// Evaluations adds evaluation claims on the segments' committed columns to a
// segmented proof: how segments are tied together (docs/recursion.md §4.2). After the
// last segment's ring switch both sides call Points; the prover sends the packed
// column's multilinear extension at each point, the verifier hands the values to Check
// (which decides their relations: two regions equal, a weighted sum equal to a
// revealed value, …), and every claim joins the stacked opening as a point claim.
type Evaluations struct {
	// Points returns the claims' points, each on one segment's column (over its
	// column's variables, low first), drawn from sample or fixed by the statement.
	Points func(sample func() field.E) []SegmentPoint
	// Check is the verifier's test of the values, in Points' order.
	Check func(values []field.E) error
	// Linear lists claims on the columns' linear forms (see LinearClaim), proved
	// before the points are drawn; either may be empty (a nil Points draws none).
	Linear []LinearClaim
	// Relations and Copies are linear relations across segments and claims that
	// words of two segments are equal pair by pair (see Relation, CopyClaim); they
	// are batched into one linear claim per segment they touch, after Linear's.
	Relations []Relation
	Copies    []CopyClaim
	// Native lists checks the verifier makes besides the proof's (reading no
	// transcript: a recursion's deferred claims, say). They run with the linchecks'
	// terminal checks, at most GOMAXPROCS at a time, and the proof is accepted only
	// if every one passes. The prover ignores them.
	Native []NativeCheck
	// DeferTerminals hands the linchecks' terminal checks to the caller instead of
	// running them (SegmentsTrace.Terminals, from VerifySegmentsTraced only): a
	// verifier that batches the segments' matrix evaluations elsewhere. The proof is
	// verified only once the caller has checked every one.
	DeferTerminals bool
}

// NativeCheck is one of Evaluations.Native: Check must return nil; What names it in
// its error.
type NativeCheck struct {
	What  string
	Check func() error
}

func (ev *Evaluations) points(sample func() field.E) []SegmentPoint {
	if ev.Points == nil {
		return nil
	}
	return ev.Points(sample)
}

// SegmentPoint is a point on segment Segment's column.
type SegmentPoint struct {
	Segment int
	Point   []field.E
}

// stackPoint places a column point in the stack: the placement's selector bits above it.
func stackPoint(p open.Placement, stackLog int, point []field.E) []field.E {
	out := append([]field.E(nil), point...)
	for k := p.Variables; k < stackLog; k++ {
		out = append(out, field.FromK(field.K(p.Selector()>>(k-p.Variables)&1)))
	}
	return out
}

func checkEvalPoints(pts []SegmentPoint, places []open.Placement) error {
	for i, sp := range pts {
		if sp.Segment < 0 || sp.Segment >= len(places) || len(sp.Point) != places[sp.Segment].Variables {
			return fmt.Errorf("%w: evaluation %d: segment %d, %d coordinates", ErrInput, i, sp.Segment, len(sp.Point))
		}
	}
	return nil
}

// SegmentShape is one batch of a segmented proof, as the verifier knows it.
type SegmentShape struct {
	Circuit lincheck.Matrices
	N       int
	// Public, when set, is the segment's public term (lincheck.VerifyPublic): its
	// table is what the columns of its window must hold, slot by slot. Values that
	// tie segments together travel in the statement bytes and are pinned this way
	// in every segment that reads them.
	Public lincheck.Public
}

const segmentsTag = "leanpipe/segments/v0"

// segmentLayout returns each segment's slot log, column variables and placement,
// the stack's log size, and the layout bytes the transcript absorbs.
func segmentLayout(shapes []SegmentShape, logInvRate int) (nLogs []int, places []open.Placement, stackLog int, layout []byte, err error) {
	if len(shapes) == 0 {
		return nil, nil, 0, nil, fmt.Errorf("%w: a segmented proof of no segments", ErrInput)
	}
	if logInvRate < commit.MinLogInvRate || logInvRate > commit.MaxLogInvRate {
		return nil, nil, 0, nil, fmt.Errorf("%w: log inverse rate %d", ErrInput, logInvRate)
	}
	layout = append([]byte(segmentsTag), 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint64(layout[len(segmentsTag):], uint64(len(shapes)))
	mus := make([]int, len(shapes))
	nLogs = make([]int, len(shapes))
	for i, s := range shapes {
		logSize := s.Circuit.LogSize()
		if logSize < minLogInstance || logSize > 24 {
			return nil, nil, 0, nil, fmt.Errorf("%w: segment %d: blocks of 2^%d columns", ErrInput, i, logSize)
		}
		if s.N < 1 || s.N > 1<<(commit.MaxStackLog+commit.LaneLog-logSize) {
			return nil, nil, 0, nil, fmt.Errorf("%w: segment %d: %d blocks", ErrInput, i, s.N)
		}
		nLogs[i] = SlotLog(s.N)
		mus[i] = logSize + nLogs[i] - commit.LaneLog
		layout = binary.LittleEndian.AppendUint64(layout, uint64(logSize))
		layout = binary.LittleEndian.AppendUint64(layout, uint64(s.N))
	}
	places, stackLog = open.StackOffsets(mus)
	stackLog = max(stackLog, commit.MinStackLog)
	if stackLog > commit.MaxStackLog {
		return nil, nil, 0, nil, fmt.Errorf("%w: segments of 2^%d words in all (at most 2^%d)", ErrInput, stackLog, commit.MaxStackLog)
	}
	return nLogs, places, stackLog, layout, nil
}

func segmentTranscriptStart(layout, statement []byte) []byte {
	return append(append([]byte(nil), layout...), statement...)
}

// ProveSegments proves the segments in one proof under label, the statement bytes
// absorbed after the layout, with the evaluation claims of ev (nil: none). Proof bytes
// do not depend on the workers.
func ProveSegments(label string, statement []byte, segs []Segment, ev *Evaluations, logInvRate int, workers par.Workers) (*transcript.Proof, error) {
	p, _, err := ProveSegmentsProfiled(label, statement, segs, ev, logInvRate, workers)
	return p, err
}

// SegmentsProfile is where a segmented proof's time went, stage by stage (summed over
// the segments), in the order the stages run.
type SegmentsProfile struct {
	Witness, Commit, Zerocheck, Lincheck, RingSwitch, Linear, Open time.Duration
}

// Stages lists the profile's stages by name, in order.
func (p SegmentsProfile) Stages() []struct {
	Name string
	Took time.Duration
} {
	return []struct {
		Name string
		Took time.Duration
	}{{"witness", p.Witness}, {"commit", p.Commit}, {"zerocheck", p.Zerocheck}, {"lincheck", p.Lincheck},
		{"ringswitch", p.RingSwitch}, {"linear", p.Linear}, {"open", p.Open}}
}

// ProveSegmentsProfiled is ProveSegments reporting its stages' times.
func ProveSegmentsProfiled(label string, statement []byte, segs []Segment, ev *Evaluations, logInvRate int, workers par.Workers) (*transcript.Proof, SegmentsProfile, error) {
	var prof SegmentsProfile
	mark := time.Now()
	lap := func(d *time.Duration) {
		now := time.Now()
		*d += now.Sub(mark)
		mark = now
	}
	proof, err := proveSegments(label, statement, segs, ev, logInvRate, workers, lap, &prof)
	return proof, prof, err
}

func proveSegments(label string, statement []byte, segs []Segment, ev *Evaluations, logInvRate int, workers par.Workers,
	lap func(*time.Duration), prof *SegmentsProfile) (*transcript.Proof, error) {
	run, err := proveSegmentRings(label, statement, segs, logInvRate, workers, lap, prof)
	if err != nil {
		return nil, err
	}
	tr, stack, places, stackLog := run.tr, run.stack, run.places, run.stackLog
	var points []open.PointClaim
	if ev != nil {
		var rel []LinearClaim
		if rel, err = proveRelations(tr, ev.Relations, ev.Copies, places, stack, workers); err != nil {
			return nil, err
		}
		if points, err = proveLinearIn(tr, ev.linearWithRelations(rel), places, stackLog, stack, workers, run.spare); err != nil {
			return nil, err
		}
		lap(&prof.Linear)
		pts := ev.points(tr.Sample)
		if err := checkEvalPoints(pts, places); err != nil {
			return nil, err
		}
		for _, sp := range pts {
			p := places[sp.Segment]
			v := evalColumn(stack[p.Offset:p.Offset+1<<p.Variables], sp.Point)
			tr.Send(v)
			points = append(points, open.PointClaim{Point: stackPoint(p, stackLog, sp.Point), Value: v})
		}
	}
	lap(&prof.Linear)
	op := open.Scratch{Plans: segmentPlan}
	if err := op.ProveStackedRingsIn(tr, run.com, run.rings, points, run.weights, workers); err != nil {
		return nil, err
	}
	lap(&prof.Open)
	return tr.Proof(), nil
}

// VerifySegments checks a segmented proof (raw or wire form) of shapes under label
// and statement, with the evaluation claims of ev (nil: none), and returns its raw form.
func VerifySegments(proof *transcript.Proof, label string, statement []byte, shapes []SegmentShape, ev *Evaluations, logInvRate int) (raw *transcript.Proof, err error) {
	return verifySegments(proof, label, statement, shapes, ev, logInvRate, nil)
}

// SegmentsTrace is what a segmented proof's verification ran, for a ledger of what
// verifying it in-circuit costs: transcript compressions by phase, each segment's
// zerocheck and lincheck sizes, the stream's length and the opening's Merkle openings.
type SegmentsTrace struct {
	// Compressions: fixed by the label alone, the transcript start (layout and
	// statement), per segment its zerocheck, lincheck and ring switch (with the root's
	// for the first), the linear claims' sumcheck, the evaluations and the opening.
	Label, Start, Linear, Evaluations, Opening, Total int
	Segments                                          []SegmentTrace
	// StreamScalars is the proof stream's length in E scalars.
	StreamScalars int
	StackLog      int
	// LinearRounds is the linear claims' sumcheck's round count, LinearTerms their
	// terms (the weight's evaluation reads one eq product per term).
	LinearRounds, LinearTerms, LinearClaims int
	Openings                                []MerkleOpening
	// Raw is the accepted proof in raw form (its openings' rows and paths), as
	// VerifySegments returns it.
	Raw *transcript.Proof
	// Terminals are the segments' lincheck terminal checks, left undone, when the
	// evaluations asked for that (Evaluations.DeferTerminals).
	Terminals []*lincheck.TerminalCheck
	step      func(transcript.Step)
	prefix    bool // replay the segments' checks only (SegmentsTerminals)
}

// SegmentsTerminals replays a segmented proof's transcript up to its segments'
// linchecks and returns their terminal checks, undone: what a prover batching its
// segments' matrix evaluations needs of its own proof. It verifies nothing past them
// (the relations, linear claims and opening are not read), so it accepts no proof.
func SegmentsTerminals(proof *transcript.Proof, label string, statement []byte, shapes []SegmentShape, logInvRate int) ([]*lincheck.TerminalCheck, error) {
	t := &SegmentsTrace{prefix: true}
	if _, err := verifySegments(proof, label, statement, shapes, nil, logInvRate, t); err != nil {
		return nil, err
	}
	return t.Terminals, nil
}

// SegmentTrace is one segment's part of a SegmentsTrace.
type SegmentTrace struct {
	M, LogSize, Mu, WindowLog, Compressions int
}

// MerkleOpening is one Merkle opening of a WHIR level as the verifier ran it.
type MerkleOpening struct {
	Queries, Depth, RowWords, LeafWords int
}

// VerifySegmentsTraced is VerifySegments that also returns what the verification
// ran (only for a proof it accepts), and hands each transcript compression after the
// label to step (nil: none).
func VerifySegmentsTraced(proof *transcript.Proof, label string, statement []byte, shapes []SegmentShape, ev *Evaluations, logInvRate int, step func(transcript.Step)) (*SegmentsTrace, error) {
	t := &SegmentsTrace{step: step}
	raw, err := verifySegments(proof, label, statement, shapes, ev, logInvRate, t)
	if err != nil {
		return nil, err
	}
	t.Raw = raw
	return t, nil
}

// merkleRecorder is a verifier transcript that records its Merkle openings.
type merkleRecorder struct {
	*transcript.Verifier
	t *SegmentsTrace
}

func (r merkleRecorder) Merkle(root merkle.Digest, blockLen int, queries []int, leafWords int) ([][]uint64, error) {
	return r.MerklePadded(root, blockLen, queries, leafWords, leafWords)
}

func (r merkleRecorder) MerklePadded(root merkle.Digest, blockLen int, queries []int, rowWords, leafWords int) ([][]uint64, error) {
	rows, err := r.Verifier.MerklePadded(root, blockLen, queries, rowWords, leafWords)
	if err == nil {
		r.t.Openings = append(r.t.Openings, MerkleOpening{Queries: len(queries), Depth: bits.Len(uint(blockLen)) - 1, RowWords: rowWords, LeafWords: leafWords})
	}
	return rows, err
}

func verifySegments(proof *transcript.Proof, label string, statement []byte, shapes []SegmentShape, ev *Evaluations, logInvRate int, trace *SegmentsTrace) (raw *transcript.Proof, err error) {
	if proof == nil {
		return nil, fmt.Errorf("%w: nil proof", ErrInput)
	}
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, fmt.Errorf("%w: segments: the verifier panicked on this proof (a bug): %v", ErrInput, r)
		}
	}()
	nLogs, places, stackLog, layout, err := segmentLayout(shapes, logInvRate)
	if err != nil {
		return nil, err
	}
	for i, s := range shapes {
		// A table lists at most the segment's slots: rows past them would be dropped
		// by its evaluation, unchecked.
		if t, ok := s.Public.(*lincheck.Table); ok && len(t.Rows) > 1<<nLogs[i] {
			return nil, fmt.Errorf("%w: segment %d: a public table of %d rows for %d slots", ErrInput, i, len(t.Rows), 1<<nLogs[i])
		}
	}
	// The trace costs a few counters and appends: an untraced verification keeps one
	// it drops.
	traced := trace != nil
	if !traced {
		trace = new(SegmentsTrace)
	}
	tr := transcript.NewVerifier(proof, []byte(label), nil)
	mark := tr.Compressions()
	since := func() int {
		n := tr.Compressions() - mark
		mark = tr.Compressions()
		return n
	}
	trace.Label = mark
	tr.Trace(trace.step)
	tr.AbsorbBytes(segmentTranscriptStart(layout, statement))
	trace.Start = since()
	root, err := open.ReceiveRoot(tr)
	if err != nil {
		return nil, err
	}
	rings := make([]open.PlacedRing, len(shapes))
	terminals := make([]*lincheck.TerminalCheck, len(shapes))
	for i, s := range shapes {
		st := SegmentTrace{M: s.Circuit.LogSize() + nLogs[i], LogSize: s.Circuit.LogSize(), Mu: places[i].Variables}
		if s.Public != nil {
			st.WindowLog = s.Public.Window().Log
		}
		zc, err := zerocheck.VerifyWith(tr, s.Circuit.LogSize()+nLogs[i])
		if err != nil {
			return nil, fmt.Errorf("flows: segment %d: %w", i, err)
		}
		lc, t, err := lincheck.VerifyPublicDeferred(tr, s.Circuit, lincheck.ZerocheckClaims(zc), s.Public)
		if err != nil {
			return nil, fmt.Errorf("flows: segment %d: %w", i, err)
		}
		terminals[i] = t
		rings[i] = open.PlacedRing{Place: places[i], Claim: ringswitch.Verify(tr, lc.Point, lc.S)}
		st.Compressions = since()
		trace.Segments = append(trace.Segments, st)
	}
	// The linchecks' terminal checks (each an evaluation of its segment's matrices)
	// and the native checks read no transcript: they run side by side with the rest
	// of the replay, at most GOMAXPROCS at a time (each walk holds its scratch while it
	// runs), and the proof is accepted only once every one has passed.
	// The native checks come first: they are the caller's (a recursion's deferred
	// claims), usually the longest, and the slots are taken in order.
	if trace.prefix {
		trace.Terminals = terminals
		return nil, nil
	}
	checks := make([]NativeCheck, 0, len(terminals))
	if ev != nil {
		checks = append(checks, ev.Native...)
	}
	if ev != nil && ev.DeferTerminals {
		if !traced {
			return nil, fmt.Errorf("%w: deferred terminal checks need a traced verification", ErrInput)
		}
		trace.Terminals = terminals
	} else {
		for i, t := range terminals {
			checks = append(checks, NativeCheck{fmt.Sprintf("segment %d", i), t.Check})
		}
	}
	wait := StartChecks(checks)
	defer func() {
		if cerr := wait(); err == nil && cerr != nil {
			raw, err = nil, cerr
		}
	}()
	var points []open.PointClaim
	if ev != nil {
		var rel []LinearClaim
		if rel, err = verifyRelations(tr, ev.Relations, ev.Copies, places); err != nil {
			return nil, err
		}
		linear := ev.linearWithRelations(rel)
		if points, err = verifyLinear(tr, linear, places, stackLog); err != nil {
			return nil, err
		}
		trace.Linear = since()
		trace.LinearClaims = len(linear)
		for _, c := range linear {
			trace.LinearTerms += len(c.Terms) + c.weightTerms
			trace.LinearRounds = max(trace.LinearRounds, places[c.Segment].Variables)
		}
		pts := ev.points(tr.Sample)
		if err := checkEvalPoints(pts, places); err != nil {
			return nil, err
		}
		values := make([]field.E, len(pts))
		for i, sp := range pts {
			if values[i], err = tr.Receive(); err != nil {
				return nil, fmt.Errorf("flows: evaluation %d: %w", i, err)
			}
			points = append(points, open.PointClaim{Point: stackPoint(places[sp.Segment], stackLog, sp.Point), Value: values[i]})
		}
		if ev.Check != nil {
			if err := ev.Check(values); err != nil {
				return nil, err
			}
		} else if len(values) > 0 {
			return nil, fmt.Errorf("%w: evaluations without a check", ErrInput)
		}
	}
	sh, err := commit.ShapeOf(committedWords(places, stackLog), stackLog, logInvRate)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	trace.Evaluations = since()
	if err := open.VerifyStackedRings(merkleRecorder{tr, trace}, root, sh, rings, points); err != nil {
		return nil, err
	}
	if err := tr.Finish(); err != nil {
		return nil, err
	}
	trace.Opening = since()
	trace.Total = tr.Compressions()
	trace.StreamScalars = tr.Offset()
	trace.StackLog = stackLog
	return tr.RawProof(), nil
}

// evalColumn is the column's multilinear extension at point, reading only the
// entries that agree with point's Boolean coordinates (a point that picks a word and
// varies the slots costs the slots, not the column).
func evalColumn(col []field.K, point []field.E) field.E {
	var free []int
	base := 0
	for k, x := range point {
		switch x {
		case field.Zero:
		case field.One:
			base |= 1 << k
		default:
			free = append(free, k)
		}
	}
	if len(free) > 20 || len(free) == len(point) {
		return field.EvalMLEK(col, point)
	}
	vals := make([]field.E, 1<<len(free))
	at := make([]field.E, len(free))
	for i, k := range free {
		at[i] = point[k]
	}
	for t := range vals {
		idx := base
		for i, k := range free {
			idx |= (t >> i & 1) << k
		}
		vals[t] = field.FromK(col[idx])
	}
	return field.EvalMLE(vals, at)
}

// committedWords is the stack's prefix that holds every segment, in whole lane blocks.
func committedWords(places []open.Placement, stackLog int) int {
	end := segmentsEnd(places)
	block := 1 << (stackLog - commit.LaneLog)
	return (end + block - 1) / block * block
}

// clearChunk is the fewest words a worker clears of the stack or the weight.
const clearChunk = 1 << 16

// segmentsEnd is the end of the last segment in the stack.
func segmentsEnd(places []open.Placement) int {
	end := 0
	for _, p := range places {
		end = max(end, p.Offset+1<<p.Variables)
	}
	return end
}

// segmentRings is a segmented proof up to its ring claims: the transcript after every
// segment's zerocheck, lincheck and ring switch, the commitment and the stack.
type segmentRings struct {
	tr       *transcript.Prover
	com      *commit.Committed
	stack    []field.K
	places   []open.Placement
	stackLog int
	rings    []open.PlacedRing
	// spare is the zerocheck tables' memory, free once every segment's zerocheck
	// has run: the linear claims' column folds reuse it.
	spare [][]field.E
	// weights holds the rings' weights, each at its segment's column.
	weights []field.E
}

// proveSegmentRings runs a segmented proof's common part: the segments' witnesses,
// the commitment of the lane blocks that hold them, the transcript's start, and per
// segment the zerocheck, the lincheck and the ring switch.
func proveSegmentRings(label string, statement []byte, segs []Segment, logInvRate int, workers par.Workers,
	lap func(*time.Duration), prof *SegmentsProfile) (*segmentRings, error) {
	shapes := make([]SegmentShape, len(segs))
	for i, s := range segs {
		if s.Circuit == nil || s.Fill == nil {
			return nil, fmt.Errorf("%w: segment %d without a circuit or a filler", ErrInput, i)
		}
		shapes[i] = SegmentShape{Circuit: s.Circuit, N: s.N}
	}
	nLogs, places, stackLog, layout, err := segmentLayout(shapes, logInvRate)
	if err != nil {
		return nil, err
	}
	// The segments lie one after another from word 0 (open.StackOffsets) and each
	// is written in full below, so only the stack's tail past them is cleared.
	end := segmentsEnd(places)
	stack := buffers.MakeUninit[field.K](1 << stackLog)
	par.Clear(workers, stack[end:], par.MinChunk(clearChunk))
	as, bs := make([][]field.K, len(segs)), make([][]field.K, len(segs))
	for i, s := range segs {
		p := places[i]
		words := 1 << p.Variables
		if f := s.Filled; f != nil && f.NLog == nLogs[i] && len(f.W) == words && len(f.A) == words && len(f.B) == words {
			// On the workers: this first write faults the stack's pages in.
			dst, src := stack[p.Offset:p.Offset+words], f.W
			workers.Range(words, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) }, par.MinChunk(1<<16))
			f.W = nil
			as[i], bs[i] = f.A, f.B
			continue
		}
		as[i], bs[i] = buffers.Make[field.K](words), buffers.Make[field.K](words)
		par.Clear(workers, stack[p.Offset:p.Offset+words], par.MinChunk(clearChunk)) // a Fill may leave padding words as they are
		if err := s.Fill(workers, nLogs[i], stack[p.Offset:p.Offset+words], as[i], bs[i]); err != nil {
			return nil, fmt.Errorf("flows: segment %d: %w", i, err)
		}
	}
	lap(&prof.Witness)
	// Only the lane blocks that hold a segment are committed: the stack's tail past
	// the last placement is zero, and the opening reads it as zeros (as for a short
	// Flock stack), so the commitment and its level-0 rows skip it.
	com := &commit.Committed{Plans: segmentPlan}
	if err := commit.CommitInto(com, stack[:committedWords(places, stackLog)], stackLog, logInvRate, workers); err != nil {
		return nil, err
	}
	lap(&prof.Commit)
	tr := transcript.NewProver([]byte(label), nil)
	tr.AbsorbBytes(segmentTranscriptStart(layout, statement))
	halves := commit.RootHalves(com.Root())
	tr.SendMany(halves[:])
	rings := make([]open.PlacedRing, len(segs))
	// Every ring switch writes its weights into its segment's column of the
	// opening's weight, which the opening then scales in place
	// (open.ProveStackedRingsIn): no second stack-sized weight.
	// Each ring switch writes its segment's column in full: only the tail is cleared.
	weights := buffers.MakeUninit[field.E](len(com.Stack))
	par.Clear(workers, weights[end:], par.MinChunk(clearChunk))
	// The segments run one after another, so one set of zerocheck tables and one
	// lincheck scratch serve them all (sized by the largest): fresh ones per
	// segment are fresh pages to fault in, and garbage the next segment's
	// allocations wait behind. The ring switch copies the lincheck's point, so the
	// scratch is free again once it has run.
	var zb zerocheck.Buffers
	var lsc lincheck.Scratch
	for i, s := range segs {
		p := places[i]
		q := stack[p.Offset : p.Offset+1<<p.Variables]
		logSize := s.Circuit.LogSize()
		res, err := zerocheck.ProveWith(tr, zerocheck.Input{A: as[i], B: bs[i], C: q, M: logSize + nLogs[i], LogInstance: logSize, Live: s.N}, workers, &zb)
		if err != nil {
			return nil, fmt.Errorf("flows: segment %d: %w", i, err)
		}
		as[i], bs[i] = nil, nil
		if f := s.Filled; f != nil {
			f.A, f.B = nil, nil
		}
		lap(&prof.Zerocheck)
		lc := lsc.ProvePublic(tr, s.Circuit, q, s.N, lincheck.ZerocheckClaims(res), s.Public, workers)
		lap(&prof.Lincheck)
		ring := ringswitch.Prove(tr, lc.Point, lc.S, weights[p.Offset:p.Offset+1<<p.Variables], workers)
		lap(&prof.RingSwitch)
		rings[i] = open.PlacedRing{Place: p, Claim: ring}
		if err := workers.Err(); err != nil {
			return nil, err
		}
	}
	return &segmentRings{tr: tr, com: com, stack: stack, places: places, stackLog: stackLog, rings: rings, weights: weights, spare: zb.Take()}, nil
}

// segmentPlans are the NTT plans segmented proofs encode with, by dimension (a plan
// is immutable and recycles its workers' buffers across uses).
var segmentPlans sync.Map // int → *ntt.Plan

func segmentPlan(logD int) *ntt.Plan {
	if p, ok := segmentPlans.Load(logD); ok {
		return p.(*ntt.Plan)
	}
	p, _ := segmentPlans.LoadOrStore(logD, ntt.NewPlan(logD))
	return p.(*ntt.Plan)
}

// SegmentsLayout is a segmented proof's layout as its verifier derives it from the
// shapes: each segment's slot count (log), its placement in the stack, the stack's
// log size, and the bytes the transcript absorbs first (the layout, then statement).
// A recursive verifier replays the proof from it.
func SegmentsLayout(shapes []SegmentShape, logInvRate int, statement []byte) (nLogs []int, places []open.Placement, stackLog int, start []byte, err error) {
	nLogs, places, stackLog, layout, err := segmentLayout(shapes, logInvRate)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	return nLogs, places, stackLog, segmentTranscriptStart(layout, statement), nil
}

// CommittedShape is the commitment shape of a segmented proof's stack.
func CommittedShape(places []open.Placement, stackLog, logInvRate int) (commit.Shape, error) {
	return commit.ShapeOf(committedWords(places, stackLog), stackLog, logInvRate)
}

// LayoutLen is the length of a segmented proof's layout bytes for a number of segments:
// what its transcript absorbs before the statement (see SegmentsLayout). A statement
// that places values on whole transcript steps (24 bytes each) counts from it.
func LayoutLen(segments int) int { return len(segmentsTag) + 8 + 16*segments }

// StartChecks starts checks side by side, at most GOMAXPROCS at a time and in order
// as slots free (the first start first), and returns a wait that reports their errors
// joined (a panicking check is an error naming it). Nothing is held up meanwhile.
func StartChecks(checks []NativeCheck) (wait func() error) {
	checkErrs := make([]error, len(checks))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	wg.Add(len(checks))
	go func() {
		for i, c := range checks {
			slots <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				defer func() {
					if r := recover(); r != nil {
						checkErrs[i] = fmt.Errorf("%w: %s: the verifier panicked on this proof (a bug): %v", ErrInput, c.What, r)
					}
				}()
				if err := c.Check(); err != nil {
					checkErrs[i] = fmt.Errorf("flows: %s: %w", c.What, err)
				}
			}()
		}
	}()
	return func() error {
		wg.Wait()
		return errors.Join(checkErrs...)
	}
}

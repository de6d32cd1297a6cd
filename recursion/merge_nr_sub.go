package recursion

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

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
	// Children are the merged child's own children, in order; Subs, beside them, what
	// the merged child carries of each of its merged children, trimmed (trim: their
	// hints only; nil for a leaf; nil when all are leaves). The parent carries those
	// too, since the merged child's verifier checks them natively, and so does every
	// ancestor.
	Children []ChildInfo
	Subs     []*MergedChildNR
	// Values are the child's segments tape's carried hints' values (every hint but the
	// segments' matrix values, which the child's batch reduces to Blocks), in its hints'
	// order; Points their points, each once (hintPoints: every linear batch's weight
	// shares one).
	Values []field.E
	Points [][]field.E
	// KeyPoint and KeyValue are the child's batched key claim: its key table (its keys,
	// the parent's from its offset) at KeyPoint.
	KeyPoint []field.E
	KeyValue field.E
	// Blocks are the child's batched block claims: one point, and one pair of values
	// per kind of its batch (batchKinds: its segments' block circuits, the
	// xmss-aggregate circuit, its tree and role tables, its merged children's kinds by
	// key), which join the parent's batch of the same kinds.
	Blocks KindsClaim
}

// A record's Subs are trimmed (trim): what the merged child's verifier checks
// natively of its own merged children, their hints' values and points and their
// trimmed Subs below. Their batched claims were read by the child's batch, which the
// parent replays, so no ancestor carries them.

// lists are the carried values in the order the parent's layout asserts them: each
// hint's point, the hints' values, then the key point and value, the block claims' row
// and column points, A0 and B0 values and role address point; then each merged
// child's trimmed lists, in order.
func (mc *MergedChildNR) lists() [][]field.E {
	out := append([][]field.E(nil), mc.Points...)
	out = append(out, mc.Values)
	out = append(out, mc.outLists()...)
	return append(out, mc.subLists()...)
}

// outLists are the record's batched claims' lists.
func (mc *MergedChildNR) outLists() [][]field.E {
	return [][]field.E{mc.KeyPoint, {mc.KeyValue},
		mc.Blocks.RRow, mc.Blocks.RCol, mc.Blocks.VA, mc.Blocks.VB, mc.Blocks.RAddr}
}

// subLists are the merged children's trimmed lists, in order.
func (mc *MergedChildNR) subLists() [][]field.E {
	var out [][]field.E
	for _, sub := range mc.Subs {
		if sub != nil {
			out = append(out, sub.checkedLists()...)
		}
	}
	return out
}

// checkedLists are a trimmed record's lists: its hints' points and values, then its
// merged children's trimmed lists.
func (mc *MergedChildNR) checkedLists() [][]field.E {
	out := append(append([][]field.E(nil), mc.Points...), mc.Values)
	return append(out, mc.subLists()...)
}

// trim is the record as the parent of its parent carries it: its shape alone (its
// children's sizes and rates, and its trimmed Subs'). Every carried value of it ended
// in its parent's batch: the public terms and linear weights on its shape's kinds, the
// target on its parent's tree table (docs/recursion.md §6.11).
func (mc *MergedChildNR) trim() *MergedChildNR {
	return &MergedChildNR{Children: mc.Children, Subs: mc.Subs}
}

// targetParts are the indices of the child's target hints among its kept hints, and
// of their distinct points among its carried points.
func (s *nrSub) targetParts() (vals, pts []int) {
	index, _ := hintPoints(s.keptHints())
	for i, h := range s.keptHints() {
		if h.Kind == HintRelationTarget {
			vals = append(vals, i)
			if !slices.Contains(pts, index[i]) {
				pts = append(pts, index[i])
			}
		}
	}
	return vals, pts
}

// checkTrimmed refuses a trimmed record that holds any value, at any depth.
func (mc *MergedChildNR) checkTrimmed() error {
	if len(mc.Values) != 0 || len(mc.Points) != 0 {
		return fmt.Errorf("%w: a merged grandchild's record holds carried values", ErrMerged)
	}
	if len(mc.KeyPoint) != 0 || len(mc.Blocks.RRow) != 0 || len(mc.Blocks.RCol) != 0 || len(mc.Blocks.VA) != 0 || len(mc.Blocks.VB) != 0 || len(mc.Blocks.RAddr) != 0 || !mc.KeyValue.IsZero() {
		return fmt.Errorf("%w: a merged grandchild's record holds batched claims", ErrMerged)
	}
	for _, g := range mc.Subs {
		if g != nil {
			if err := g.checkTrimmed(); err != nil {
				return err
			}
		}
	}
	return nil
}

// sub is what mc carries of its child i if that is merged, else nil.
func (mc *MergedChildNR) sub(i int) *MergedChildNR {
	if i < len(mc.Subs) {
		return mc.Subs[i]
	}
	return nil
}

// shapeKey names a merged child's shape: its size and rate, its children's, and theirs
// below (what its layout depends on besides its keys and carried values).
func shapeKey(c ChildInfo, mc *MergedChildNR) string {
	var b []byte
	var walk func(c ChildInfo, mc *MergedChildNR)
	walk = func(c ChildInfo, mc *MergedChildNR) {
		b = fmt.Appendf(b, "(%d,%d", c.N, c.LogInvRate)
		if mc != nil {
			for i, g := range mc.Children {
				walk(g, mc.sub(i))
			}
		}
		b = append(b, ')')
	}
	walk(c, mc)
	return string(b)
}

// flatten concatenates values and lists.
func flatten(lists ...[]field.E) []field.E {
	var out []field.E
	for _, v := range lists {
		out = append(out, v...)
	}
	return out
}

// flatLen is the number of values in lists.
func flatLen(lists [][]field.E) int {
	n := 0
	for _, v := range lists {
		n += len(v)
	}
	return n
}

// hintPoints maps a segments tape's hints to their distinct points: a segment's A and
// B hints share its Flock point, every linear batch's weight the point (τ, γ, ρ).
func hintPoints(hints []SegmentHint) (index []int, count int) {
	seen := map[[2]int]int{}
	for _, h := range hints {
		key := [2]int{int(h.Kind), h.Of}
		switch h.Kind {
		case HintSegmentB:
			key[0] = int(HintSegmentA)
		case HintLinearWeight:
			key[1] = 0
		}
		k, ok := seen[key]
		if !ok {
			k = len(seen)
			seen[key] = k
		}
		index = append(index, k)
	}
	return index, len(seen)
}

// keptHints are the child's carried hints.
func (s *nrSub) keptHints() []SegmentHint {
	out := make([]SegmentHint, len(s.kept))
	for i, h := range s.kept {
		out[i] = s.hints[h]
	}
	return out
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
	// kept are the indices of the carried hints (all but the segments' matrix values)
	// among hints; hintValues, on the prover's side, every hint's value.
	kept       []int
	hintValues []field.E
	// kinds are the kinds of the child's batch; childKinds, per child of it, a merged
	// one's kinds (nil for a leaf).
	kinds      []nrKind
	childKinds [][]nrKind
	// hk are the child's carried public and linear-weight hints as claims on kinds of
	// its shape, which its parent's batch takes (docs/recursion.md §6.10).
	hk []hintKind
	// lsubs are the child's merged children as its layout laid them out (nil for a
	// leaf): the native checks of what the parent carries of them reuse them.
	lsubs []*nrSub
	kt    KeyTable
	// pointLens are the lengths of the hints' distinct points, keyLen the batched key
	// claim's point's.
	pointLens []int
	keyLen    int
}

// newNRSub lays out merged child m (carried: what the parent carries of it, nil on a
// dry run).
func newNRSub(m *MergedNR, carried *MergedChildNR) (*nrSub, error) {
	lm, lsubs, err := m.layout()
	if err != nil {
		return nil, err
	}
	s := &nrSub{m: m, carried: carried, lm: lm, lsubs: lsubs, shapes: lm.shapes(), ev: &flows.Evaluations{Relations: lm.rels}, statement: m.statementBytes()}
	_, places, stackLog, start, err := flows.SegmentsLayout(s.shapes, m.LogInvRate, s.statement)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	s.start = start
	s.atoms = flatLen(m.carriedLists())
	if s.kt, err = m.keyTable(); err != nil {
		return nil, err
	}
	// The schedules, hints and WHIR configuration depend on the child's shape only
	// (its children's sizes and rates, its rate): a dry replay per shape fixes them.
	key := shapeKey(ChildInfo{N: len(m.Keys), LogInvRate: m.LogInvRate}, &MergedChildNR{Children: m.Children, Subs: m.Subs})
	if v, ok := subShapes.Load(key); ok {
		d := v.(*nrSub)
		s.main, s.batch, s.hints, s.cfg, s.pointLens, s.keyLen = d.main, d.batch, d.hints, d.cfg, d.pointLens, d.keyLen
		s.kept, s.kinds, s.childKinds, s.hk = d.kept, d.kinds, d.childKinds, d.hk
		return s, nil
	}
	sh, err := flows.CommittedShape(places, stackLog, m.LogInvRate)
	if err != nil {
		return nil, err
	}
	if s.cfg, err = open.DeriveConfig(sh.StackLog, sh.LogInvRate); err != nil {
		return nil, err
	}
	if s.kinds, err = batchKinds(lm, lsubs); err != nil {
		return nil, err
	}
	s.childKinds = make([][]nrKind, len(lsubs))
	for c, g := range lsubs {
		if g != nil {
			s.childKinds[c] = g.kinds
		}
	}
	harness, _ := nativeTapeInputs(nil, nil, nil)
	st, sb, out, err := s.replay(harness, TapeInputs{})
	if err != nil {
		return nil, err
	}
	s.main, s.batch = scheduleOf(st.Steps), scheduleOf(sb.steps)
	for h, hk := range st.Hints {
		if hk.Kind == HintLevelEnforced || hk.Kind == HintLevelInduced {
			break
		}
		s.hints = append(s.hints, hk)
		if hk.Kind != HintSegmentA && hk.Kind != HintSegmentB {
			s.kept = append(s.kept, h)
		}
	}
	index, count := hintPoints(s.keptHints())
	s.pointLens = make([]int, count)
	for i, h := range s.kept {
		s.pointLens[index[i]] = len(st.HintPoint(h))
	}
	s.keyLen = len(out.keyPt)
	if s.hk, err = s.hintKinds(); err != nil {
		return nil, err
	}
	// Its target is a claim on its parent's tree table: one value at one point.
	if _, _, err := s.targetSlot(); err != nil {
		return nil, err
	}
	subShapes.Store(key, &nrSub{main: s.main, batch: s.batch, hints: s.hints, cfg: s.cfg, pointLens: s.pointLens, keyLen: s.keyLen,
		kept: s.kept, kinds: s.kinds, childKinds: s.childKinds, hk: s.hk})
	return s, nil
}

// subShapes caches a merged child's schedules, hints, WHIR configuration and carried
// lengths by its shape (shapeKey).
var subShapes shapeCache

// shapeCacheMax bounds a shape cache's entries. The shapes are the ones proofs name,
// chosen by whoever made them: a verifier that keeps every new one would grow without
// bound, so past this many a shape is laid out on every use instead (a tree of this
// package's tools has a few).
const shapeCacheMax = 1024

// shapeCache is a cache by shape of at most shapeCacheMax entries; once full it keeps
// what it has and stores nothing more.
type shapeCache struct {
	m sync.Map
	n atomic.Int64
}

func (c *shapeCache) Load(key any) (any, bool) { return c.m.Load(key) }

func (c *shapeCache) Store(key, v any) {
	if c.n.Load() >= shapeCacheMax {
		return
	}
	if _, loaded := c.m.LoadOrStore(key, v); !loaded {
		c.n.Add(1)
	}
}

// Clear empties the cache (tests: a verification as a fresh process runs it).
func (c *shapeCache) Clear() {
	c.m.Clear()
	c.n.Store(0)
}

// subShape is the layout of a merged child of this size and rate and the shape mc
// gives (its values unused), cached by shape.
func subShape(c ChildInfo, mc *MergedChildNR) (*nrSub, error) {
	if v, ok := subShapes.Load(shapeKey(c, mc)); ok {
		return v.(*nrSub), nil
	}
	// The shape does not depend on the keys: lay out a child of placeholder keys
	// (distinct, as a statement's keys must be).
	m, err := blankMerged(xmss.Message{}, 0, placeholderKeys(c.N), c.LogInvRate, mc.Children, mc.Subs)
	if err != nil {
		return nil, err
	}
	return newNRSub(m, nil)
}

// placeholderKeys are n distinct keys (key i's root holds i).
func placeholderKeys(n int) []xmss.PublicKey {
	keys := make([]xmss.PublicKey, n)
	for i := range keys {
		binary.LittleEndian.PutUint64(keys[i].Root[:], uint64(i))
	}
	return keys
}

// subConfig is the WHIR configuration of a merged child of this size and rate and
// shape.
func subConfig(c ChildInfo, mc *MergedChildNR) (*open.Config, error) {
	s, err := subShape(c, mc)
	if err != nil {
		return nil, err
	}
	return s.cfg, nil
}

// blankRecord is what a parent carries of a merged child of this size, rate and shape
// with every value zero: the lengths its verifier lays the child out with.
func blankRecord(c ChildInfo, mc *MergedChildNR) (*MergedChildNR, error) {
	if len(mc.Subs) != 0 && len(mc.Subs) != len(mc.Children) {
		return nil, fmt.Errorf("%w: %d merged children's claims for %d children", ErrMerged, len(mc.Subs), len(mc.Children))
	}
	s, err := subShape(c, mc)
	if err != nil {
		return nil, err
	}
	b, err := blankTrimmed(c, mc)
	if err != nil {
		return nil, err
	}
	b.Values, b.Points = make([]field.E, len(s.kept)), make([][]field.E, len(s.pointLens))
	for u, n := range s.pointLens {
		b.Points[u] = make([]field.E, n)
	}
	b.KeyPoint = make([]field.E, s.keyLen)
	L := kindsLog(s.kinds)
	b.Blocks = KindsClaim{RRow: make([]field.E, L), RCol: make([]field.E, L), VA: make([]field.E, len(s.kinds)), VB: make([]field.E, countB(s.kinds)),
		RAddr: make([]field.E, roleAddrBits(s.kinds))}
	return b, nil
}

// blankTrimmed is blankRecord trimmed: the shape alone.
func blankTrimmed(c ChildInfo, mc *MergedChildNR) (*MergedChildNR, error) {
	if len(mc.Subs) != 0 && len(mc.Subs) != len(mc.Children) {
		return nil, fmt.Errorf("%w: %d merged children's claims for %d children", ErrMerged, len(mc.Subs), len(mc.Children))
	}
	if _, err := subShape(c, mc); err != nil {
		return nil, err
	}
	b := &MergedChildNR{Children: mc.Children}
	var err error
	if mc.Subs != nil {
		b.Subs = make([]*MergedChildNR, len(mc.Subs))
		for i, g := range mc.Subs {
			if g != nil {
				if b.Subs[i], err = blankTrimmed(mc.Children[i], g); err != nil {
					return nil, err
				}
			}
		}
	}
	return b, nil
}

// blankMerged is a merged child as its parent's verifier sees it: message, epoch, keys,
// rate, its children's sizes and rates and the shapes of its merged children (subs),
// its carried values zero (the parent reads them as committed data).
func blankMerged(msg xmss.Message, epoch uint32, keys []xmss.PublicKey, logInvRate int, children []ChildInfo, subs []*MergedChildNR) (*MergedNR, error) {
	if len(children) < 2 || len(children) > MaxChildren || (len(subs) != 0 && len(subs) != len(children)) {
		return nil, fmt.Errorf("%w: a merged child of %d children and %d merged children's claims", ErrMerged, len(children), len(subs))
	}
	if err := checkChildSizes(children, len(keys)); err != nil {
		return nil, err
	}
	m := &MergedNR{Message: msg, Epoch: epoch, Keys: keys, Children: children, LogInvRate: logInvRate}
	for i, c := range children {
		if i < len(subs) && subs[i] != nil {
			if m.Subs == nil {
				m.Subs = make([]*MergedChildNR, len(children))
			}
			b, err := blankRecord(c, subs[i])
			if err != nil {
				return nil, err
			}
			m.Subs[i] = b
			m.Deferred = append(m.Deferred, DeferredReveal{})
			continue
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
	return m, nil
}

// deferredShapes caches a leaf's deferred claims' shape (zero values) by size and rate.
var deferredShapes shapeCache // [2]int → DeferredReveal

// deferredShape is a leaf's deferred claims with every value zero: their lengths.
func deferredShape(st flows.Statement) (DeferredReveal, error) {
	key := [2]int{st.N, st.LogInvRate}
	if v, ok := deferredShapes.Load(key); ok {
		d := v.(DeferredReveal)
		// Fresh lists: the cached ones are never handed out to be written.
		d.ChiIn, d.S, d.ChiInPrime = make([]field.E, len(d.ChiIn)), make([]field.E, len(d.S)), make([]field.E, len(d.ChiInPrime))
		d.Tau, d.ChiOut = make([]field.E, len(d.Tau)), make([]field.E, len(d.ChiOut))
		return d, nil
	}
	harness, _ := nativeTapeInputs(nil, nil, nil)
	ct, err := NewChildTape(st, harness)
	if err != nil {
		return DeferredReveal{}, err
	}
	d := DeferredReveal{ChiIn: make([]field.E, len(ct.ChiIn)), S: make([]field.E, len(ct.S)), ChiInPrime: make([]field.E, len(ct.ChiInPrime)),
		Tau: make([]field.E, len(ct.Tau)), ChiOut: make([]field.E, len(ct.ChiOut))}
	deferredShapes.Store(key, d)
	return deferredShape(st)
}

func scheduleOf(steps []TapeStep) []TapeStep {
	out := make([]TapeStep, len(steps))
	for i, s := range steps {
		out[i] = TapeStep{Kind: s.Kind, Tag: s.Tag}
	}
	return out
}

// nrBatchOut is a merged child's batch replayed: its key claim's point and value and
// its block claims.
type nrBatchOut struct {
	keyPt  []Lin
	keyV   Lin
	blocks tapeBlockOut
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
	return st, sb, s.batchOn(st, sb, in.Hint), nil
}

// batchOn replays the child's MergeBatchLabelNR transcript after its absorbed string:
// its children's key claims, read from the atoms in the statement's order (per leaf:
// z, chi_in, s, chi_in′, τ, chi_out, VA, VB, key; per merged child its record's
// lists), then its block claims (blocksOn, with the leaves' matrix claims; hint: the
// replay's hints).
func (s *nrSub) batchOn(st *SegmentsTape, sb *tapeTr, hint func(h int) Lin) nrBatchOut {
	t, atoms := st.Tape, st.Atoms
	childBlocks := make([]*tapeBlockOut, len(s.m.Children))
	childHints := make([]*tapeHints, len(s.m.Children))
	leaves := make([]*TapeMatrixClaim, len(s.m.Children))
	var tkeys []TapeTableClaim
	next := func(n int) []Lin { out := atoms[:n]; atoms = atoms[n:]; return out }
	off := 0
	for i, d := range s.m.Deferred {
		if mc := s.m.sub(i); mc != nil {
			// A merged child's hints' points and values (claims of the block batch), its
			// batched key claim's point and value, its block claims; its own merged
			// children's lists follow, which the batch does not read.
			h := &tapeHints{points: make([][]Lin, len(mc.Points))}
			for u := range mc.Points {
				h.points[u] = next(len(mc.Points[u]))
			}
			h.values = next(len(mc.Values))
			childHints[i] = h
			keyPt, keyV := next(len(mc.KeyPoint)), next(1)[0]
			wl := s.kt.T.W.Log
			tkeys = append(tkeys, TapeTableClaim{Tau: keyPt[:wl], Chi: keyPt[wl:], Offset: off, N: s.m.Children[i].N, Value: keyV})
			b := mc.Blocks
			childBlocks[i] = &tapeBlockOut{rRow: next(len(b.RRow)), rCol: next(len(b.RCol)), va: next(len(b.VA)), vb: next(len(b.VB)), rAddr: next(len(b.RAddr))}
			next(flatLen(mc.subLists()))
			off += s.m.Children[i].N
			continue
		}
		z := next(1)[0]
		chiIn, sl, chiInPrime, tau, chiOut := next(len(d.ChiIn)), next(len(d.S)), next(len(d.ChiInPrime)), next(len(d.Tau)), next(len(d.ChiOut))
		v := next(3)
		leaves[i] = &TapeMatrixClaim{RowLow: t.Lagrange(1<<lincheck.KSkip, z), RowHigh: chiIn, ColLow: sl, ColHigh: chiInPrime, VA: v[0], VB: v[1]}
		tkeys = append(tkeys, TapeTableClaim{Tau: tau, Chi: chiOut, Offset: off, N: s.m.Children[i].N, Value: v[2]})
		off += s.m.Children[i].N
	}
	var o nrBatchOut
	o.keyPt, o.keyV = tapeBatchKeys(t, sb, s.kt.T.W.Log, s.kt.SlotBits, tkeys)
	o.blocks = s.blocksOn(t, sb, st, hint, childBlocks, childHints, leaves)
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
	in.Grind = &TapeGrind{GB: l.gb, Seg: l.grindSeg(), SlotOffset: l.grinds}
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
	index, count := hintPoints(s.keptHints())
	if len(mc.Points) != count || len(mc.Values) != len(s.kept) {
		return 0, fmt.Errorf("%w: child %d: %d carried points and %d values for %d hints at %d points", ErrMerged, c, len(mc.Points), len(mc.Values), len(s.kept), count)
	}
	if b := mc.Blocks; len(b.RRow) != len(out.blocks.rRow) || len(b.RCol) != len(out.blocks.rCol) || len(b.VA) != len(out.blocks.va) || len(b.VB) != len(out.blocks.vb) || len(b.RAddr) != len(out.blocks.rAddr) {
		return 0, fmt.Errorf("%w: child %d: carried block claims of %d kinds at a point of %d coordinates (address %d), %d kinds and %d coordinates (address %d) laid out",
			ErrMerged, c, len(b.VA), len(b.RRow), len(b.RAddr), len(out.blocks.va), len(out.blocks.rRow), len(out.blocks.rAddr))
	}
	k := base
	assertAt := func(what string, xs []Lin, vs []field.E, at int) error {
		if len(xs) != len(vs) {
			return fmt.Errorf("%w: child %d: %d carried values of %s for %d", ErrMerged, c, len(vs), what, len(xs))
		}
		for i := range xs {
			l.assertCarried(what, xs[i], vs[i], at+i)
		}
		return nil
	}
	assert := func(what string, xs []Lin, vs []field.E) error {
		err := assertAt(what, xs, vs, k)
		k += len(vs)
		return err
	}
	// Each point's carried index; every hint's committed point is asserted equal to
	// its carried one (hints sharing a point share its values).
	at := make([]int, count)
	for u := range at {
		at[u] = k
		k += len(mc.Points[u])
	}
	for i, h := range s.kept {
		if err := assertAt("a carried point", st.HintPoint(h), mc.Points[index[i]], at[index[i]]); err != nil {
			return 0, err
		}
	}
	hs := make([]Lin, len(s.kept))
	for i, h := range s.kept {
		hs[i] = hint(h)
	}
	for _, p := range []struct {
		what string
		xs   []Lin
		vs   []field.E
	}{
		{"a carried hint", hs, mc.Values},
		{"the key batch's point", out.keyPt, mc.KeyPoint}, {"the key batch's value", []Lin{out.keyV}, []field.E{mc.KeyValue}},
	} {
		if err := assert(p.what, p.xs, p.vs); err != nil {
			return 0, err
		}
	}
	for _, p := range []struct {
		what string
		xs   []Lin
		vs   []field.E
	}{
		{"the block claims' row point", out.blocks.rRow, mc.Blocks.RRow}, {"the block claims' column point", out.blocks.rCol, mc.Blocks.RCol},
		{"the block claims' A0 values", out.blocks.va, mc.Blocks.VA}, {"the block claims' B0 values", out.blocks.vb, mc.Blocks.VB},
		{"the role claims' address point", out.blocks.rAddr, mc.Blocks.RAddr},
	} {
		if err := assert(p.what, p.xs, p.vs); err != nil {
			return 0, err
		}
	}
	// Nothing of the child's merged children is carried: their records in its
	// statement are atoms its batch, replayed above, reads (their targets lifted into
	// its tree table, docs/recursion.md §6.11); their shapes came with the child's.
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

// subHooks change one step of extractSub: the forging tests' reading of a merged
// child (nil for every product path).
type subHooks struct {
	// batch replaces the traced batch chain (s: the child's layout).
	batch func(s *nrSub) ([]transcript.Step, error)
	// chains edits the traced main and batch chains.
	chains func(main, batch []transcript.Step)
	// carried edits the carried values once computed (tau: the child's relations'
	// batching point on the replayed values).
	carried func(mc *MergedChildNR, s *nrSub, tau []field.E)
}

// extractSub verifies merged child mm natively and reads what its parent proves and
// carries of it: its segments transcript's and batch transcript's runs (one chain
// each), its grinding steps and WHIR queries, and its layout with the carried values
// (MergedChildNR) filled from a replay on the true values.
func extractSub(mm *MergedNR, sh *subHooks) (*childExtract, []TranscriptRun, *nrSub, error) {
	// The child verified natively (all of it: its segments, batch and carried claims),
	// its two transcripts traced.
	x := &childExtract{}
	var batch []transcript.Step
	raw, err := mm.verifyTraced(func(st transcript.Step) {
		if st.OnChain {
			x.chain = append(x.chain, st)
		} else {
			x.grind = append(x.grind, st)
		}
	}, func(st transcript.Step) {
		if st.OnChain {
			batch = append(batch, st)
		}
	})
	if err != nil {
		return nil, nil, nil, err
	}
	blank, err := blankMerged(mm.Message, mm.Epoch, mm.Keys, mm.LogInvRate, mm.Children, mm.Subs)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := newNRSub(blank, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	if sh != nil && sh.batch != nil {
		if batch, err = sh.batch(s); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(x.chain) != len(s.main) || len(batch) != len(s.batch) {
		return nil, nil, nil, fmt.Errorf("%w: the merged child's transcripts have %d and %d steps, its schedules %d and %d", ErrMergeInput, len(x.chain), len(batch), len(s.main), len(s.batch))
	}
	if sh != nil && sh.chains != nil {
		sh.chains(x.chain, batch)
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
	mc := &MergedChildNR{Children: mm.Children, KeyPoint: evs(out.keyPt)}
	if mm.Subs != nil {
		mc.Subs = make([]*MergedChildNR, len(mm.Subs))
		for i, g := range mm.Subs {
			if g != nil {
				mc.Subs[i] = g.trim()
			}
		}
	}
	mc.KeyValue = out.keyV.Eval(value, units)
	mc.Blocks = KindsClaim{RRow: evs(out.blocks.rRow), RCol: evs(out.blocks.rCol), VA: evs(out.blocks.va), VB: evs(out.blocks.vb), RAddr: evs(out.blocks.rAddr)}
	// Every hint's value (the parent's hint segment holds them all); the kept ones and
	// their points are carried.
	index, count := hintPoints(s.keptHints())
	mc.Points = make([][]field.E, count)
	k := 0
	for h, hk := range s.hints {
		pt := evs(st.HintPoint(h))
		v, err := carriedValue(hk, pt, s.shapes, s.ev, places)
		if err != nil {
			return nil, nil, nil, err
		}
		s.hintValues = append(s.hintValues, v)
		if k < len(s.kept) && s.kept[k] == h {
			if mc.Points[index[k]] == nil {
				mc.Points[index[k]] = pt
			}
			mc.Values = append(mc.Values, v)
			k++
		}
	}
	if sh != nil && sh.carried != nil {
		sh.carried(mc, s, evs(st.RelTau))
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

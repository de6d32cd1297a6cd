package recursion

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// Merges with nothing revealed but the children's deferred claims (docs/recursion.md
// §6.4–6.6): the design that reaches a fixed point. Each child's whole verification is
// in the proof: its transcript in transcript blocks pinned to its schedule only and
// chained from the flow label's chaining value, its arithmetic on one shared tape
// (arithmetic and squaring segments), its WHIR queries in no-reveal query blocks
// (grouped by block shape across children), its grinding checks, all tied by
// relations. The statement carries, per child, its size, rate and deferred claims
// (DeferredReveal) or, for a merged child, what the merge carries of it
// (MergedChildNR). A batch (its own transcript, after the statement) reduces the
// children's claims to one claim on the xmss-aggregate circuit's matrices and one
// evaluation of the merged key table, and the segments' matrix claims with the merged
// children's block claims to one claim per block circuit at one point (§6.9), which the
// verifier checks natively.

// MergeLabelNR is the transcript label of a no-reveal merged proof.
const MergeLabelNR = "leanpipe-xmss-merge-nr-v6"

// MergeBatchLabelNR is the transcript label of the batch of a no-reveal merge's
// carried claims (the children's matrix claims into one, their key claims into one
// evaluation of the merged key table, the segments' and the merged children's block
// claims into one per block circuit), which absorbs the segmented proof's layout and
// statement first.
const MergeBatchLabelNR = "leanpipe-xmss-merge-nr-batch-v6"

const mergeTagNR = "leanpipe/xmss-merge-nr/v1"

// MergedNR is a no-reveal merged proof with its statement.
type MergedNR struct {
	Message  xmss.Message
	Epoch    uint32
	Keys     []xmss.PublicKey
	Children []ChildInfo
	Deferred []DeferredReveal
	// Subs, beside Children, are what the proof carries of each merged child (nil for
	// a leaf, whose Deferred entry holds its claims; a merged child's Deferred entry is
	// empty). Nil when every child is a leaf.
	Subs       []*MergedChildNR
	LogInvRate int
	Proof      *transcript.Proof
	// Batch reduces the children's carried claims to one claim on the xmss-aggregate
	// circuit's matrices and one evaluation of the merged key table (docs/recursion.md
	// §5, §6.7), and the segments' matrix claims with the merged children's block
	// claims to one claim per block circuit (§6.9): the root evaluates those natively,
	// whatever the child count and depth.
	Batch *transcript.Proof
	// Took is the prover's wall time and Profile where it went (not part of the proof).
	Took    time.Duration
	Profile MergeProfile
}

// childStatement is child i's statement: its keys from the merged list.
func (m *MergedNR) childStatement(i int) (flows.Statement, error) {
	return childStatementAt(m.Message, m.Epoch, m.Keys, m.Children, i)
}

// keysTagNR starts the digest of a no-reveal merged statement's keys.
const keysTagNR = "leanpipe/xmss-merge-nr/keys/v0"

// keysDigest is BLAKE2s-256 of keysTagNR, the key count (u64 LE) and the keys in order:
// what a no-reveal merged statement absorbs in place of its keys. Each verifier computes
// it from the keys it is given, so the transcript binds them as before; a parent's
// circuit absorbs 32 bytes a merged child instead of 32 a key.
func keysDigest(keys []xmss.PublicKey) blake2s.Digest {
	b := make([]byte, 0, len(keysTagNR)+8+32*len(keys))
	b = append(b, keysTagNR...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(keys)))
	for _, pk := range keys {
		k := pk.Bytes()
		b = append(b, k[:]...)
	}
	return blake2s.Sum256(b)
}

// shapeTagNR starts the digest of a merged child's shape.
const shapeTagNR = "leanpipe/xmss-merge-nr/shape/v0"

// shapeDigest is BLAKE2s-256 of shapeTagNR and the merged child's shape: its children's
// count, then each one's size and rate (u64 LE each) followed by its own shape (a
// leaf's: a zero count), depth first. A no-reveal statement absorbs it in place of the
// shape, whose encoding doubles with each level of a binary tree.
func shapeDigest(mc *MergedChildNR) blake2s.Digest {
	b := []byte(shapeTagNR)
	u64 := func(v int) { b = binary.LittleEndian.AppendUint64(b, uint64(v)) }
	var shape func(mc *MergedChildNR)
	shape = func(mc *MergedChildNR) {
		if mc == nil {
			u64(0)
			return
		}
		u64(len(mc.Children))
		for j, g := range mc.Children {
			u64(g.N)
			u64(g.LogInvRate)
			shape(mc.sub(j))
		}
	}
	shape(mc)
	return blake2s.Sum256(b)
}

// statementBytes is what the proof's transcript absorbs after the segments' layout:
// the tag, message, epoch, the key count and the keys' digest (keysDigest), the proof's
// rate, the children's sizes and rates (a merged child's shape by its digest,
// shapeDigest), and each child's deferred claims.
func (m *MergedNR) statementBytes() []byte {
	var b bytes.Buffer
	b.WriteString(mergeTagNR)
	b.Write(m.Message[:])
	b.Write(binary.LittleEndian.AppendUint32(nil, m.Epoch))
	u64 := func(v int) { b.Write(binary.LittleEndian.AppendUint64(nil, uint64(v))) }
	// The keys by their digest: a parent replays this transcript in its circuit, where
	// the keys' bytes would cost compressions in proportion to the signers below
	// (docs/recursion.md §6.12).
	u64(len(m.Keys))
	d := keysDigest(m.Keys)
	b.Write(d[:])
	u64(m.LogInvRate)
	u64(len(m.Children))
	for i, c := range m.Children {
		u64(c.N)
		u64(c.LogInvRate)
		// A merged child's shape (its children's sizes and rates and theirs below) by
		// its digest, which does not grow with the tree below (§6.12); a leaf: no
		// children.
		if mc := m.sub(i); mc != nil {
			u64(len(mc.Children))
			d := shapeDigest(mc)
			b.Write(d[:])
		} else {
			u64(0)
		}
	}
	// The carried claims: every list's length first, then zeros up to a whole
	// transcript step of the absorbed string (the layout, then this statement), then
	// the values, one E (24 bytes) to a step, so that a parent reads each as one
	// committed word triple of its transcript blocks (docs/recursion.md §6.7).
	lists := m.carriedLists()
	for _, v := range lists {
		u64(len(v))
	}
	segs, err := m.segmentCount()
	if err != nil {
		segs = 0 // a statement no layout fits: Verify refuses it before its bytes matter
	}
	for (flows.LayoutLen(segs)+b.Len())%24 != 0 {
		b.WriteByte(0)
	}
	for _, v := range lists {
		for _, x := range v {
			b.Write(appendE(nil, x))
		}
	}
	return b.Bytes()
}

// carriedLists are the carried claims' lists in the statement's order: per child, a
// leaf's deferred claims or what is carried of a merged child.
func (m *MergedNR) carriedLists() [][]field.E {
	var out [][]field.E
	for i, d := range m.Deferred {
		if sub := m.sub(i); sub != nil {
			out = append(out, sub.lists()...)
			continue
		}
		out = append(out, []field.E{d.Z}, d.ChiIn, d.S, d.ChiInPrime, d.Tau, d.ChiOut, []field.E{d.VA, d.VB, d.Key})
	}
	return out
}

// sub is what the proof carries of child i if it is a merged proof, else nil.
func (m *MergedNR) sub(i int) *MergedChildNR {
	if i < len(m.Subs) {
		return m.Subs[i]
	}
	return nil
}

// nrLevelKey is a WHIR level's query block shape: level 0 or not, the path depth,
// the induced point's length (nrQuery's key).
func nrLevelKey(cfg *open.Config, lv int) [3]int {
	ml := cfg.MessageLog(lv)
	key := [3]int{0, ml + cfg.LogInvRates[lv], ml}
	if lv == 0 {
		key[0] = 1
	}
	return key
}

// segmentCount is the number of segments of the merge: transcript, products,
// squares, hints, one query segment per block shape and one more per cut group
// (splitPlan, known once a layout of this shape has been built), grinding.
func (m *MergedNR) segmentCount() (int, error) {
	shapes := map[[3]int]bool{}
	for i, c := range m.Children {
		cfg, err := childConfig(c, m.sub(i))
		if err != nil {
			return 0, err
		}
		for lv := range cfg.Levels() {
			shapes[nrLevelKey(cfg, lv)] = true
		}
	}
	key := layoutKey(m.Children, m.sub)
	plan, ok := splitPlans.Load(key)
	if !ok {
		if _, _, err := m.layout(); err != nil {
			return 0, err
		}
		if plan, ok = splitPlans.Load(key); !ok {
			return 0, fmt.Errorf("%w: no layout of this shape", ErrMerged)
		}
	}
	cuts := 0
	for _, c := range plan.([]bool) {
		if c {
			cuts++
		}
	}
	return 5 + len(shapes) + cuts, nil
}

// childConfig is a child's WHIR configuration: a leaf's from its size and rate, a
// merged child's from its segments' layout (cached by its shape).
func childConfig(c ChildInfo, sub *MergedChildNR) (*open.Config, error) {
	if sub != nil {
		return subConfig(c, sub)
	}
	sh, err := aggregate.Flow.Shape(c.N, c.LogInvRate)
	if err != nil {
		return nil, err
	}
	return open.DeriveConfig(sh.StackLog, sh.LogInvRate)
}

// nrLayout is a no-reveal merge's segments and relations as both sides derive them
// from the statement: segment 0 the transcript blocks, 1 the products, 2 the squares,
// 3 the hints (each child's carried matrix values and key term as committed values,
// tied to the statement's by relations whose values alone carry them), then one query
// segment per block shape, then the grinding blocks.
type nrLayout struct {
	tb     *TranscriptBlock
	gb     *GrindBlock
	tape   *Tape
	tapes  []*ChildTape
	steps  [][]TapeStep
	runs   []int // per child, its transcript blocks
	groups []*nrGroup
	// querySegs is the number of the groups' segments (segments 4 on).
	querySegs int
	grinds    int
	rels      []flows.Relation
	arith     TapeLayout
	label     [4]uint64
	queries   [][]TapeQueryLevel
	// carriedRels lists, per relation that takes a carried value as its value, the
	// relation's index and the value's index in the statement's carried list (child
	// by child: a leaf's z, chi_in, s, chi_in′, τ, chi_out, VA, VB, key; a merged
	// child's MergedChildNR.lists); carriedAt, per assertion, its carried value's index
	// (−1: none).
	carriedRels [][2]int
	carriedAt   []int
	// carried is the statement's carried list, flat (what carriedRels indexes).
	carried []field.E
	// hints is the number of committed hints (segment 3).
	hints int
}

// nrHints is the hint block: carried values as committed inputs (segment 3).
var nrHints = sync.OnceValue(func() *SquareBlock { return squareLayout(15) })

// carriedCount is the number of carried values of one child's deferred claims.
func (d *DeferredReveal) carriedCount() int {
	return 1 + len(d.ChiIn) + len(d.S) + len(d.ChiInPrime) + len(d.Tau) + len(d.ChiOut) + 3
}

// nrGroup is the queries of the levels of one block shape, in child order, proved in
// one segment or split in two (pieces: the live blocks of segments seg, seg+1).
type nrGroup struct {
	qb      *QueryBlock
	seg     int
	members []nrMember
	n       int
	pieces  []int
}

// groupPieces is how a query group of n blocks can be cut into segments: one segment,
// or, when the blocks past the largest power of two p ≤ n pad to fewer than p slots, a
// segment of p blocks and one of the rest. A segment pads its blocks to a power of
// two (at least 8), so 90 blocks take 64 + 32 slots rather than 128. A cut adds a
// segment (its zerocheck, lincheck and claim: proof bytes), so a layout cuts groups
// only when that brings its stack under the next lower power of two (splitPlan).
func groupPieces(n int) []int {
	p := 1 << (bits.Len(uint(n)) - 1)
	if r := n - p; r > 0 && 1<<flows.SlotLog(r) < p {
		return []int{p, r}
	}
	return []int{n}
}

// place is member mb's query placement: the slots from its offset on, across the
// cut when it straddles one.
func (g *nrGroup) place(mb nrMember) TapeQueryLevel {
	ql := TapeQueryLevel{QB: g.qb, Seg: g.seg, SlotOffset: mb.offset}
	if len(g.pieces) == 1 {
		return ql
	}
	p := g.pieces[0]
	switch {
	case mb.offset >= p:
		ql.Seg, ql.SlotOffset = g.seg+1, mb.offset-p
	case mb.offset+mb.n > p:
		ql.Split, ql.Seg2 = p-mb.offset, g.seg+1
	}
	return ql
}

type nrMember struct{ child, level, offset, n int }

// The block circuits' layouts, shared by every no-reveal merge of a process (a
// prover's segments compile them on first need; a verifier evaluates them described).
var (
	nrArith   = sync.OnceValue(func() *ArithBlock { return arithLayout(16) })
	nrSquare  = sync.OnceValue(func() *SquareBlock { return squareLayout(15) })
	nrGrind   = sync.OnceValue(grindLayoutNR)
	nrQueries sync.Map // [3]int{level0, depth, pointLen} → *QueryBlock
)

func nrQuery(k [3]int) *QueryBlock {
	if qb, ok := nrQueries.Load(k); ok {
		return qb.(*QueryBlock)
	}
	qb, _ := nrQueries.LoadOrStore(k, queryLayoutNR(k[0] == 1, k[1], k[2]))
	return qb.(*QueryBlock)
}

// buildNR lays out the merge of leaves of statements sts with deferred claims ds.
func buildNR(sts []flows.Statement, ds []DeferredReveal) (*nrLayout, error) {
	return buildNRSubs(sts, ds, nil, nil)
}

// splitPlans caches, by the children's shapes (layoutKey), which query groups a
// merge's layout cuts in two (splitPlan): a layout that does not know it is built
// uncut first, then again with its cuts.
var splitPlans sync.Map

// layoutKey is the shape of a merge's children, which fixes its layout: each child's
// size and rate and, for a merged child, its children's, recursively (shapeKey).
func layoutKey(children []ChildInfo, sub func(int) *MergedChildNR) string {
	var b strings.Builder
	for i, c := range children {
		b.WriteString(shapeKey(c, sub(i)))
	}
	return b.String()
}

// splitPlan is, per query group of an uncut layout, whether the layout cuts it
// (groupPieces): none when the stack's words are a power of two already or no set of
// cuts brings them under the next lower one; else the cuts that save the most words
// first (group order on ties) until they do (docs/recursion.md §6.18).
func (l *nrLayout) splitPlan() []bool { return l.splitPlanOf(l.shapes()) }

// splitPlanOf is splitPlan for the uncut layout's segment shapes.
func (l *nrLayout) splitPlanOf(shapes []flows.SegmentShape) []bool {
	words := func(logSize, n int) int { return 1 << (logSize + flows.SlotLog(n)) }
	total := 0
	for _, sh := range shapes {
		total += words(sh.Circuit.LogSize(), sh.N)
	}
	target := 1 << (bits.Len(uint(total-1)) - 1)
	type cut struct{ g, saves int }
	var cuts []cut
	for k, g := range l.groups {
		if p := groupPieces(g.n); len(p) == 2 {
			ls := g.qb.LogSize()
			cuts = append(cuts, cut{k, words(ls, g.n) - words(ls, p[0]) - words(ls, p[1])})
		}
	}
	slices.SortStableFunc(cuts, func(a, b cut) int { return b.saves - a.saves })
	plan := make([]bool, len(l.groups))
	for _, c := range cuts {
		if total <= target {
			break
		}
		plan[c.g], total = true, total-c.saves
	}
	if total > target {
		return make([]bool, len(l.groups))
	}
	return plan
}

// buildNRSubs lays out the merge of children of statements sts: leaves with deferred
// claims ds, and merged children where subs holds one (docs/recursion.md §6.7), its
// query groups cut as splitPlan says. Its relations are cut from sc's arrays (nil: new
// ones), for a verifier that drops the layout before it uses sc again.
func buildNRSubs(sts []flows.Statement, ds []DeferredReveal, subs []*nrSub, sc *relScratch) (*nrLayout, error) {
	children := make([]ChildInfo, len(sts))
	for i, st := range sts {
		children[i] = ChildInfo{N: st.N, LogInvRate: st.LogInvRate}
	}
	key := layoutKey(children, func(i int) *MergedChildNR {
		if i < len(subs) && subs[i] != nil {
			return &MergedChildNR{Children: subs[i].m.Children, Subs: subs[i].m.Subs}
		}
		return nil
	})
	if plan, ok := splitPlans.Load(key); ok {
		return buildNRPlan(sts, ds, subs, sc, plan.([]bool))
	}
	if !slices.ContainsFunc(subs, func(s *nrSub) bool { return s != nil }) {
		plan, err := leafSplitPlan(sts)
		if err != nil {
			return nil, err
		}
		splitPlans.Store(key, plan)
		return buildNRPlan(sts, ds, subs, sc, plan)
	}
	l, err := buildNRPlan(sts, ds, subs, sc, nil)
	if err != nil {
		return nil, err
	}
	plan := l.splitPlan()
	splitPlans.Store(key, plan)
	if !slices.Contains(plan, true) {
		return l, nil
	}
	return buildNRPlan(sts, ds, subs, sc, plan)
}

// buildNRPlan is buildNRSubs with the groups cut as plan says (nil: none).
func buildNRPlan(sts []flows.Statement, ds []DeferredReveal, subs []*nrSub, sc *relScratch, plan []bool) (*nrLayout, error) {
	l := newNRLayout()
	l.label = [4]uint64(transcript.NewVerifier(nil, []byte(aggregate.FlowLabel), nil).State())
	sub := func(c int) *nrSub {
		if c < len(subs) {
			return subs[c]
		}
		return nil
	}
	if err := l.groupQueries(sts, sub, plan); err != nil {
		return nil, err
	}
	runOffset := 0
	carriedBase := 0
	// grown is what a leaf's replay added to the tape, by its size and rate: the next
	// leaf of that shape reserves it at once rather than growing the tape's lists
	// step by step (a one-shot verifier's layout spent a third of its time there).
	grown := map[[2]int][2]int{}
	for c, st := range sts {
		base := l.hints
		hint := func(h int) Lin { return l.hintAt(base + h) }
		if s := sub(c); s != nil {
			l.steps = append(l.steps, s.main, s.batch)
			l.runs = append(l.runs, runsOf(s.main)+runsOf(s.batch))
			if _, err := l.addSub(c, s, runOffset, carriedBase, hint); err != nil {
				return nil, err
			}
			for _, v := range s.carried.lists() {
				carriedBase += len(v)
			}
			l.hints += len(s.hints)
			runOffset += l.runs[c]
			continue
		}
		in := l.leafInputs(c, l.tape, runOffset, base, l.grinds)
		shape := [2]int{st.N, st.LogInvRate}
		if g, ok := grown[shape]; ok {
			l.tape.Reserve(g[0], g[1])
		}
		units, asserts := len(l.tape.Units), len(l.tape.Asserts)
		ct, err := NewChildTape(st, in)
		if err != nil {
			return nil, fmt.Errorf("%w: child %d: %w", ErrMerged, c, err)
		}
		grown[shape] = [2]int{len(l.tape.Units) - units, len(l.tape.Asserts) - asserts}
		l.steps = append(l.steps, scheduleOf(ct.Steps))
		l.runs = append(l.runs, runsOf(ct.Steps))
		for len(l.carriedAt) < len(l.tape.Asserts) {
			l.carriedAt = append(l.carriedAt, -1)
		}
		if err := ct.AssertDeferred(&ds[c]); err != nil {
			return nil, fmt.Errorf("%w: child %d: %w", ErrMerged, c, err)
		}
		for k := len(l.carriedAt); k < len(l.tape.Asserts); k++ {
			l.carriedAt = append(l.carriedAt, carriedBase+k-(len(l.tape.Asserts)-(ds[c].carriedCount()-3)))
		}
		// The hints equal the carried values (VA, VB, key: the last three).
		for h, v := range []field.E{ds[c].VA, ds[c].VB, ds[c].Key} {
			l.assertCarried("a carried value", hint(h), v, carriedBase+ds[c].carriedCount()-3+h)
		}
		carriedBase += ds[c].carriedCount()
		l.hints += 3
		l.tapes = append(l.tapes, ct)
		l.grinds += len(ct.Levels)
		l.rels = append(l.rels, l.tb.ChainRelations(0, runOffset, l.runs[c], l.label)...)
		l.rels = append(l.rels, ct.Words...)
		runOffset += l.runs[c]
	}
	rels, err := l.tape.relationsInto(l.arith, sc, len(l.rels))
	if err != nil {
		return nil, err
	}
	// Relations list the units' operands (two per product, one per square), then the
	// assertions that are not constant, in order.
	r := 2*l.tape.Products() + l.tape.Squares()
	for a, as := range l.tape.Asserts {
		if as.Form.IsConst() {
			continue
		}
		if a < len(l.carriedAt) && l.carriedAt[a] >= 0 {
			l.carriedRels = append(l.carriedRels, [2]int{r, l.carriedAt[a]})
		}
		r++
	}
	l.rels = append(rels, l.rels...)
	for c, d := range ds {
		if s := sub(c); s != nil {
			l.carried = append(l.carried, flatten(s.carried.lists()...)...)
			continue
		}
		l.carried = append(append(l.carried, d.Z), flatten(d.ChiIn, d.S, d.ChiInPrime, d.Tau, d.ChiOut, []field.E{d.VA, d.VB, d.Key})...)
	}
	return l, nil
}

// newNRLayout is an empty layout on the shared blocks.
func newNRLayout() *nrLayout {
	return &nrLayout{tb: sharedTranscriptBlock(), gb: nrGrind(), tape: &Tape{},
		arith: TapeLayout{F: nrArith(), FSeg: 1, S: nrSquare(), SSeg: 2}}
}

// hintAt is committed hint i (segment 3).
func (l *nrLayout) hintAt(i int) Lin {
	hb := nrHints()
	s, u := hb.At(i)
	return l.tape.Input(3, hb.SegmentWord(s, hb.InWord(u)))
}

// leafInputs are the inputs of leaf c's replay onto tape: its stream from the
// transcript blocks' run runOffset on, its hints from hint base on, its query
// levels where the groups place them, its grinding blocks from slot slotOffset on.
// buildNRPlan and leafUncut take them from here alike: the split plan's counts hold
// only for the replay the layout then makes.
func (l *nrLayout) leafInputs(c int, tape *Tape, runOffset, base, slotOffset int) TapeInputs {
	in := TranscriptInputs(l.tb, 0, runOffset, func(h int) Lin { return l.hintAt(base + h) })
	in.Tape, in.Levels = tape, l.queries[c]
	in.Grind = &TapeGrind{GB: l.gb, Seg: l.grindSeg(), SlotOffset: slotOffset}
	return in
}

// groupQueries sets l's query groups, from the children's WHIR profiles (each
// group cut as plan says; nil: none), and each child's query levels' places.
func (l *nrLayout) groupQueries(sts []flows.Statement, sub func(int) *nrSub, plan []bool) error {
	// The children's WHIR profiles fix the query groups. Their schedules, which fix
	// the transcript blocks' offsets, come with their replays (buildNRPlan): a
	// merged child's from its shape, a leaf's from its replay (its runs fix only
	// the offsets of the children after it), with no dry replay of its own.
	byKey := map[[3]int]*nrGroup{}
	l.queries = make([][]TapeQueryLevel, len(sts))
	for c, st := range sts {
		var cfg *open.Config
		if s := sub(c); s != nil {
			cfg = s.cfg
		} else {
			var err error
			if cfg, err = childConfig(ChildInfo{N: st.N, LogInvRate: st.LogInvRate}, nil); err != nil {
				return err
			}
		}
		for lv := range cfg.Levels() {
			key := nrLevelKey(cfg, lv)
			g := byKey[key]
			if g == nil {
				g = &nrGroup{qb: nrQuery(key)}
				byKey[key] = g
				l.groups = append(l.groups, g)
			}
			g.members = append(g.members, nrMember{child: c, level: lv, offset: g.n, n: cfg.Queries[lv]})
			g.n += cfg.Queries[lv]
		}
	}
	l.querySegs = 0
	for k, g := range l.groups {
		g.seg, g.pieces = 4+l.querySegs, []int{g.n}
		if k < len(plan) && plan[k] {
			g.pieces = groupPieces(g.n)
		}
		l.querySegs += len(g.pieces)
	}
	for _, g := range l.groups {
		for _, mb := range g.members {
			for len(l.queries[mb.child]) <= mb.level {
				l.queries[mb.child] = append(l.queries[mb.child], TapeQueryLevel{})
			}
			l.queries[mb.child][mb.level] = g.place(mb)
		}
	}
	return nil
}

// leafSplitPlan is buildNRSubs' split plan for a merge of leaves only (sts), found
// without laying the merge out uncut, which a process that has not seen its shape
// (a one-shot verifier) would otherwise do before laying it out cut: about a
// quarter of such a verification (docs/recursion.md §6.21). The plan needs only
// the uncut layout's segment sizes, and a leaf adds to any layout the same
// products, squares, transcript schedule and query levels (the atoms of its replay
// depend on its place, their number does not; TestLeafSplitPlan checks the plan
// against the uncut layout's), so one replay per distinct leaf shape, on a tape of
// its own, gives them.
func leafSplitPlan(sts []flows.Statement) ([]bool, error) {
	l, products, squares, err := leafUncut(sts)
	if err != nil {
		return nil, err
	}
	return l.splitPlanOf(l.shapesWith(products, squares)), nil
}

// leafUncut is the uncut layout of a merge of leaves (sts) as far as its segment
// shapes go: its query groups, schedules, hints and grinding blocks, and its tape's
// product and square counts (the tape itself left empty).
func leafUncut(sts []flows.Statement) (l *nrLayout, products, squares int, err error) {
	l = newNRLayout()
	if err := l.groupQueries(sts, func(int) *nrSub { return nil }, nil); err != nil {
		return nil, 0, 0, err
	}
	type leafCounts struct {
		steps                     []TapeStep
		products, squares, levels int
	}
	seen := map[[2]int]*leafCounts{}
	for c, st := range sts {
		key := [2]int{st.N, st.LogInvRate}
		lc := seen[key]
		if lc == nil {
			ct, err := NewChildTape(st, l.leafInputs(c, &Tape{}, 0, 0, 0))
			if err != nil {
				return nil, 0, 0, fmt.Errorf("%w: child %d: %w", ErrMerged, c, err)
			}
			lc = &leafCounts{steps: scheduleOf(ct.Steps), products: ct.Tape.Products(), squares: ct.Tape.Squares(), levels: len(ct.Levels)}
			seen[key] = lc
		}
		l.steps = append(l.steps, lc.steps)
		products, squares = products+lc.products, squares+lc.squares
		l.hints += 3
		l.grinds += lc.levels
	}
	return l, products, squares, nil
}

// blankValues are the merge's relations' values with every carried value taken out
// (a relation's value is its constant part plus its carried value): its row of a tree
// table, the values a parent lays it out with (docs/recursion.md §6.11).
func (l *nrLayout) blankValues() (sparseRow, error) {
	vals := make([]field.E, len(l.rels))
	for r, rel := range l.rels {
		vals[r] = rel.Value
	}
	for _, p := range l.carriedRels {
		r, k := p[0], p[1]
		if r < 0 || r >= len(vals) || k < 0 || k >= len(l.carried) {
			return sparseRow{}, fmt.Errorf("%w: carried value %d of %d on relation %d of %d", ErrMerged, k, len(l.carried), r, len(vals))
		}
		vals[r] = vals[r].Add(l.carried[k])
	}
	return nonzeroRow(vals), nil
}

// runsOf is the number of transcript block runs a schedule takes.
func runsOf(steps []TapeStep) int { return (len(steps) + TranscriptSteps - 1) / TranscriptSteps }

// layout lays the merge out as its verifier does: each merged child from its shape
// and keys, with what the proof carries of it.
func (m *MergedNR) layout() (*nrLayout, []*nrSub, error) { return m.layoutWith(nil, nil) }

// layoutWith is layout with the merged children's layouts handed to editSubs (if not
// nil) before the merge's is built on them, and the merge's relations cut from sc's
// arrays (nil: new ones).
func (m *MergedNR) layoutWith(editSubs func([]*nrSub), sc *relScratch) (*nrLayout, []*nrSub, error) {
	if len(m.Children) < 2 || len(m.Children) > MaxChildren || len(m.Deferred) != len(m.Children) ||
		(m.Subs != nil && len(m.Subs) != len(m.Children)) {
		return nil, nil, fmt.Errorf("%w: %d children, %d deferred claim sets, %d merged children's claims", ErrMerged, len(m.Children), len(m.Deferred), len(m.Subs))
	}
	for i := range m.Children {
		if sc := m.sub(i); sc != nil {
			for _, g := range sc.Subs {
				if g != nil {
					if err := g.checkTrimmed(); err != nil {
						return nil, nil, err
					}
				}
			}
		}
	}
	sts := make([]flows.Statement, len(m.Children))
	subs := make([]*nrSub, len(m.Children))
	off := 0
	for i, c := range m.Children {
		var err error
		if sts[i], err = m.childStatement(i); err != nil {
			return nil, nil, err
		}
		if sc := m.sub(i); sc != nil {
			blank, err := blankMerged(m.Message, m.Epoch, m.Keys[off:off+c.N], c.LogInvRate, sc.Children, sc.Subs)
			if err != nil {
				return nil, nil, fmt.Errorf("child %d: %w", i, err)
			}
			if subs[i], err = newNRSub(blank, sc); err != nil {
				return nil, nil, fmt.Errorf("child %d: %w", i, err)
			}
		}
		off += c.N
	}
	if editSubs != nil {
		editSubs(subs)
	}
	l, err := buildNRSubs(sts, m.Deferred, subs, sc)
	return l, subs, err
}

// shapes are the verifier's segments.
func (l *nrLayout) shapes() []flows.SegmentShape {
	return l.shapesWith(l.tape.Products(), l.tape.Squares())
}

// shapesWith is shapes with the tape's product and square counts given.
func (l *nrLayout) shapesWith(products, squares int) []flows.SegmentShape {
	t := &lincheck.Table{W: l.tb.ScheduleWindow()}
	for _, steps := range l.steps {
		t.Rows = append(t.Rows, l.tb.ScheduleTable(steps).Rows...)
	}
	out := []flows.SegmentShape{{Circuit: l.tb.Matrices(), N: len(t.Rows), Public: t},
		l.arith.F.Shape(products), l.arith.S.Shape(squares), nrHints().Shape(l.hints)}
	for _, g := range l.groups {
		var rows [][]uint64
		for _, mb := range g.members {
			rows = append(rows, g.qb.NRTable(mb.n).Rows...)
		}
		for _, n := range g.pieces {
			qt := &lincheck.Table{W: g.qb.NRWindow(), Rows: rows[:n:n]}
			out = append(out, flows.SegmentShape{Circuit: g.qb.Matrices(), N: n, Public: qt})
			rows = rows[n:]
		}
	}
	return append(out, l.gb.NRShape(l.grinds))
}

// MergeNR proves leaves (2 to MaxChildren, one message and epoch, distinct keys)
// into one no-reveal merged proof at logInvRate.
func MergeNR(children []MergeChild, logInvRate int, workers par.Workers) (*MergedNR, error) {
	cs := make([]NRChild, len(children))
	for i := range children {
		cs[i].Leaf = &children[i]
	}
	return MergeNRChildren(cs, logInvRate, workers)
}

// NRChild is a child of a no-reveal merge: a leaf proof with its statement, or a
// no-reveal merged proof of leaves.
type NRChild struct {
	Leaf   *MergeChild
	Merged *MergedNR
}

// MergeNRChildren proves children (2 to MaxChildren leaves or merged proofs of
// leaves, one message and epoch, distinct keys) into one no-reveal merged proof at
// logInvRate. Every child is verified natively first; an invalid one is refused
// naming it.
func MergeNRChildren(children []NRChild, logInvRate int, workers par.Workers) (*MergedNR, error) {
	return mergeNRWith(children, logInvRate, workers, nil)
}

// nrHooks change one step of a no-reveal merge's prover: the forging tests' lying
// provers (nil for every product path). With hooks, the merge is laid out from its
// (possibly edited) statement as its verifier lays it out.
type nrHooks struct {
	// extract replaces merged child i's extraction (extractSub).
	extract func(i int, mm *MergedNR) (*childExtract, []TranscriptRun, *nrSub, error)
	// statement edits the statement before the layout; subs the merged children's
	// layouts before the parent's is built on them.
	statement func(m *MergedNR)
	subs      func(subs []*nrSub)
	// runs edits child i's transcript runs, hints the hint segment's values.
	runs  func(i int, runs []TranscriptRun) []TranscriptRun
	hints func(hv []field.E)
	// queries edits a query group's inputs (in slot order, across its pieces) before
	// its segments are built.
	queries func(g *nrGroup, in []*QueryInput)
	// filled sees the layout and every segment's packed words before the proof;
	// returning true stops there (the merge then has no proof).
	filled func(l *nrLayout, words [][]field.K) bool
}

func mergeNRWith(children []NRChild, logInvRate int, workers par.Workers, h *nrHooks) (*MergedNR, error) {
	start := time.Now()
	if len(children) < 2 || len(children) > MaxChildren {
		return nil, fmt.Errorf("%w: %d children (2 to %d)", ErrMergeInput, len(children), MaxChildren)
	}
	m := &MergedNR{LogInvRate: logInvRate}
	read := make([]MergeChild, len(children))
	for i, c := range children {
		switch {
		case c.Leaf != nil && c.Merged == nil:
			read[i] = *c.Leaf
		case c.Merged != nil && c.Leaf == nil:
			st, err := c.Merged.statement()
			if err != nil {
				return nil, &ChildError{Index: i, Cause: err}
			}
			read[i] = MergeChild{Statement: st}
		default:
			return nil, fmt.Errorf("%w: child %d is not one leaf or one merged proof", ErrMergeInput, i)
		}
	}
	var err error
	if m.Message, m.Epoch, m.Keys, m.Children, err = readChildren(read); err != nil {
		return nil, err
	}
	// Each child verified natively and read, one per worker; a leaf's deferred claims
	// replayed there too.
	m.Deferred = make([]DeferredReveal, len(children))
	defErrs := make([]error, len(children))
	xs := make([]*childExtract, len(children))
	streams := make([][]field.E, len(children))
	runs := make([][]TranscriptRun, len(children))
	subs := make([]*nrSub, len(children))
	errs := make([]error, len(children))
	workers.Range(len(children), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if mm := children[i].Merged; mm != nil {
				if h != nil && h.extract != nil {
					xs[i], runs[i], subs[i], errs[i] = h.extract(i, mm)
					continue
				}
				xs[i], runs[i], subs[i], errs[i] = extractSub(mm, nil)
				continue
			}
			xs[i], streams[i], errs[i] = extractChild(children[i].Leaf.Proof, children[i].Leaf.Statement)
			if errs[i] == nil {
				runs[i] = TranscriptRuns(xs[i].chain)
				m.Deferred[i], defErrs[i] = leafDeferred(read[i].Statement, xs[i], streams[i])
			}
		}
	}, par.PerWorker(len(children)))
	if err := workers.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, &ChildError{Index: i, Cause: err}
		}
	}
	for i, err := range defErrs {
		if err != nil {
			return nil, fmt.Errorf("%w: child %d: %w", ErrMergeInput, i, err)
		}
	}
	mark := time.Now()
	lap := func(d *time.Duration) {
		now := time.Now()
		*d, mark = now.Sub(mark), now
	}
	m.Profile.Children = mark.Sub(start)
	sts := make([]flows.Statement, len(children))
	for i, c := range read {
		sts[i] = c.Statement
		if subs[i] != nil {
			if m.Subs == nil {
				m.Subs = make([]*MergedChildNR, len(children))
			}
			m.Subs[i] = subs[i].carried
		}
	}
	var l *nrLayout
	batchSubs := subs
	if h == nil {
		l, err = buildNRSubs(sts, m.Deferred, subs, nil)
	} else {
		if h.statement != nil {
			h.statement(m)
		}
		l, batchSubs, err = m.layoutWith(h.subs, nil)
	}
	if err != nil {
		return nil, err
	}
	lap(&m.Profile.Layout)
	// The segments: the transcript blocks, the query groups and the grinding blocks
	// from the children's traces and openings; the tape's units from their words.
	var allRuns []TranscriptRun
	var grinds []transcript.Step
	var hintValues []field.E
	for i := range m.Children {
		r := runs[i]
		if h != nil && h.runs != nil {
			r = h.runs(i, slices.Clone(r))
		}
		allRuns = append(allRuns, r...)
		grinds = append(grinds, xs[i].grind...)
		if sc := m.sub(i); sc != nil {
			// Every hint's value, the carried ones as the statement carries them.
			hv := slices.Clone(subs[i].hintValues)
			for k, h := range subs[i].kept {
				if k < len(sc.Values) && h < len(hv) {
					hv[h] = sc.Values[k]
				}
			}
			hintValues = append(hintValues, hv...)
		} else {
			d := m.Deferred[i]
			hintValues = append(hintValues, d.VA, d.VB, d.Key)
		}
	}
	if h != nil && h.hints != nil {
		h.hints(hintValues)
	}
	tseg := l.tb.ScheduleSegment(allRuns)
	// Every segment is filled before the proof, which takes them as filled
	// (flows.Segment.Filled): the transcript blocks first (the query blocks' samples
	// read them), then the hints, query and grinding blocks side by side, then the
	// units' segments, whose operands the tape reads from all of those.
	filled := make([][]field.K, l.grindSeg()+1)
	fill := func(at int, seg *flows.Segment, w par.Workers) error {
		f, err := filledSegment(*seg, w)
		if err != nil {
			return err
		}
		filled[at], seg.Filled = f.W, f
		return nil
	}
	if err := fill(0, &tseg, workers); err != nil {
		return nil, err
	}
	value := func(seg, word int) field.E {
		w := filled[seg]
		return field.E{C0: w[word], C1: w[word+1], C2: w[word+2]}
	}
	segs := []flows.Segment{tseg, {}, {}, nrHints().Segment(hintValues)}
	for _, g := range l.groups {
		var edit func([]*QueryInput)
		if h != nil && h.queries != nil {
			edit = func(in []*QueryInput) { h.queries(g, in) }
		}
		segs = append(segs, g.segments(xs, l.tapes, value, edit)...)
	}
	segs = append(segs, l.gb.NRSegment(grinds))
	ks := []int{3}
	for k := 4; k < len(segs); k++ {
		ks = append(ks, k)
	}
	if err := fillSideBySide(segs, ks, fill, workers); err != nil {
		return nil, err
	}
	ops, sq, _ := l.tape.Operands(value)
	segs[1], segs[2] = l.arith.F.Segment(ops), l.arith.S.Segment(sq)
	if err := fillSideBySide(segs, []int{1, 2}, fill, workers); err != nil {
		return nil, err
	}
	if h != nil && h.filled != nil {
		if h.filled(l, filled) {
			return m, nil
		}
	}
	lap(&m.Profile.Fill)
	// The proof lets go of each filled vector as it is done with it
	// (flows.Segment.Filled): hold no other reference, and their memory serves the
	// rest of the proof (about 192 MB a 2→1 merge).
	clear(filled)
	if m.Proof, m.Profile.Segments, err = flows.ProveSegmentsProfiled(MergeLabelNR, m.statementBytes(), segs, &flows.Evaluations{Relations: l.rels}, logInvRate, workers); err != nil {
		return nil, err
	}
	mark = time.Now()
	shapes := l.shapes()
	_, _, _, absorbed, err := flows.SegmentsLayout(shapes, logInvRate, m.statementBytes())
	if err != nil {
		return nil, err
	}
	// The segments' lincheck points, from a replay of the proof's transcript up to
	// them (their terminal checks are the batch's).
	terminals, err := flows.SegmentsTerminals(m.Proof, MergeLabelNR, m.statementBytes(), shapes, logInvRate)
	if err != nil {
		return nil, fmt.Errorf("recursion: the merge's own linchecks (a bug): %w", err)
	}
	if m.Batch, err = m.proveBatch(absorbed, l, batchSubs, terminals, nil, workers); err != nil {
		return nil, err
	}
	lap(&m.Profile.Batch)
	m.Took = time.Since(start)
	return m, nil
}

// leafDeferred is the deferred claims leaf x (of statement st, stream stream) carries,
// from a replay of its verification on its true values.
func leafDeferred(st flows.Statement, x *childExtract, stream []field.E) (DeferredReveal, error) {
	rev := x.rev
	hints := []field.E{rev.Values.VA, rev.Values.VB, rev.Values.Key}
	for l := range rev.Enforced {
		hints = append(hints, rev.Enforced[l], rev.Induced[l])
	}
	in, value := nativeTapeInputs(stream, rev.Challenges, hints)
	ct, err := NewChildTape(st, in)
	if err != nil {
		return DeferredReveal{}, err
	}
	return ct.Deferred(value, hints), nil
}

// statement is the merged proof's statement as a child's: message, epoch and keys.
func (m *MergedNR) statement() (flows.Statement, error) {
	ag := aggregate.Aggregate{Message: m.Message, Epoch: m.Epoch, PublicKeys: m.Keys}
	data, err := ag.MarshalJSON()
	if err != nil {
		return flows.Statement{}, err
	}
	return flows.Statement{Flow: aggregate.FlowName, N: len(m.Keys), LogInvRate: m.LogInvRate, Data: data}, nil
}

// carriedClaims are the children's matrix claims and their key claims lifted to the
// merged key table (child i's keys at its offset; windowLog the table's window): a
// leaf's deferred claims, a merged child's batched ones.
func (m *MergedNR) carriedClaims(windowLog int) ([]*MatrixClaim, []TableClaim, error) {
	mats := make([]*MatrixClaim, len(m.Deferred))
	keys := make([]TableClaim, len(m.Deferred))
	off := 0
	for i := range m.Deferred {
		if sub := m.sub(i); sub != nil {
			// A merged child's claim on the xmss-aggregate circuit is among its block
			// claims (xmssKind).
			if len(sub.KeyPoint) < windowLog {
				return nil, nil, fmt.Errorf("%w: child %d's batched key claim has a point of %d coordinates", ErrMerged, i, len(sub.KeyPoint))
			}
			keys[i] = TableClaim{Tau: sub.KeyPoint[:windowLog], Chi: sub.KeyPoint[windowLog:], Offset: off, N: m.Children[i].N, Value: sub.KeyValue}
		} else {
			mc, kc := m.Deferred[i].Claims()
			mats[i], keys[i] = &mc, LiftKeyClaim(kc, off, m.Children[i].N)
		}
		off += m.Children[i].N
	}
	return mats, keys, nil
}

// keyTable is the merged statement's key table.
func (m *MergedNR) keyTable() (KeyTable, error) {
	st, err := m.statement()
	if err != nil {
		return KeyTable{}, err
	}
	return KeyTableOf(st)
}

// proveBatch batches the carried claims under MergeBatchLabelNR on the workers, after
// absorbing start (the segmented proof's layout and statement, so that the carried
// values sit on whole steps in both transcripts): the matrix and key claims, then the
// block claims of the segments (terminals: their linchecks' points, on layout l) and
// of the merged children (subs). editRoles is proveBlocks' (nil but in the forging
// tests).
func (m *MergedNR) proveBatch(start []byte, l *nrLayout, subs []*nrSub, terminals []*lincheck.TerminalCheck, editRoles func([]nrKind, []roleClaim), workers par.Workers) (*transcript.Proof, error) {
	kt, err := m.keyTable()
	if err != nil {
		return nil, err
	}
	mats, keys, err := m.carriedClaims(kt.T.W.Log)
	if err != nil {
		return nil, err
	}
	tr := transcript.NewProver([]byte(MergeBatchLabelNR), nil)
	tr.AbsorbBytes(start)
	if _, _, err := BatchKeyClaims(tr, kt, keys); err != nil {
		return nil, err
	}
	if _, err := proveBlocks(tr, l, subs, mats, terminals, editRoles, workers); err != nil {
		return nil, err
	}
	return tr.Proof(), nil
}

// nrBatched is what a merge's batch leaves for its verifier to evaluate natively:
// the merged key table's value at a point, and one claim per kind (the block
// circuits, the xmss-aggregate circuit, the tree and role tables).
type nrBatched struct {
	kt       KeyTable
	keyPoint []field.E
	keyValue field.E
	kinds    []nrKind
	blocks   KindsClaim
}

// checks are the batched claims' native evaluations.
func (b *nrBatched) checks() []flows.NativeCheck {
	out := []flows.NativeCheck{
		{What: "the batched key claim", Check: func() error { return CheckTableEval(b.kt, b.keyPoint, b.keyValue) }},
	}
	return append(out, blockChecks(b.kinds, b.blocks)...)
}

// verifyBatchTraced replays the batch (after start, the absorbed string; the
// segments' lincheck terminal checks on layout l, the merged children subs) calling
// trace (if not nil) with every compression of its transcript.
func (m *MergedNR) verifyBatchTraced(start []byte, l *nrLayout, subs []*nrSub, terminals []*lincheck.TerminalCheck, trace func(transcript.Step)) (*nrBatched, error) {
	if m.Batch == nil {
		return nil, fmt.Errorf("%w: no batch of the carried claims", ErrMerged)
	}
	kt, err := m.keyTable()
	if err != nil {
		return nil, err
	}
	mats, keys, err := m.carriedClaims(kt.T.W.Log)
	if err != nil {
		return nil, err
	}
	tr := transcript.NewVerifier(m.Batch, []byte(MergeBatchLabelNR), nil)
	if trace != nil {
		tr.Trace(trace)
	}
	tr.AbsorbBytes(start)
	out := &nrBatched{kt: kt}
	if out.keyPoint, out.keyValue, err = VerifyKeyClaims(tr, kt.T.W.Log, kt.SlotBits, keys); err != nil {
		return nil, fmt.Errorf("%w: the carried key claims: %w", ErrMerged, err)
	}
	if out.kinds, out.blocks, err = verifyBlocks(tr, l, subs, mats, terminals); err != nil {
		return nil, err
	}
	if err := tr.Finish(); err != nil {
		return nil, fmt.Errorf("%w: the carried claims' batch: %w", ErrMerged, err)
	}
	return out, nil
}

// segments are the prover's query segments of a group, one a piece: its members'
// queries in order, each with the transcript sample its index is drawn from.
func (g *nrGroup) segments(xs []*childExtract, tapes []*ChildTape, value func(seg, word int) field.E, edit func([]*QueryInput)) []flows.Segment {
	type slot struct {
		in     *QueryInput
		sample field.E
		pos    int
	}
	var slots []slot
	for _, mb := range g.members {
		lq := &xs[mb.child].levels[mb.level]
		lv := tapes[mb.child].Levels[mb.level]
		for t := range mb.n {
			slots = append(slots, slot{&lq.Queries[t], lv.Samples[t/g.qb.PerWord].Eval(value, nil), t % g.qb.PerWord})
		}
	}
	if edit != nil {
		in := make([]*QueryInput, len(slots))
		for i := range slots {
			in[i] = slots[i].in
		}
		edit(in)
		for i := range slots {
			slots[i].in = in[i]
		}
	}
	c := g.qb.compile()
	var out []flows.Segment
	for _, n := range g.pieces {
		w := g.qb.NRWindow()
		piece := slots[:n:n]
		out = append(out, flows.Segment{Circuit: c, N: n, Public: &w,
			Fill: fillSlots(c, n, func(v []uint64, lane uint, s int) error {
				return g.qb.SetNR(v, lane, piece[s].in, piece[s].sample, piece[s].pos)
			})})
		slots = slots[n:]
	}
	return out
}

// grindSeg is the grinding blocks' segment, the last.
func (l *nrLayout) grindSeg() int { return 4 + l.querySegs }

// fillSideBySide fills segs[k] for each k of ks: a segment of at least two groups of
// 64 blocks a worker on all the workers, one after another, then the others side by
// side, one worker each, the largest first. fillSlots solves a segment's blocks 64 at
// a time, so a segment of 64 slots or fewer (most of a merge's) keeps one worker busy
// however many it is given.
func fillSideBySide(segs []flows.Segment, ks []int, fill func(int, *flows.Segment, par.Workers) error, workers par.Workers) error {
	slotLogOf := func(k int) int { return flows.SlotLog(segs[k].N) }
	var narrow []int
	for _, k := range ks {
		if 1<<slotLogOf(k) < 2*64*workers.N() {
			narrow = append(narrow, k)
			continue
		}
		if err := fill(k, &segs[k], workers); err != nil {
			return err
		}
	}
	cost := func(k int) int { return slotLogOf(k) + segs[k].Circuit.LogSize() }
	slices.SortStableFunc(narrow, func(a, b int) int { return cost(b) - cost(a) })
	errs := make([]error, len(narrow))
	one := workers.Limit(1)
	workers.Range(len(narrow), func(i, j int) {
		for ; i < j; i++ {
			errs[i] = fill(narrow[i], &segs[narrow[i]], one)
		}
	}, par.PerWorker(len(narrow)))
	if err := workers.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// filledSegment is a segment's Fill output at its slot count: the packed witness the
// prover reads the tape's inputs from before filling the units' segments, and the
// columns the proof then takes as they are (flows.Segment.Filled).
func filledSegment(seg flows.Segment, workers par.Workers) (*flows.Filled, error) {
	nLog := flows.SlotLog(seg.N)
	n := 1 << (nLog + seg.Circuit.LogSize() - 6)
	// Every block segment's Fill (fillSlots) packs all of its slots' words.
	f := &flows.Filled{NLog: nLog, W: buffers.MakeUninit[field.K](n), A: buffers.MakeUninit[field.K](n), B: buffers.MakeUninit[field.K](n)}
	if err := seg.Fill(workers, nLog, f.W, f.A, f.B); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMergeInput, err)
	}
	return f, nil
}

// nativeTapeInputs are tape inputs reading a child's stream, challenges and hints by
// index (segments 0, 1 and 2 stand for them, each value at word 3·index), and the
// values: a replay on known values (the prover's, or a test's).
func nativeTapeInputs(stream, challenges, hints []field.E) (TapeInputs, func(seg, word int) field.E) {
	t := &Tape{}
	in := TapeInputs{
		Stream:    func(j, _ int) Lin { return t.Input(0, 3*j) },
		Challenge: func(i, _ int) Lin { return t.Input(1, 3*i) },
		Hint:      func(h int) Lin { return t.Input(2, 3*h) },
	}
	return in, func(seg, word int) field.E { return [][]field.E{stream, challenges, hints}[seg][word/3] }
}

// Verify checks the merged proof against its statement: the segments with every
// child's verification on them, and each child's carried deferred claims natively.
func (m *MergedNR) Verify() error {
	_, err := m.verifyTraced(nil, nil)
	return err
}

// MaxShapes bounds the distinct merged shapes (shapeKey) below a proof's statement. A
// verifier lays out each one it has not seen (the red-team helper measured about
// 0.6 s and 175 MB a shape, kept while the parent's layout is built): without a
// bound a file of a few kilobytes naming hundreds of shapes (maxRecords allows 584)
// would run a verifier out of memory. The trees `leanpipe run` and a fleet build
// (queue.TreeGroups) have at most 13 below their root, over every leaf count they
// take (queue's TestTreeShapesVerifiable).
const MaxShapes = 16

// MergedShapes is the number of distinct merged shapes among the merged children
// (subs[i] non-nil: child i is merged, of those children and records) and their
// merged descendants, stopping once it passes MaxShapes.
func MergedShapes(children []ChildInfo, subs []*MergedChildNR) int {
	seen := map[string]bool{}
	var walk func(c ChildInfo, mc *MergedChildNR)
	walk = func(c ChildInfo, mc *MergedChildNR) {
		if mc == nil || len(seen) > MaxShapes {
			return
		}
		seen[shapeKey(c, mc)] = true
		for i, g := range mc.Children {
			walk(g, mc.sub(i))
		}
	}
	for i, c := range children {
		if i < len(subs) {
			walk(c, subs[i])
		}
	}
	return len(seen)
}

// checkShapes refuses a statement whose merged descendants have more than MaxShapes
// distinct shapes, before any of them is laid out.
func (m *MergedNR) checkShapes() error {
	if MergedShapes(m.Children, m.Subs) > MaxShapes {
		return fmt.Errorf("%w: merged children of more than %d distinct shapes (sizes, rates and children) below the statement", ErrMerged, MaxShapes)
	}
	return nil
}

// verifyTraced is Verify handing each compression of the segments transcript to main
// and of the batch's to batch (nil: none); it returns the accepted proof's raw form and
// the layout it verified on.
func (m *MergedNR) verifyTraced(main, batch func(transcript.Step)) (raw *transcript.Proof, err error) {
	// Verify never panics: a panic below is a bug in its handling of this proof, and
	// the proof is refused naming it.
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, fmt.Errorf("%w: the verifier panicked on this proof (a bug): %v", ErrMerged, r)
		}
	}()
	if len(m.Children) < 2 || len(m.Children) > MaxChildren || len(m.Deferred) != len(m.Children) || m.Proof == nil ||
		(m.Subs != nil && len(m.Subs) != len(m.Children)) {
		return nil, fmt.Errorf("%w: %d children, %d deferred claim sets, %d merged children's claims", ErrMerged, len(m.Children), len(m.Deferred), len(m.Subs))
	}
	if err := m.checkShapes(); err != nil {
		return nil, err
	}
	seen := map[xmss.PublicKey]bool{}
	for _, pk := range m.Keys {
		if seen[pk] {
			return nil, fmt.Errorf("%w: a repeated key", ErrMerged)
		}
		seen[pk] = true
	}
	if err := checkChildSizes(m.Children, len(m.Keys)); err != nil {
		return nil, err
	}
	sts := make([]flows.Statement, len(m.Children))
	for i := range sts {
		var err error
		if sts[i], err = m.childStatement(i); err != nil {
			return nil, err
		}
	}
	for i := range m.Children {
		if m.sub(i) != nil {
			d := m.Deferred[i]
			if d.ChiIn != nil || d.S != nil || d.ChiInPrime != nil || d.Tau != nil || d.ChiOut != nil || d.Z != (field.E{}) || d.VA != (field.E{}) || d.VB != (field.E{}) || d.Key != (field.E{}) {
				return nil, fmt.Errorf("%w: child %d is merged and has a leaf's deferred claims", ErrMerged, i)
			}
		}
	}
	// The merge's relations are cut from arrays kept from an earlier verification,
	// handed back only once every check has returned and nothing reads the layout.
	sc := relScratches.Get()
	l, subs, err := m.layoutWith(nil, sc)
	if err != nil {
		return nil, err
	}
	// The segments, their linchecks' terminal checks left to the batch, with the
	// carried claims' native checks beside them.
	shapes := l.shapes()
	_, _, _, start, err := flows.SegmentsLayout(shapes, m.LogInvRate, m.statementBytes())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	ev := &flows.Evaluations{Relations: l.rels, DeferTerminals: true}
	tr, err := flows.VerifySegmentsTraced(m.Proof, MergeLabelNR, m.statementBytes(), shapes, ev, m.LogInvRate, main)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	// The batch: the children's matrix and key claims into one each, the segments'
	// matrix values (checked against their terminal identities) and the merged
	// children's block claims into one per block circuit; then each evaluated natively.
	batched, err := m.verifyBatchTraced(start, l, subs, tr.Terminals, batch)
	if err != nil {
		return nil, err
	}
	if err := flows.StartChecks(batched.checks())(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	relScratches.Put(sc)
	return tr.Raw, nil
}

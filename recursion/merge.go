package recursion

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// Merging leaf aggregates (docs/recursion.md): one segmented proof that verifies every
// child in-circuit. Per child its segments are the transcript blocks T (its on-chain
// transcript steps, pinned to the revealed chaining values at block boundaries, the
// schedule's tags and squeezes and the revealed challenges), one query segment per
// WHIR level (pinned to the level's root, eq table, point and query indices; their
// λ-weighted sums tied to the revealed enforced sums and induced weights by
// evaluations), and the grinding blocks G (pinned to the revealed chaining values and
// nonces). The child's stream checks are linear claims on T's data, and the chaining
// values at grinding checks linear claims on T's outputs. The revealed interface
// (ChildInterface) is part of the statement the transcript absorbs. The verifier
// evaluates each child's two deferred claims natively (the xmss-aggregate circuit's
// matrices through its description, the key table from the statement).

// MergeLabel is the transcript label of a merged proof.
const MergeLabel = "leanpipe-xmss-merge-v0"

// MergeBatchLabel is the transcript label of a merged proof's batch of its children's
// matrix claims (BatchMatrixClaims), which absorbs the merged statement first.
const MergeBatchLabel = "leanpipe-xmss-merge-batch-v0"

const mergeTag = "xmss-merge/statement/v0"

// MergeChild is one child as the merge prover takes it: an xmss-aggregate proof and
// its statement.
type MergeChild struct {
	Proof     *transcript.Proof
	Statement flows.Statement
}

// ChildInterface is what a merged proof reveals of one child's verification.
type ChildInterface struct {
	ChildReveal
	// Boundaries are the transcript blocks' starting chaining values, then the value
	// after the last block's steps.
	Boundaries [][4]uint64
	// Grinds are the chaining values the grinding checks start from.
	Grinds [][4]uint64
}

// ChildInfo is a child's place in the merged statement.
type ChildInfo struct {
	N, LogInvRate int
}

// Merged is a merged proof with its statement: message, epoch, the ordered key list
// (the children's lists in order), the children's sizes and rates, what it reveals of
// each child, and the segmented proof.
type Merged struct {
	Message    xmss.Message
	Epoch      uint32
	Keys       []xmss.PublicKey
	Children   []ChildInfo
	Interfaces []ChildInterface
	LogInvRate int
	Proof      *transcript.Proof
	// Batch reduces the children's claims on the xmss-aggregate circuit's matrices to
	// one claim (docs/recursion.md §5.1), which the verifier evaluates natively: one
	// walk of the circuit whatever the child count.
	Batch *transcript.Proof
	// Profile is where the prover's time went (Merge sets it; not part of the proof).
	Profile MergeProfile
}

// MergeProfile is a merge's time by stage: the children's native verification and
// reading (Children), the block circuits compiled (Compile: a process's first merges
// only), the no-reveal merge's layout of its tape and relations (Layout) and the
// segments it fills to read the tape's inputs (Fill), the segmented proof's stages,
// and the batch of the carried claims (Batch).
type MergeProfile struct {
	Children, Compile, Layout, Fill, Batch time.Duration
	Segments                               flows.SegmentsProfile
}

// Errors of merging.
var (
	// ErrMergeInput: the children cannot be merged (another flow, message or epoch,
	// overlapping keys, a count out of range, a child that does not verify).
	ErrMergeInput = errors.New("recursion: merge input")
	// ErrMerged: a merged proof that does not verify.
	ErrMerged = errors.New("recursion: the merged proof does not verify")
)

// ChildError is a merge refused because child Index does not verify (Cause says
// why). It is an ErrMergeInput.
type ChildError struct {
	Index int
	Cause error
}

func (e *ChildError) Error() string {
	return fmt.Sprintf("%v: child %d does not verify: %v", ErrMergeInput, e.Index, e.Cause)
}

// Unwrap makes a ChildError an ErrMergeInput (and its cause).
func (e *ChildError) Unwrap() []error { return []error{ErrMergeInput, e.Cause} }

// MaxChildren is the most children one merge takes.
const MaxChildren = 8

// DefaultRate is the log inverse rate a merge of k children is made at unless asked
// otherwise: 2 up to four children, 3 above. Rate 2's commitment is half rate 3's (a
// 2→1 merge of small leaves proves in about 70% of rate 3's time), and four
// 200-signature children stay under 256 KiB at rate 2; eight need rate 3 (257,472
// bytes at rate 3, 305,824 at rate 2 before this session's size work).
func DefaultRate(k int) int {
	if k <= 4 {
		return 2
	}
	return 3
}

// DefaultRateOf is DefaultRate for a merge of k children of which some may be merged
// (no-reveal) proofs: such a merge is made at rate 3. A depth-2 node over
// 200-signature leaves is 274,208 bytes at rate 2 and 241,104 at rate 3 (under
// 256 KiB), proved in about 1.5× rate 2's time (docs/recursion.md §6.9).
func DefaultRateOf(k int, mergedChild bool) int {
	if mergedChild {
		return 3
	}
	return DefaultRate(k)
}

var (
	// The blocks a merge uses, compiled on a prover's first need; a verifier evaluates
	// their descriptions (nothing built).
	sharedTranscriptBlock = sync.OnceValue(transcriptLayout)
	sharedGrindBlock      = sync.OnceValue(grindLayout)
	queryBlocks           sync.Map // queryKey → *QueryBlock
)

type queryKey struct {
	level0          bool
	depth, pointLen int
}

func queryBlockFor(level0 bool, depth, pointLen int) *QueryBlock {
	k := queryKey{level0, depth, pointLen}
	if qb, ok := queryBlocks.Load(k); ok {
		return qb.(*QueryBlock)
	}
	qb, _ := queryBlocks.LoadOrStore(k, queryLayout(level0, depth, pointLen))
	return qb.(*QueryBlock)
}

// childStatement is child i's statement within m: its keys are m's from its offset.
func (m *Merged) childStatement(i int) (flows.Statement, error) {
	return childStatementAt(m.Message, m.Epoch, m.Keys, m.Children, i)
}

// childStatementAt is child i's statement in a merge of children on message and
// epoch: its keys from the merged list, after the earlier children's.
func childStatementAt(msg xmss.Message, epoch uint32, keys []xmss.PublicKey, children []ChildInfo, i int) (flows.Statement, error) {
	off := 0
	for j, c := range children[:i+1] {
		// Each size is bounded by the keys left, so the offsets cannot overflow.
		if c.N < 1 || c.N > len(keys)-off {
			return flows.Statement{}, fmt.Errorf("%w: child %d of %d keys at %d, %d keys in all", ErrMerged, j, c.N, off, len(keys))
		}
		if j < i {
			off += c.N
		}
	}
	c := children[i]
	ag := aggregate.Aggregate{Message: msg, Epoch: epoch, PublicKeys: keys[off : off+c.N]}
	data, err := ag.MarshalJSON()
	if err != nil {
		return flows.Statement{}, err
	}
	return flows.Statement{Flow: aggregate.FlowName, N: c.N, LogInvRate: c.LogInvRate, Data: data}, nil
}

// checkChildSizes checks that the children's sizes are positive and add up to the
// statement's keys, each bounded by the keys left so that no sum overflows (a
// statement made in Go is not capped by the JSON reader's limits).
func checkChildSizes(children []ChildInfo, keys int) error {
	total := 0
	for i, c := range children {
		if c.N < 1 || c.N > keys-total {
			return fmt.Errorf("%w: child %d of %d keys after %d of the statement's %d", ErrMerged, i, c.N, total, keys)
		}
		total += c.N
	}
	if total != keys {
		return fmt.Errorf("%w: the children hold %d keys, the statement %d", ErrMerged, total, keys)
	}
	return nil
}

// readChildren reads a merge's children's statements: their common message and
// epoch, the merged key list (theirs in order) and their sizes and rates. Children of
// another flow, message or epoch, or sharing a key, are input errors naming them.
func readChildren(children []MergeChild) (msg xmss.Message, epoch uint32, keys []xmss.PublicKey, infos []ChildInfo, err error) {
	seen := map[xmss.PublicKey]int{}
	for i, c := range children {
		if c.Statement.Flow != aggregate.FlowName {
			return msg, 0, nil, nil, fmt.Errorf("%w: child %d is a %q proof", ErrMergeInput, i, c.Statement.Flow)
		}
		ag, err := aggregate.StatementOf(c.Statement)
		if err != nil {
			return msg, 0, nil, nil, fmt.Errorf("%w: child %d: %w", ErrMergeInput, i, err)
		}
		if i == 0 {
			msg, epoch = ag.Message, ag.Epoch
		} else if ag.Message != msg || ag.Epoch != epoch {
			return msg, 0, nil, nil, fmt.Errorf("%w: child %d signs another message or epoch than child 0", ErrMergeInput, i)
		}
		for _, pk := range ag.PublicKeys {
			if j, ok := seen[pk]; ok {
				return msg, 0, nil, nil, fmt.Errorf("%w: a key of child %d is also in child %d", ErrMergeInput, i, j)
			}
			seen[pk] = i
		}
		keys = append(keys, ag.PublicKeys...)
		infos = append(infos, ChildInfo{N: c.Statement.N, LogInvRate: c.Statement.LogInvRate})
	}
	return msg, epoch, keys, infos, nil
}

// statementBytes is what the merged proof's transcript absorbs after the segments'
// layout: the tag, message, epoch, the keys, the proof's log inverse rate, the child
// count, each child's size, depth and rate, then each child's revealed interface.
func (m *Merged) statementBytes() []byte {
	var b bytes.Buffer
	b.WriteString(mergeTag)
	b.Write(m.Message[:])
	b.Write(binary.LittleEndian.AppendUint32(nil, m.Epoch))
	u64 := func(v int) { b.Write(binary.LittleEndian.AppendUint64(nil, uint64(v))) }
	u64(len(m.Keys))
	for _, pk := range m.Keys {
		k := pk.Bytes()
		b.Write(k[:])
	}
	u64(m.LogInvRate)
	u64(len(m.Children))
	for _, c := range m.Children {
		u64(c.N)
		u64(0) // depth: leaves
		u64(c.LogInvRate)
	}
	for i := range m.Interfaces {
		b.Write(m.Interfaces[i].appendBinary(nil))
	}
	return b.Bytes()
}

func appendE(b []byte, x field.E) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(x.C0))
	b = binary.LittleEndian.AppendUint64(b, uint64(x.C1))
	return binary.LittleEndian.AppendUint64(b, uint64(x.C2))
}

func appendEs(b []byte, xs []field.E) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(xs)))
	for _, x := range xs {
		b = appendE(b, x)
	}
	return b
}

func appendWords(b []byte, ws [][4]uint64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(ws)))
	for _, w := range ws {
		for _, v := range w {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	return b
}

// appendBinary encodes the interface: each list with its length first.
func (ci *ChildInterface) appendBinary(b []byte) []byte {
	b = appendEs(b, ci.Challenges)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(ci.Roots)))
	for _, r := range ci.Roots {
		b = append(b, r[:]...)
	}
	b = appendE(appendE(b, ci.VA), ci.VB)
	b = appendEs(b, ci.S)
	b = appendE(appendE(appendE(b, ci.Values.VA), ci.Values.VB), ci.Values.Key)
	b = appendEs(b, ci.Enforced)
	b = appendEs(b, ci.Induced)
	b = appendEs(b, ci.Nonces)
	b = appendWords(b, ci.Boundaries)
	return appendWords(b, ci.Grinds)
}

// mergePlan is one child's segments and claims, as both sides build them.
type mergePlan struct {
	sc     *StreamChecks
	runs   []TranscriptRun // the verifier's pins
	levels []LevelQueries  // the verifier's query inputs
	qbs    []*QueryBlock
	grinds []GrindCheck
}

// planChild derives a child's segments' public data from its statement and
// interface, checking the interface against the child's shape.
func planChild(st flows.Statement, ci *ChildInterface) (*mergePlan, error) {
	sc, err := ChildStream(st, &ci.ChildReveal)
	if err != nil {
		return nil, err
	}
	if len(ci.Boundaries) == 0 || ci.Boundaries[0] != [4]uint64(transcript.NewVerifier(nil, []byte(aggregate.FlowLabel), nil).State()) {
		return nil, fmt.Errorf("%w: the child's transcript does not start from the flow's label", ErrReveal)
	}
	runs, err := sc.PinRuns(ci.Challenges, ci.Boundaries)
	if err != nil {
		return nil, err
	}
	if len(ci.Grinds) != len(sc.Nonces) {
		return nil, fmt.Errorf("%w: %d grinding chaining values for %d checks", ErrReveal, len(ci.Grinds), len(sc.Nonces))
	}
	sh, err := aggregate.Flow.Shape(st.N, st.LogInvRate)
	if err != nil {
		return nil, err
	}
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		return nil, err
	}
	p := &mergePlan{sc: sc, runs: runs, levels: sc.Levels}
	for l, lq := range sc.Levels {
		p.qbs = append(p.qbs, queryBlockFor(l == 0, cfg.BlockLog(l), lq.MessageLog))
	}
	for g, cv := range ci.Grinds {
		p.grinds = append(p.grinds, GrindCheck{CV: cv, Nonce: ci.Nonces[g]})
	}
	return p, nil
}

// mergeLayout places the children in the merged proof's segments: segment 0 holds
// every child's transcript blocks (child i's from run runOffset[i]), then one query
// segment per block shape, in order of first use, its members' levels in blocks of
// 2^blockLog slots, then one segment of every child's grinding blocks.
type mergeLayout struct {
	runOffset []int
	groups    []*queryGroup
	at        [][][2]int // [child][level] → (group, member)
	grindSeg  int
}

type queryGroup struct {
	qb       *QueryBlock
	blockLog int
	members  [][2]int // (child, level)
}

func layoutOf(plans []*mergePlan) *mergeLayout {
	l := &mergeLayout{}
	runs := 0
	index := map[*QueryBlock]int{}
	for i, p := range plans {
		l.runOffset = append(l.runOffset, runs)
		runs += len(p.runs)
		var at [][2]int
		for lv, qb := range p.qbs {
			g, ok := index[qb]
			if !ok {
				g = len(l.groups)
				index[qb] = g
				l.groups = append(l.groups, &queryGroup{qb: qb})
			}
			grp := l.groups[g]
			grp.blockLog = max(grp.blockLog, bits.Len(uint(len(p.levels[lv].Queries)-1)))
			at = append(at, [2]int{g, len(grp.members)})
			grp.members = append(grp.members, [2]int{i, lv})
		}
		l.at = append(l.at, at)
	}
	l.grindSeg = 1 + len(l.groups)
	return l
}

// evaluations is the merged proof's claims, all linear: per child its stream checks
// and grinding chaining values on the transcript segment, and each level's enforced
// sum and induced weight on its query segment.
func (l *mergeLayout) evaluations(plans []*mergePlan, ifaces []ChildInterface) (*flows.Evaluations, error) {
	tb := sharedTranscriptBlock()
	ev := &flows.Evaluations{}
	for i, p := range plans {
		ev.Linear = append(ev.Linear, p.sc.LinearClaims(tb, 0, l.runOffset[i])...)
		gc, err := p.sc.GrindClaims(tb, 0, l.runOffset[i], ifaces[i].Grinds)
		if err != nil {
			return nil, err
		}
		ev.Linear = append(ev.Linear, gc...)
		for lv := range p.levels {
			g, member := l.at[i][lv][0], l.at[i][lv][1]
			grp := l.groups[g]
			ev.Linear = append(ev.Linear, grp.qb.LevelClaims(1+g, &p.levels[lv], grp.blockLog, member, ifaces[i].Enforced[lv], ifaces[i].Induced[lv])...)
		}
	}
	return ev, nil
}

// Merge verifies each child natively (refusing an invalid one, or children of another
// flow, message or epoch, or sharing a key, naming the child) and proves the merged
// statement at logInvRate. The merged key list is the children's lists in order.
func Merge(children []MergeChild, logInvRate int, workers par.Workers) (*Merged, error) {
	return mergeWith(children, logInvRate, workers, nil)
}

// mergeHooks let a test play a prover that lies: child changes what is read off child
// i, statement changes the merged statement the proof is made for.
type mergeHooks struct {
	child     func(i int, x *childExtract)
	statement func(m *Merged)
}

// childExtract is what the merge prover reads off a child's native verification: its
// transcript's on-chain and grinding steps, its opening's levels and the revealed
// values. A test hook may change it to play a prover that lies.
type childExtract struct {
	chain, grind []transcript.Step
	levels       []LevelQueries
	rev          *ChildReveal
}

func mergeWith(children []MergeChild, logInvRate int, workers par.Workers, hooks *mergeHooks) (*Merged, error) {
	if len(children) < 2 || len(children) > MaxChildren {
		return nil, fmt.Errorf("%w: %d children (2 to %d)", ErrMergeInput, len(children), MaxChildren)
	}
	m := &Merged{LogInvRate: logInvRate}
	var err error
	if m.Message, m.Epoch, m.Keys, m.Children, err = readChildren(children); err != nil {
		return nil, err
	}
	tb, gb := sharedTranscriptBlock(), sharedGrindBlock()
	start := time.Now()
	plans := make([]*mergePlan, len(children))
	levels := make([][]LevelQueries, len(children))
	var runs []TranscriptRun
	var grinds []transcript.Step
	// Each child is verified natively (and read) on the workers, one child each; the
	// first that fails, in child order, is the error.
	xs := make([]*childExtract, len(children))
	errs := make([]error, len(children))
	workers.Range(len(children), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xs[i], _, errs[i] = extractChild(children[i].Proof, children[i].Statement)
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
	for i := range children {
		x := xs[i]
		if hooks != nil && hooks.child != nil {
			hooks.child(i, x)
		}
		chain, grind := x.chain, x.grind
		levels[i] = x.levels
		rev := x.rev
		cr := TranscriptRuns(chain)
		ci := ChildInterface{ChildReveal: *rev}
		for _, r := range cr {
			ci.Boundaries = append(ci.Boundaries, r.CV)
		}
		ci.Boundaries = append(ci.Boundaries, cr[len(cr)-1].Outs[TranscriptSteps-1])
		for g := 0; g+1 < len(grind); g += 2 {
			ci.Grinds = append(ci.Grinds, grind[g].In)
		}
		m.Interfaces = append(m.Interfaces, ci)
		var err error
		if plans[i], err = planChild(children[i].Statement, &m.Interfaces[i]); err != nil {
			return nil, fmt.Errorf("%w: child %d: %w", ErrMergeInput, i, err)
		}
		runs = append(runs, cr...)
		grinds = append(grinds, grind...)
	}
	l := layoutOf(plans)
	m.Profile.Children = time.Since(start)
	start = time.Now()
	// The block circuits a process has not compiled yet are compiled side by side
	// (a first merge's fixed cost).
	compiles := []func(){func() { tb.compile() }, func() { gb.compile() }}
	for _, g := range l.groups {
		compiles = append(compiles, func() { g.qb.compile() })
	}
	workers.Range(len(compiles), func(lo, hi int) {
		for _, c := range compiles[lo:hi] {
			c()
		}
	})
	m.Profile.Compile = time.Since(start)
	segs := []flows.Segment{tb.TranscriptSegment(runs)}
	for _, g := range l.groups {
		members := make([]*LevelQueries, len(g.members))
		for k, cl := range g.members {
			members[k] = &levels[cl[0]][cl[1]]
		}
		segs = append(segs, g.qb.LevelsSegment(members, g.blockLog))
	}
	segs = append(segs, gb.GrindSegment(grinds))
	ev, err := l.evaluations(plans, m.Interfaces)
	if err != nil {
		return nil, err
	}
	if hooks != nil && hooks.statement != nil {
		hooks.statement(m)
	}
	proof, prof, err := flows.ProveSegmentsProfiled(MergeLabel, m.statementBytes(), segs, ev, logInvRate, workers)
	if err != nil {
		return nil, err
	}
	m.Profile.Segments = prof
	m.Proof = proof
	start = time.Now()
	claims := make([]MatrixClaim, len(plans))
	for i, p := range plans {
		claims[i] = p.sc.Matrix
	}
	btr := transcript.NewProver([]byte(MergeBatchLabel), nil)
	btr.AbsorbBytes(m.statementBytes())
	if _, err := BatchMatrixClaimsOn(btr, aggregate.New().Circuit, claims, workers); err != nil {
		return nil, err
	}
	m.Batch = btr.Proof()
	m.Profile.Batch = time.Since(start)
	return m, nil
}

// verifyBatch replays the batch of the children's matrix claims (plans' claims, in
// order) and returns the one claim it leaves.
func (m *Merged) verifyBatch(plans []*mergePlan) (MatrixClaim, error) {
	if m.Batch == nil {
		return MatrixClaim{}, fmt.Errorf("%w: no batch of the children's matrix claims", ErrMerged)
	}
	claims := make([]MatrixClaim, len(plans))
	for i, p := range plans {
		claims[i] = p.sc.Matrix
	}
	tr := transcript.NewVerifier(m.Batch, []byte(MergeBatchLabel), nil)
	tr.AbsorbBytes(m.statementBytes())
	batched, err := VerifyMatrixClaims(tr, aggregate.LogSize, claims)
	if err != nil {
		return MatrixClaim{}, fmt.Errorf("%w: the children's matrix claims: %w", ErrMerged, err)
	}
	if err := tr.Finish(); err != nil {
		return MatrixClaim{}, fmt.Errorf("%w: the children's matrix claims: %w", ErrMerged, err)
	}
	return batched, nil
}

// Verify checks the merged proof against its statement: every child's segments and
// claims, then each child's deferred claims natively.
func (m *Merged) Verify() (err error) {
	// Verify never panics: a panic below is a bug in its handling of this proof, and
	// the proof is refused naming it.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: the verifier panicked on this proof (a bug): %v", ErrMerged, r)
		}
	}()
	if len(m.Children) < 2 || len(m.Children) > MaxChildren || len(m.Interfaces) != len(m.Children) || m.Proof == nil || m.Batch == nil {
		return fmt.Errorf("%w: %d children, %d interfaces", ErrMerged, len(m.Children), len(m.Interfaces))
	}
	if err := checkChildSizes(m.Children, len(m.Keys)); err != nil {
		return err
	}
	seen := map[xmss.PublicKey]bool{}
	for _, pk := range m.Keys {
		if seen[pk] {
			return fmt.Errorf("%w: a repeated key", ErrMerged)
		}
		seen[pk] = true
	}
	mc, err := m.checks()
	if err != nil {
		return err
	}
	if _, err := flows.VerifySegments(m.Proof, MergeLabel, m.statementBytes(), mc.shapes, mc.ev, m.LogInvRate); err != nil {
		return fmt.Errorf("%w: %w", ErrMerged, err)
	}
	return nil
}

// MergeSigners is Merge with raw signers besides the child proofs: the signers are
// proved first as one more leaf (the xmss-aggregate flow, at the first child's rate)
// and merged as the last child (docs/recursion.md §3), so the merged key list is the
// children's lists in order, then the signers' in order. With nil signers it is Merge;
// with signers, one child is enough.
func MergeSigners(ctx context.Context, children []MergeChild, signers *aggregate.Input, logInvRate int, workers par.Workers) (*Merged, error) {
	if signers == nil {
		return Merge(children, logInvRate, workers)
	}
	if len(children) < 1 || len(children) >= MaxChildren {
		return nil, fmt.Errorf("%w: %d children with raw signers (1 to %d)", ErrMergeInput, len(children), MaxChildren-1)
	}
	fin, err := aggregate.Flow.FromValue(signers)
	if err != nil {
		return nil, fmt.Errorf("%w: the raw signers: %w", ErrMergeInput, err)
	}
	p, err := flows.Prove(ctx, flows.Request{Flow: aggregate.Flow, Input: fin, LogInvRate: children[0].Statement.LogInvRate},
		flows.ProveOptions{Workers: workers.N()})
	if err != nil {
		return nil, fmt.Errorf("%w: the raw signers' leaf: %w", ErrMergeInput, err)
	}
	all := append(append([]MergeChild(nil), children...), MergeChild{p.Proof, p.Statement})
	return Merge(all, logInvRate, workers)
}

// mergeChecks is what verifying a merged proof checks, derived from its statement
// and interfaces: per child its plan and statement, the segments' shapes and the
// claims on them.
type mergeChecks struct {
	plans  []*mergePlan
	sts    []flows.Statement
	shapes []flows.SegmentShape
	ev     *flows.Evaluations
}

// checks derives m's segments and claims from its statement and interfaces.
func (m *Merged) checks() (*mergeChecks, error) {
	tb, gb := sharedTranscriptBlock(), sharedGrindBlock()
	plans := make([]*mergePlan, len(m.Children))
	sts := make([]flows.Statement, len(m.Children))
	var runs []TranscriptRun
	var grinds []GrindCheck
	for i := range m.Children {
		st, err := m.childStatement(i)
		if err != nil {
			return nil, err
		}
		sts[i] = st
		if plans[i], err = planChild(st, &m.Interfaces[i]); err != nil {
			return nil, fmt.Errorf("%w: child %d: %w", ErrMerged, i, err)
		}
		runs = append(runs, plans[i].runs...)
		grinds = append(grinds, plans[i].grinds...)
	}
	l := layoutOf(plans)
	shapes := []flows.SegmentShape{tb.TranscriptShape(runs)}
	for _, g := range l.groups {
		members := make([]*LevelQueries, len(g.members))
		for k, cl := range g.members {
			members[k] = &plans[cl[0]].levels[cl[1]]
		}
		shapes = append(shapes, g.qb.LevelsShape(members, g.blockLog))
	}
	shapes = append(shapes, gb.GrindShape(grinds))
	ev, err := l.evaluations(plans, m.Interfaces)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMerged, err)
	}
	// The children's deferred claims (each a run of the xmss-aggregate circuit's
	// matrices: its description, or its compiled walk in a process that has built it,
	// and its key table) are native checks of the segmented proof's verification: they
	// depend only on the revealed interfaces, and run side by side with the rest.
	// The children's matrix claims are batched into one (the proof's batch, replayed
	// here); that claim and each child's key claim are native checks.
	batched, err := m.verifyBatch(plans)
	if err != nil {
		return nil, err
	}
	mats := aggregate.VerifierMatrices()
	ev.Native = append(ev.Native, flows.NativeCheck{What: "the children's batched matrix claim", Check: func() error { return CheckMatrixClaim(mats, batched) }})
	off := 0
	for i, p := range plans {
		// The child's statement as its keys' slice (the JSON of sts[i] says the same).
		ag := aggregate.Aggregate{Message: m.Message, Epoch: m.Epoch, PublicKeys: m.Keys[off : off+m.Children[i].N]}
		off += m.Children[i].N
		ev.Native = append(ev.Native,
			flows.NativeCheck{What: fmt.Sprintf("child %d's key claim", i), Check: func() error { return checkKeyClaimOf(ag, p.sc.Key) }})
	}
	return &mergeChecks{plans: plans, sts: sts, shapes: shapes, ev: ev}, nil
}

package open

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
)

// ProverTranscript is what the opening prover needs from the Fiat–Shamir transcript
// (transcript.Prover implements it). SendRoundPoly sends a round polynomial in
// coefficients, dropping the coefficient the verifier derives (c1 when eq is false).
type ProverTranscript interface {
	Observe(v field.E)
	Send(v field.E)
	Sample() field.E
	SampleQueries(blockLen, count int) []int
	SendRoundPoly(coeffs []field.E, eq bool)
	GrindParallel(bits int, workers par.Workers) uint64
	Open(tree *merkle.Tree, queries []int) [][]uint64
}

// intro is a claim introduced into the running sumcheck, waiting for its level's
// batching challenge: its weight table, its value and its round polynomial.
type intro struct {
	b     []field.E
	value field.E
	q     quad
}

// whirProver holds the running sumcheck Σ f·b = claim of one opening.
type whirProver struct {
	tr      ProverTranscript
	workers par.Workers
	fK      []field.K // the level-0 witness, until the first fold
	f, b    []field.E
	fBuf    [2][]field.E
	bBuf    [2][]field.E
	// fSlot and bSlot name the buffers holding f and b; a fold writes the other.
	fSlot, bSlot int
	// spare is memory of the consumed weight that no fold reads or writes again
	// once level 0's folds are done: the deeper levels' codewords and Merkle nodes
	// are carved from it while it lasts (carve).
	spare   []uint64
	claim   field.E
	q       quad
	pending []intro
	poly    quad // the round polynomial being sent (kept off the heap per round)
}

// send transmits the round polynomial (u0, claim+u2, u2) answering claim and
// returns it.
func (p *whirProver) send(u0, u2, claim field.E) quad {
	p.poly = quad{u0, claim.Add(u2), u2}
	p.tr.SendRoundPoly(p.poly[:], false)
	return p.poly
}

// fold binds the pair variable of stride s to r, then sends the next round's
// polynomial over pairs of stride next (unless silent). Where the shapes allow, the
// fold and the next round's message run as one pass (fused.go).
func (p *whirProver) fold(r field.E, s, next int, silent bool) {
	p.claim = p.q.eval(r)
	length := max(len(p.fK), len(p.f))
	n := length / 2
	if s > 1 {
		// A lane round halves the block count, rounding up.
		n = (length/s + 1) / 2 * s
	}
	nf, nb := p.advance(n)
	fK, f, b := p.fK, p.f, p.b
	p.fK, p.f, p.b = nil, nf, nb
	if !silent && n >= 2 {
		fused := true
		var u0, u2 field.E
		switch {
		case s > 1 && next == s && canFuseLanes(length, s):
			u0, u2 = foldLanesNext(nf, nb, fK, f, b, r, s, p.workers)
		case s > 1 && next == 1 && length == 2*s:
			u0, u2 = foldLanesLow(nf, nb, fK, f, b, r, s, p.workers)
		case s == 1 && next == 1 && fK == nil && n%2 == 0:
			u0, u2 = foldLowNext(nf, nb, f, b, r, p.workers)
		default:
			fused = false
		}
		if fused {
			p.q = p.send(u0, u2, p.claim)
			return
		}
	}
	if fK != nil {
		foldPairsK(nf, fK, r, s, p.workers)
	} else {
		foldPairs(nf, f, r, s, p.workers)
	}
	foldPairs(nb, b, r, s, p.workers)
	if silent || n < 2 {
		return
	}
	u0, u2 := roundMsg(nf, nb, next, p.workers)
	p.q = p.send(u0, u2, p.claim)
}

// carve takes words and nodes for a deeper level's codeword and Merkle tree off
// the front of the spare memory, each starting on a cache line, or returns false
// (taking nothing) when it has too little left.
func (p *whirProver) carve(words, nodes int) ([]uint64, []merkle.Digest, bool) {
	const line = 64 / 8
	wn := (words + line - 1) &^ (line - 1)
	nn := (nodes*digestWords + line - 1) &^ (line - 1)
	if len(p.spare) < wn+nn {
		return nil, nil, false
	}
	w := p.spare[:words:words]
	nd := unsafe.Slice((*merkle.Digest)(unsafe.Pointer(&p.spare[wn])), nodes)
	p.spare = p.spare[wn+nn:]
	return w, nd, true
}

// digestWords is the size of a Merkle digest in words.
const digestWords = len(merkle.Digest{}) / 8

// advance switches f and b to their other buffers, n entries long, and returns them.
func (p *whirProver) advance(n int) ([]field.E, []field.E) {
	p.fSlot, p.bSlot = 1-p.fSlot, 1-p.bSlot
	return p.fBuf[p.fSlot][:n], p.bBuf[p.bSlot][:n]
}

// laneRoundsTwice runs level 0's six lane rounds two per pass (lookahead.go), the
// first round's message already sent from sums. It draws the challenges into
// folds and leaves the last round's stride-1 message sent.
func (p *whirProver) laneRoundsTwice(sums laneSums, folds []field.E, s int) {
	for j := 0; j < len(folds); j += 2 {
		r0 := p.tr.Sample()
		folds[j] = r0
		p.claim = p.q.eval(r0)
		u0, u2 := sums.next(r0)
		p.q = p.send(u0, u2, p.claim)
		r1 := p.tr.Sample()
		folds[j+1] = r1
		p.claim = p.q.eval(r1)
		length := max(len(p.fK), len(p.f))
		nf, nb := p.advance(length / 4)
		sums = foldTwice(nf, nb, p.fK, p.f, p.b, r0, r1, s, j+2 == len(folds), p.workers)
		p.fK, p.f, p.b = nil, nf, nb
		u0, u2 = sums.msg()
		p.q = p.send(u0, u2, p.claim)
	}
}

// glue batches the pending claims into the running one with λ, λ², …
func (p *whirProver) glue(lambda field.E) {
	scalar := field.One
	for _, c := range p.pending {
		scalar = scalar.Mul(lambda)
		addScaledInto(p.b, c.b, scalar, p.workers)
		p.claim = p.claim.Add(scalar.Mul(c.value))
		p.q = p.q.addScaled(c.q, scalar)
	}
	p.pending = p.pending[:0]
}

// level is a committed codeword the next query phase opens.
type level struct {
	tree *merkle.Tree
	ext  bool // rows are E values (three words each) rather than level-0 K words
}

// decode turns opened rows into lane-ascending E values, stored in s's buffers.
func (l level) decode(words [][]uint64, s *Scratch) [][]field.E {
	size := func(w []uint64) int {
		if l.ext {
			return len(w) / extWordsPerElement
		}
		return len(w)
	}
	n := 0
	for _, w := range words {
		n += size(w)
	}
	s.rowData = buffers.Grow(s.rowData, n)
	if cap(s.rows) < len(words) {
		s.rows = make([][]field.E, len(words))
	}
	out := s.rows[:len(words)]
	at := 0
	for i, w := range words {
		row := s.rowData[at : at+size(w)]
		if l.ext {
			extRowInto(row, w)
		} else {
			level0RowInto(row, w)
		}
		at += len(row)
		out[i] = row
	}
	return out
}

// Scratch holds the prover's working buffers so that a process proving one shape
// after another reuses them: the folded witness and weight, the pooled weight of a
// stacked claim, each deeper level's codeword and Merkle nodes (those that do not
// fit in the consumed weight's spare memory, see ProveWHIR), the level's eq and
// query-weight tables and the small per-level vectors. The zero value is ready. A
// Scratch serves one proof at a time; once a proof over it has returned, a warm
// Scratch of the same shape makes the prover allocate only the proof's own stream
// and Merkle openings (and small per-call headers). Nothing the proof returns
// aliases the Scratch.
type Scratch struct {
	// Plans supplies the NTT plans of the deeper levels and the query tables
	// (nil: a fresh plan on every use).
	Plans commit.PlanSource
	// Config is the opening's configuration for the commitment's shape, as an
	// engine's shape cache holds it (nil, or another shape's: derived here).
	Config *Config
	// Wire is the opt-in wire form the proof is written in (the zero value: the
	// reference's); the verifier must be given the same (VerifyStackedWire).
	Wire   Wire
	weight []field.E
	f      [2][]field.E
	b      []field.E
	// eq is the out-of-domain claim's table, table the queries' weight table, point
	// a point claim's eq table.
	eq, table, point []field.E
	// levels[l] holds the codeword and tree nodes of the level-l commitment (l ≥ 1).
	levels []levelBuf
	// ownLevels makes every level use levels (tests compare the two placements).
	ownLevels bool
	induce    induceScratch
	// Per-level vectors: fold challenges, out-of-domain point, query weights, the
	// opened rows as E values.
	folds, z, qWeights, lane []field.E
	rowData                  []field.E
	rows                     [][]field.E
	pending                  []intro
	prover                   whirProver
}

// levelBuf is the storage of one deeper level's commitment.
type levelBuf struct {
	words []uint64
	nodes []merkle.Digest
}

// commitLevel encodes the folded message f of a non-final level into level l's
// codeword (lanes = its low laneLog variables, rows of E values) and builds its tree,
// both in the prover's spare memory when it has room (they are used only until the
// next level's queries, within the proof), in s's buffers otherwise.
func (s *Scratch) commitLevel(p *whirProver, l int, f []field.E, laneLog, rate int, workers par.Workers) *merkle.Tree {
	rowWords := extWordsPerElement << laneLog
	n := len(f) * extWordsPerElement << rate
	var words []uint64
	var nodes []merkle.Digest
	ok := false
	if !s.ownLevels {
		words, nodes, ok = p.carve(n, merkle.NodeCount(n/rowWords))
	}
	if !ok {
		for len(s.levels) <= l {
			s.levels = append(s.levels, levelBuf{})
		}
		lb := &s.levels[l]
		// Written in full by the encoder and the tree (as when reused).
		lb.words = buffers.GrowUninit(lb.words, n)
		lb.nodes = buffers.GrowUninit(lb.nodes, merkle.NodeCount(n/rowWords))
		words, nodes = lb.words, lb.nodes
	}
	s.Plans.EncodeE(words, f, laneLog, rate, workers)
	return merkle.NewInto(nodes, words, rowWords, workers)
}

// ProveWHIR proves Σ_u q(u)·b(u) = target for the stack committed in c. b (the
// weight over the committed words c.Stack; it must vanish on the uncommitted rest
// of the 2^StackLog cube) is consumed: the prover folds it in place of a copy and
// lays the deeper levels' codewords and Merkle trees in the part no fold touches
// again, so its contents afterwards are unspecified. The
// stream is exactly what VerifyWHIR (VerifyWHIRLanes with c.Lanes) reads; it does
// not depend on workers.
func ProveWHIR(tr ProverTranscript, c *commit.Committed, b []field.E, target field.E, workers par.Workers) error {
	return new(Scratch).ProveWHIR(tr, c, b, target, workers)
}

// ProveWHIR is the package function ProveWHIR with s's buffers.
func (s *Scratch) ProveWHIR(tr ProverTranscript, c *commit.Committed, b []field.E, target field.E, workers par.Workers) error {
	cfg := s.Config
	if cfg == nil || cfg.LogN != c.StackLog || cfg.LogInvRates[0] != c.LogInvRate {
		var err error
		if cfg, err = DeriveConfig(c.StackLog, c.LogInvRate); err != nil {
			return err
		}
	}
	if err := c.Shape.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	if err := s.Wire.check(c.Shape); err != nil {
		return err
	}
	block := c.Shape.BlockWords()
	if len(c.Stack) != c.Shape.Words() || len(b) != len(c.Stack) {
		return fmt.Errorf("%w: stack %d words in %d lanes and weight %d words for 2^%d", ErrShape,
			len(c.Stack), c.Lanes, len(b), c.StackLog)
	}
	s.prover = whirProver{tr: tr, workers: workers, fK: c.Stack, b: b, claim: target, pending: s.pending[:0]}
	p := &s.prover
	defer func() {
		// Keep the buffers, drop the references to the caller's data.
		s.pending = p.pending[:0]
		*p = whirProver{}
	}()
	// Folds alternate between two buffers, the first written in round 0 (half the
	// stack), the second in round 1 (a quarter); every later round writes less.
	// The weight's own buffer is the second one of b. Two lane rounds per pass
	// (twice) write a quarter of the stack first, then a sixteenth: the
	// witness's second buffer is then the weight's sixteenths [1, 2), dead since
	// the first pass read them. Past the second buffers' extent the weight is
	// spare once level 0's folds are done.
	twice := canLookahead(c.Lanes, block) && cfg.Folds[0] == InitialFold
	if twice {
		quarter, sixteenth := len(b)/4, len(b)/16
		s.f[0], s.b = buffers.GrowUninit(s.f[0], quarter), buffers.GrowUninit(s.b, quarter)
		p.fBuf = [2][]field.E{s.f[0], b[sixteenth : 2*sixteenth : 2*sixteenth]}
		p.spare = eWords(b[2*sixteenth:])
	} else {
		half, quarter := (c.Lanes+1)/2*block, (c.Lanes+3)/4*block
		s.f[0], s.f[1], s.b = buffers.GrowUninit(s.f[0], half), buffers.GrowUninit(s.f[1], quarter), buffers.GrowUninit(s.b, half)
		p.fBuf = [2][]field.E{s.f[0], s.f[1]}
		p.spare = eWords(b[quarter:])
	}
	p.bBuf = [2][]field.E{s.b, b}
	p.fSlot, p.bSlot = 1, 1

	tr.Observe(target)
	for _, h := range commit.RootHalves(c.Root()) {
		tr.Observe(h)
	}
	var sums laneSums
	var u0, u2 field.E
	if twice {
		sums = lookaheadK(c.Stack, b, block, workers)
		u0, u2 = sums.msg()
	} else {
		u0, u2 = roundMsgK(c.Stack, b, block, workers)
	}
	p.q = p.send(u0, u2, target)

	prev := level{tree: c.Tree}
	levels := cfg.Levels()
	for l := 0; l < levels; l++ {
		if workers.Stopped() {
			return workers.Err()
		}
		stride := 1
		if l == 0 {
			stride = block
		}
		s.folds = buffers.Grow(s.folds, cfg.Folds[l])
		levelFolds := s.folds
		if l == 0 && twice {
			p.laneRoundsTwice(sums, levelFolds, block)
		} else {
			for j := range levelFolds {
				r := tr.Sample()
				levelFolds[j] = r
				next := stride
				if j+1 == len(levelFolds) {
					next = 1
				}
				p.fold(r, stride, next, false)
			}
		}
		messageLog := cfg.MessageLog(l)
		final := l == levels-1
		var committed level
		if final {
			for _, v := range p.f {
				tr.Send(v)
			}
		} else {
			committed = level{tree: s.commitLevel(p, l+1, p.f, cfg.Folds[l+1], cfg.LogInvRates[l+1], workers), ext: true}
			for _, h := range commit.RootHalves(committed.tree.Root()) {
				tr.Send(h)
			}
			s.z = buffers.Grow(s.z, messageLog)
			for i := range s.z {
				s.z[i] = tr.Sample()
			}
			s.eq = buffers.Grow(s.eq, 1<<messageLog)
			field.EqTableOn(s.eq, s.z, workers)
			u0, u2, y := roundMsgPairs(p.f, s.eq, workers)
			tr.Send(y)
			p.pending = append(p.pending, intro{s.eq, y, p.send(u0, u2, y)})
		}

		tr.GrindParallel(QueryGrindingBits, workers)
		queries := tr.SampleQueries(1<<cfg.BlockLog(l), cfg.Queries[l])
		lambda := tr.Sample()
		s.qWeights = buffers.Grow(s.qWeights, len(queries))
		field.Powers(s.qWeights, lambda)
		s.lane = buffers.Grow(s.lane, 1<<len(levelFolds))
		// The Merkle openings, their decoding and the enforced sum are serial and
		// need nothing of the query weight table, nor it of them: they run on a
		// goroutine of their own beside the table's workers. Only the opening
		// writes to the transcript meanwhile, so the stream keeps its order.
		var enforced field.E
		var openErr error
		opened := make(chan struct{})
		go func() {
			defer close(opened)
			openErr = par.Protect(func() error {
				var words [][]uint64
				if l == 0 {
					var err error
					if words, err = s.Wire.openLevel0(tr, prev.tree, queries); err != nil {
						return err
					}
				} else {
					words = tr.Open(prev.tree, queries)
				}
				enforced = enforcedSumInto(s.lane, prev.decode(words, s), levelFolds, s.qWeights)
				return nil
			})
		}()
		s.table = buffers.Grow(s.table, 1<<messageLog)
		s.induce.plans = s.Plans
		s.induce.levelTable(s.table, messageLog, cfg.LogInvRates[l], queries, s.qWeights, workers)
		<-opened
		if openErr != nil {
			workers.Fail(openErr)
			return openErr
		}
		if workers.Stopped() {
			return workers.Err()
		}
		u0, u2 := roundMsg(p.f, s.table, 1, workers)
		p.pending = append(p.pending, intro{s.table, enforced, p.send(u0, u2, enforced)})
		p.glue(lambda)

		if final {
			for j := 0; j < messageLog; j++ {
				p.fold(tr.Sample(), 1, 1, j+1 == messageLog)
			}
			return workers.Err()
		}
		prev = committed
	}
	return workers.Err()
}

// ProveStacked is the prover of VerifyStacked (VerifyStackedLanes with c.Lanes): it
// pools the ring-switched claim on the column at place (ring.Weights over its
// 2^Variables words) and the point claims into one weight over the stack, then runs
// ProveWHIR. The column and every point claim's region (the aligned block its
// boolean high coordinates select) must lie inside the committed words c.Stack.
// When the column is all of c.Stack, ring.Weights becomes the working weight and is
// overwritten (ownership passes to the prover); otherwise it is only read.
func ProveStacked(tr ProverTranscript, c *commit.Committed, place Placement, ring RingClaim, points []PointClaim, workers par.Workers) error {
	return new(Scratch).ProveStacked(tr, c, place, ring, points, workers)
}

// ProveStacked is the package function ProveStacked with s's buffers.
func (s *Scratch) ProveStacked(tr ProverTranscript, c *commit.Committed, place Placement, ring RingClaim, points []PointClaim, workers par.Workers) error {
	return s.ProveStackedRings(tr, c, []PlacedRing{{place, ring}}, points, workers)
}

// ProveStackedRings is the prover of VerifyStackedRings: each ring claim's weights
// (2^Variables entries) at its column, scaled by its power of the batching challenge,
// and the point claims pooled into one weight over the stack, then ProveWHIR. With one
// ring claim it is ProveStacked (the same stream; a column that is all of c.Stack
// gives its weights to the prover as working weight). Columns may overlap: weights add.
func (s *Scratch) ProveStackedRings(tr ProverTranscript, c *commit.Committed, rings []PlacedRing, points []PointClaim, workers par.Workers) error {
	return s.proveStackedRings(tr, c, rings, points, nil, workers)
}

// ProveStackedRingsIn is ProveStackedRings with the working weight given: b has one
// entry per committed word, and each ring's weights are b's region at its column
// (the ring switch wrote them there), the regions disjoint. b is overwritten (the
// words between the columns cleared, each column scaled in place), so the rings'
// weights are not copied into a weight of their own.
func (s *Scratch) ProveStackedRingsIn(tr ProverTranscript, c *commit.Committed, rings []PlacedRing, points []PointClaim, b []field.E, workers par.Workers) error {
	if len(b) != len(c.Stack) {
		return fmt.Errorf("%w: a weight of %d entries for %d committed words", ErrClaim, len(b), len(c.Stack))
	}
	for i, r := range rings {
		w, at := r.Claim.Weights, r.Place.Offset
		if len(w) == 0 || at < 0 || at >= len(b) || &w[0] != &b[at] {
			return fmt.Errorf("%w: ring %d's weights are not the given weight's column at %d", ErrClaim, i, at)
		}
	}
	if !disjoint(ringRegions(rings)) {
		return fmt.Errorf("%w: ring columns overlap in a given weight", ErrClaim)
	}
	return s.proveStackedRings(tr, c, rings, points, b, workers)
}

func (s *Scratch) proveStackedRings(tr ProverTranscript, c *commit.Committed, rings []PlacedRing, points []PointClaim, given []field.E, workers par.Workers) error {
	if err := checkRings(c.StackLog, rings, points); err != nil {
		return err
	}
	n := len(c.Stack)
	targets := make([]field.E, len(rings))
	for i, r := range rings {
		if len(r.Claim.Weights) != 1<<r.Place.Variables {
			return fmt.Errorf("%w: ring weights of %d entries for 2^%d", ErrClaim, len(r.Claim.Weights), r.Place.Variables)
		}
		if r.Place.Offset+len(r.Claim.Weights) > n {
			return fmt.Errorf("%w: column %+v outside the %d committed words", ErrClaim, r.Place, n)
		}
		targets[i] = r.Claim.Target
	}
	for i, pc := range points {
		if off, size := pointRegion(pc.Point); off+size > n {
			return fmt.Errorf("%w: point claim %d covers words [%d, %d) outside the %d committed words", ErrClaim, i, off, off+size, n)
		}
	}
	ringScales, pointScales, target := stackedTarget(tr.Observe, tr.Sample, targets, points)
	// With disjoint columns (a segmented proof's segments) each ring writes its own
	// region and only the words between them are cleared; overlapping ones add.
	regions := ringRegions(rings)
	apart := disjoint(regions)
	var b []field.E
	switch {
	case given != nil:
		b = given
	case len(rings) == 1 && rings[0].Place.Offset == 0 && len(rings[0].Claim.Weights) == n:
		b = rings[0].Claim.Weights
	default:
		s.weight = buffers.Grow(s.weight, n)
		b = s.weight
	}
	if apart {
		clearOutside(b, regions)
	} else {
		clear(b)
	}
	for i, r := range rings {
		region := b[r.Place.Offset : r.Place.Offset+len(r.Claim.Weights)]
		switch {
		case !apart:
			chunked(workers, len(region)).For(len(region), func(_, lo, hi int) {
				field.AddScaledE(region[lo:hi], r.Claim.Weights[lo:hi], ringScales[i])
			})
		case ringScales[i] != field.One:
			chunked(workers, len(region)).For(len(region), func(_, lo, hi int) {
				field.ScaleE(region[lo:hi], r.Claim.Weights[lo:hi], ringScales[i])
			})
		case &region[0] != &r.Claim.Weights[0]:
			// The ring claim takes the first power of the batching challenge, one.
			copy(region, r.Claim.Weights)
		}
	}
	for i, pc := range points {
		s.addPointWeight(b, pc.Point, pointScales[i], workers)
	}
	return s.ProveWHIR(tr, c, b, target, workers)
}

// ringRegions returns the rings' regions [offset, end) sorted by offset.
func ringRegions(rings []PlacedRing) [][2]int {
	rs := make([][2]int, len(rings))
	for i, r := range rings {
		rs[i] = [2]int{r.Place.Offset, r.Place.Offset + len(r.Claim.Weights)}
	}
	slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
	return rs
}

// disjoint reports whether no two of the sorted regions rs share a word.
func disjoint(rs [][2]int) bool {
	for i := 1; i < len(rs); i++ {
		if rs[i][0] < rs[i-1][1] {
			return false
		}
	}
	return true
}

// clearOutside zeroes the words of b that none of the sorted, disjoint regions rs
// covers.
func clearOutside(b []field.E, rs [][2]int) {
	at := 0
	for _, r := range rs {
		clear(b[at:r[0]])
		at = r[1]
	}
	clear(b[at:])
}

// pointRegion returns the aligned block of words on which eq(point, ·) is
// supported: its high coordinates equal to 0 or 1 select it.
func pointRegion(point []field.E) (offset, size int) {
	low := len(point)
	for low > 0 {
		x := point[low-1]
		if x == field.Zero {
			low--
		} else if x == field.One {
			low--
			offset |= 1 << low
		} else {
			break
		}
	}
	return offset, 1 << low
}

// addPointWeight adds scale·eq(point, ·) to b, touching only its region.
func (s *Scratch) addPointWeight(b []field.E, point []field.E, scale field.E, workers par.Workers) {
	offset, size := pointRegion(point)
	// The high boolean coordinates contribute factor 1 at the selected region.
	free := point[:bitsLen(size)]
	// So do low boolean ones, at a stride: the kernel is zero off the entries whose
	// low bits are those coordinates (a point that picks a word of every slot).
	lo, low := 0, 0
	for lo < len(free) && (free[lo] == field.Zero || free[lo] == field.One) {
		if free[lo] == field.One {
			low |= 1 << lo
		}
		lo++
	}
	if lo == 0 {
		field.AddEqScaledOn(b[offset:offset+size], free, scale, workers)
		return
	}
	s.point = buffers.Grow(s.point, size>>lo)
	field.EqTableOn(s.point, free[lo:], workers)
	region := b[offset+low : offset+size]
	for j, w := range s.point {
		region[j<<lo] = region[j<<lo].Add(scale.Mul(w))
	}
}

// bitsLen returns log2 of a power of two.
func bitsLen(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

// ProveStackedRings is Scratch.ProveStackedRings on a fresh scratch.
func ProveStackedRings(tr ProverTranscript, c *commit.Committed, rings []PlacedRing, points []PointClaim, workers par.Workers) error {
	return new(Scratch).ProveStackedRings(tr, c, rings, points, workers)
}

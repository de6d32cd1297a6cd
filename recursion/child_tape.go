package recursion

import (
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// A leaf child's verification on a tape (docs/recursion.md §6.4): what ChildStream
// replays with the challenges revealed, here with the challenges, the stream scalars
// and the deferred values all committed. Every check the child's verifier makes is an
// assertion of the tape, every product of two committed values a product; the
// challenges' bits (query indices) and the Merkle work stay with the query and
// transcript blocks.

// Hints are the values a child's verification takes besides its stream and
// challenges: its deferred evaluations, which the parent's deferred claims prove.
const (
	HintMatrixA = iota // e_rowᵀ·A0·w_col
	HintMatrixB        // e_rowᵀ·B0·w_col
	HintKey            // the key table's term P(τ, chi_out)
	hintCount
)

// HintEnforced and HintInduced are WHIR level l's enforced sum and its queries'
// induced weight (what the query segments sum to).
func HintEnforced(l int) int { return hintCount + 2*l }
func HintInduced(l int) int  { return hintCount + 2*l + 1 }

// TapeInputs are a child's committed values as tape inputs: stream scalar j, which
// on-chain step step absorbs; challenge i, which step step squeezes; hint h. With T
// set (TranscriptInputs), the public steps' data are asserted equal to what the
// verifier knows or computed, on the transcript blocks' words.
type TapeInputs struct {
	Stream    func(j, step int) Lin
	Challenge func(i, step int) Lin
	Hint      func(h int) Lin
	T         *TranscriptBlock
	TSeg      int
	RunOffset int
	// Levels, when set, place the WHIR levels' queries on no-reveal query segments:
	// their enforced sums and induced weights are then the λ-weighted sums of the
	// blocks' outputs (not hints), and the blocks' samples, eq tables, points and roots
	// are tied to the tape (assertions) and the stream (ChildTape.Words).
	Levels []TapeQueryLevel
	// Tape, when set, is recorded into (several children's tapes share one, so that
	// their units share the arithmetic and squaring segments).
	Tape *Tape
	// CommittedTail, in a segments tape, is the number of whole transcript steps at the
	// end of the absorbed statement that are committed data rather than bytes the
	// verifier knows: a merged child's carried values, one E to a step
	// (docs/recursion.md §6.7). They are read as stream values (SegmentsTape.Atoms).
	CommittedTail int
	// CarriedRels, in a segments tape, lists the relations whose values include a
	// committed atom: relation r's value is the constant part the relations' target
	// hint stands for plus atom k, for each pair {r, k}.
	CarriedRels [][2]int
	// Grind, when set (with T), places the WHIR levels' grinding checks on no-reveal
	// grinding blocks, level l in slot SlotOffset + l of segment Seg: each block's nonce
	// is asserted to be the stream's and its chaining value tied (ChildTape.Words) to
	// the transcript block's value before the nonce step.
	Grind *TapeGrind
}

// TapeGrind places a child's grinding checks.
type TapeGrind struct {
	GB              *GrindBlock
	Seg, SlotOffset int
}

// TapeQueryLevel places one WHIR level's queries on no-reveal blocks QB: query t in
// slot SlotOffset + t of segment Seg, or, from query Split on when Split > 0, in slot
// t − Split of segment Seg2 (a level whose queries straddle the two segments a query
// group is split into: docs/recursion.md §6.18).
type TapeQueryLevel struct {
	QB              *QueryBlock
	Seg, SlotOffset int
	Split, Seg2     int
}

// at is the segment and slot of query t.
func (ql TapeQueryLevel) at(t int) (seg, slot int) {
	if ql.Split > 0 && t >= ql.Split {
		return ql.Seg2, t - ql.Split
	}
	return ql.Seg, ql.SlotOffset + t
}

// word is the stack word of column col of query t's block.
func (ql TapeQueryLevel) word(t, col int) (seg, word int) {
	seg, slot := ql.at(t)
	return seg, ql.QB.Word(slot, col)
}

// TranscriptInputs places a child's stream and challenges on its transcript blocks
// (segment seg, the child's runs from slot runOffset): a scalar is the three data
// words of the step absorbing it, a challenge the first three words of the squeezing
// step's materialised output.
func TranscriptInputs(tb *TranscriptBlock, seg, runOffset int, hint func(h int) Lin) TapeInputs {
	t := &Tape{}
	return TapeInputs{T: tb, TSeg: seg, RunOffset: runOffset, Hint: hint,
		Stream:    func(_, step int) Lin { return t.Input(seg, tb.dataWord(runOffset, step)) },
		Challenge: func(_, step int) Lin { return t.Input(seg, tb.outWord(runOffset, step)) },
	}
}

// dataWord and outWord are the first words of a step's data and materialised output,
// the step counted over the child's runs from slot runOffset.
func (tb *TranscriptBlock) dataWord(runOffset, step int) int {
	return (tb.Data+256*(step%TranscriptSteps))/64 + (runOffset+step/TranscriptSteps)<<(TranscriptLogSize-6)
}

func (tb *TranscriptBlock) outWord(runOffset, step int) int {
	return (tb.Out+256*(step%TranscriptSteps))/64 + (runOffset+step/TranscriptSteps)<<(TranscriptLogSize-6)
}

// TapeStep is one on-chain step of a child's transcript as the tape replays it.
type TapeStep struct {
	Kind      StepKind
	Tag       uint64
	Var       int       // StepScalar
	Challenge int       // StepSqueeze
	Data      [3]uint64 // StepPublic with Observed nil: data the verifier knows
	Observed  *Lin      // StepPublic: data the verifier computed
}

// ChildTape is a child's verification on a tape, with what a parent wires further:
// the deferred claims' points as committed values.
type ChildTape struct {
	Tape              *Tape
	Vars, Challenges  int
	Skip, ChiIn, S    []Lin // the matrix claim's row and column weights' factors
	ChiInPrime, Tau   []Lin
	ChiOut            []Lin // the key claim's slot point
	Alpha, VA, VB, VC Lin
	Z                 Lin // the skip challenge (Skip is its Lagrange weights)
	// Steps are the child's on-chain transcript steps, as its transcript blocks hold
	// them.
	Steps []TapeStep
	// Levels are per WHIR level the values its query blocks read.
	Levels []TapeLevel
	// Words are relations on single K words the tape cannot state on E values: with
	// query segments, each block's root words equal the stream scalars carrying the
	// level's root, whose third words are zero.
	Words []flows.Relation
}

// TapeLevel is one WHIR level's committed values for its query blocks: the fold
// challenges, the query samples (the challenges whose bits are the indices), λ, and
// the point the induced weights are taken at (set once the last level is read).
type TapeLevel struct {
	Folds, Samples, Point []Lin
	Lambda                Lin
}

type tapeTr struct {
	t           *Tape
	in          TapeInputs
	vars, chals int
	steps       []TapeStep
}

func (s *tapeTr) Sample() Lin {
	s.steps = append(s.steps, TapeStep{Kind: StepSqueeze, Tag: tagSqueeze, Challenge: s.chals})
	s.chals++
	return s.in.Challenge(s.chals-1, len(s.steps)-1)
}

func (s *tapeTr) receive(tag uint64) Lin {
	s.steps = append(s.steps, TapeStep{Kind: StepScalar, Tag: tag, Var: s.vars})
	s.vars++
	return s.in.Stream(s.vars-1, len(s.steps)-1)
}

func (s *tapeTr) Receive() Lin { return s.receive(tagScalar) }

// public absorbs data the verifier knows (asserted on the transcript block's words).
func (s *tapeTr) public(tag uint64, data [3]uint64) {
	s.steps = append(s.steps, TapeStep{Kind: StepPublic, Tag: tag, Data: data})
	if s.in.T != nil {
		x := field.E{C0: field.K(data[0]), C1: field.K(data[1]), C2: field.K(data[2])}
		s.t.Equal("a public transcript step's data", s.t.Input(s.in.TSeg, s.in.T.dataWord(s.in.RunOffset, len(s.steps)-1)), ConstLin(x))
	}
}

// observe absorbs a value the verifier computed.
func (s *tapeTr) observe(x Lin) { s.observeTag(tagScalar, x) }

func (s *tapeTr) observeTag(tag uint64, x Lin) {
	s.steps = append(s.steps, TapeStep{Kind: StepPublic, Tag: tag, Observed: &x})
	if s.in.T != nil {
		s.t.Equal("an observed value", s.t.Input(s.in.TSeg, s.in.T.dataWord(s.in.RunOffset, len(s.steps)-1)), x)
	}
}

func (s *tapeTr) absorbBytes(b []byte) { s.absorbBytesTail(b, 0) }

// absorbBytesTail absorbs b whose last tail 24-byte steps are committed data: each is
// read as a stream value (an atom) and returned, in order.
func (s *tapeTr) absorbBytesTail(b []byte, tail int) []Lin {
	s.public(tagLen, [3]uint64{uint64(len(b))})
	known := len(b) - 24*tail
	var atoms []Lin
	for off := 0; off < len(b); off += 24 {
		if off >= known {
			atoms = append(atoms, s.receive(tagByte))
			continue
		}
		s.public(tagByte, chunkWords(b, off))
	}
	return atoms
}

// chunkWords are the three little-endian words of b's 24 bytes from off (zeros past
// its end), as transcript.AbsorbBytes takes them.
func chunkWords(b []byte, off int) [3]uint64 {
	var w [3]uint64
	for i := range 24 {
		if off+i < len(b) {
			w[i/8] |= uint64(b[off+i]) << (8 * (i % 8))
		}
	}
	return w
}

// observeBytesTail absorbs b as absorbBytesTail does, its committed steps observing
// atoms (another transcript's reading of the same committed data): each such step's
// data is asserted equal to its atom, which ties the two readings.
func (s *tapeTr) observeBytesTail(b []byte, atoms []Lin) {
	s.public(tagLen, [3]uint64{uint64(len(b))})
	known := len(b) - 24*len(atoms)
	for off := 0; off < len(b); off += 24 {
		if off >= known {
			s.observeTag(tagByte, atoms[(off-known)/24])
			continue
		}
		s.public(tagByte, chunkWords(b, off))
	}
}

func (s *tapeTr) receiveMany(n int) []Lin {
	out := make([]Lin, n)
	for i := range out {
		out[i] = s.Receive()
	}
	return out
}

// roundPoly reads a round polynomial as transcript.ReadRoundPoly does: with eq the
// constant coefficient is claim + eq·Σ_{i≥1} c_i, without it c1 = claim + Σ_{i≥2} c_i.
func (s *tapeTr) roundPoly(count int, claim Lin, eq *Lin) []Lin {
	fixed := 1
	if eq != nil {
		fixed = 0
	}
	c := make([]Lin, count)
	for i := range c {
		if i != fixed {
			c[i] = s.Receive()
		}
	}
	if eq == nil {
		c[1] = claim.Add(Sum(c[2:]...))
	} else {
		c[0] = claim.Add(s.t.Mul(*eq, Sum(c[1:]...)))
	}
	return c
}

// NewChildTape records the verification of an xmss-aggregate leaf of statement st
// through the lincheck's terminal check (docs/recursion.md §6.4), its committed values
// given by in.
func NewChildTape(st flows.Statement, in TapeInputs) (*ChildTape, error) {
	if st.Flow != "" && st.Flow != aggregate.FlowName {
		return nil, fmt.Errorf("%w, not %q", ErrNotAggregate, st.Flow)
	}
	sh, err := aggregate.Flow.Shape(st.N, st.LogInvRate)
	if err != nil {
		return nil, err
	}
	bind, err := aggregate.Bind(st)
	if err != nil {
		return nil, err
	}
	t := in.Tape
	if t == nil {
		t = &Tape{}
	}
	s := &tapeTr{t: t, in: in}
	ct := &ChildTape{Tape: t}
	s.absorbBytes(bind.Absorb)
	root := s.receiveMany(2) // the commitment's root, two halves (the query blocks read it)

	// The zerocheck and the lincheck with its public term (the matrices and the key
	// term are hints).
	win := bind.Public.Window()
	ft := tapeFlock(t, s, sh.M(), aggregate.LogSize, aggregate.ConstCol, &win, in.Hint(HintMatrixA), in.Hint(HintMatrixB), in.Hint(HintKey))
	ct.Z, ct.VA, ct.VB, ct.VC, ct.Alpha, ct.Tau = ft.z, ft.va, ft.vb, ft.vc, ft.alpha, ft.tau
	ct.S, ct.ChiIn, ct.ChiOut, ct.ChiInPrime, ct.Skip = ft.s, ft.chiIn, ft.chiOut, ft.chiInPrime, ft.skip

	// The ring switch (ringswitch.Verify) and the stacked opening of its one claim.
	point := append(slices.Clone(ct.ChiInPrime), ct.ChiOut...)
	ring := tapeRing(t, s, point, ct.S)
	place := open.Placement{Variables: sh.Mu, Offset: 0}
	s.Sample() // the stacked claims' scale: its power 0 is 1
	basis := func(x []Lin) Lin {
		low, high := x[:place.Variables], x[place.Variables:]
		return t.Mul(selectorEq(t, place.Selector(), high), ring.weightAt(low))
	}
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		return nil, err
	}
	levelHints := func(l int) (Lin, Lin) { return in.Hint(HintEnforced(l)), in.Hint(HintInduced(l)) }
	if err := ct.whir(s, sh.Commitment(), cfg, ring.target, root, basis, levelHints); err != nil {
		return nil, err
	}
	ct.Vars, ct.Challenges, ct.Steps = s.vars, s.chals, s.steps
	return ct, nil
}

// selectorEq is open.SelectorEq on committed coordinates.
func selectorEq(t *Tape, selector int, point []Lin) Lin {
	out := oneLin
	for k, x := range point {
		if k < 63 && selector>>k&1 == 1 {
			out = t.Mul(out, x)
		} else {
			out = t.Mul(out, x.addConst(field.One))
		}
	}
	return out
}

// tapeRingClaim is the ring switch's claim on the tape.
type tapeRingClaim struct {
	target   Lin
	weightAt func(rPrime []Lin) Lin
}

// tapeRing is ringswitch.Verify on the tape: Φ's six challenges, the target
// Σ_i x^i·Φ(s_i), and the weight's extension Σ_k c_k·Π_n (1 + point_n^(2^k) + r′_n).
func tapeRing(t *Tape, s *tapeTr, point, sl []Lin) tapeRingClaim {
	var f [len(ringswitch.MapShifts)]Lin
	for p := range f {
		f[p] = s.Sample()
	}
	phi := func(a Lin) Lin {
		for p, shift := range ringswitch.MapShifts {
			a = a.Add(t.Mul(f[p], t.Frob(a, shift)))
		}
		return a
	}
	var target Lin
	x := field.E{C0: 2} // the K generator
	for i := lincheck.KBits - 1; i >= 0; i-- {
		target = target.Scale(x).Add(phi(sl[i]))
	}
	// c_k = Π over the stages p whose shift bit is set in k of f_p^(2^(k mod shift_p)).
	var frob [len(ringswitch.MapShifts)][32]Lin
	for p, shift := range ringswitch.MapShifts {
		v := f[p]
		for j := range shift {
			frob[p][j] = v
			if j+1 < shift {
				v = t.Frob(v, 1)
			}
		}
	}
	var coeffs [lincheck.KBits]Lin
	for k := range coeffs {
		v := oneLin
		for p, shift := range ringswitch.MapShifts {
			if k&shift != 0 {
				v = t.Mul(v, frob[p][k%shift])
			}
		}
		coeffs[k] = v
	}
	return tapeRingClaim{target: target, weightAt: func(rPrime []Lin) Lin {
		fr := slices.Clone(point)
		var total Lin
		for k := range coeffs {
			prod := coeffs[k]
			for n := range fr {
				prod = t.Mul(prod, fr[n].Add(rPrime[n]).addConst(field.One))
				if k+1 < len(coeffs) {
					fr[n] = t.Frob(fr[n], 1)
				}
			}
			total = total.Add(prod)
		}
		return total
	}}
}

// whir is open.VerifyWHIR on the tape (recursion's whirStream with nothing revealed):
// the enforced sums and induced weights are hints the query segments prove.
func (ct *ChildTape) whir(s *tapeTr, sh commit.Shape, cfg *open.Config, target Lin, root []Lin, basis func([]Lin) Lin, levelHints func(l int) (Lin, Lin)) error {
	t := ct.Tape
	logN := sh.StackLog
	levels := cfg.Levels()
	// The target, then the commitment's root (received first) observed again.
	s.observe(target)
	s.observe(root[0])
	s.observe(root[1])
	readQuad := func(claim Lin) [3]Lin { c := s.roundPoly(3, claim, nil); return [3]Lin{c[0], c[1], c[2]} }
	running := target
	q := readQuad(running)
	var folds []Lin
	type glued struct {
		scalar    Lin
		foldStart int
		weightAt  func([]Lin) Lin
	}
	var claims []glued
	roots := [][]Lin{root}
	ct.Levels = make([]TapeLevel, levels)
	foldStarts := make([]int, levels)
	for level := range levels {
		lq := &ct.Levels[level]
		for range cfg.Folds[level] {
			r := s.Sample()
			folds = append(folds, r)
			lq.Folds = append(lq.Folds, r)
			running = t.Poly(q[:], r)
			q = readQuad(running)
		}
		messageLog := logN - len(folds)
		foldStarts[level] = len(folds)
		final := level == levels-1
		type pending struct {
			value    Lin
			intro    [3]Lin
			weightAt func([]Lin) Lin
		}
		var pend []pending
		var residual []Lin
		if final {
			residual = s.receiveMany(1 << messageLog)
		} else {
			roots = append(roots, s.receiveMany(2)) // the next level's root (its query blocks read it)
			zp := make([]Lin, messageLog)
			for i := range zp {
				zp[i] = s.Sample()
			}
			y := s.Receive()
			pend = append(pend, pending{y, readQuad(y), func(x []Lin) Lin { return t.EqEval(zp, x) }})
		}
		nonce := s.receive(tagNonce) // the level's grinding nonce (the grinding blocks check it)
		if g := s.in.Grind; g != nil && s.in.T != nil {
			ct.grindLevel(g, s.in, level, len(s.steps)-1, nonce)
		}
		blockLog := messageLog + cfg.LogInvRates[level]
		samples := 0
		transcript.QueriesFrom(1<<blockLog, cfg.Queries[level], func() field.E { samples++; return field.E{} })
		for range samples {
			lq.Samples = append(lq.Samples, s.Sample())
		}
		lambda := s.Sample()
		lq.Lambda = lambda
		var enforced, induced Lin
		if s.in.Levels == nil {
			enforced, induced = levelHints(level)
		} else {
			var err error
			if enforced, induced, err = ct.queryLevel(s.in.Levels[level], level, cfg.Queries[level], blockLog, messageLog, roots[level]); err != nil {
				return err
			}
		}
		pend = append(pend, pending{enforced, readQuad(enforced), func([]Lin) Lin { return induced }})
		scalar := oneLin
		for _, p := range pend {
			scalar = t.Mul(scalar, lambda)
			for i := range q {
				q[i] = q[i].Add(t.Mul(p.intro[i], scalar))
			}
			running = running.Add(t.Mul(p.value, scalar))
			claims = append(claims, glued{scalar, len(folds), p.weightAt})
		}
		if !final {
			continue
		}
		tail := make([]Lin, 0, messageLog)
		for i := range messageLog {
			r := s.Sample()
			running = t.Poly(q[:], r)
			tail = append(tail, r)
			if i+1 < messageLog {
				q = readQuad(running)
			}
		}
		point := append(slices.Clone(folds), tail...)
		f0 := cfg.Folds[0]
		stackPoint := append(slices.Clone(point[f0:]), point[:f0]...)
		weight := basis(stackPoint)
		for _, c := range claims {
			x := append(slices.Clone(folds[c.foldStart:]), tail...)
			weight = weight.Add(t.Mul(c.scalar, c.weightAt(x)))
		}
		// weight·residual(tail) = running.
		t.Equal("WHIR terminal", running, t.Mul(weight, t.InnerProduct(residual, t.EqTable(tail))))
		for l := range ct.Levels {
			ct.Levels[l].Point = append(slices.Clone(folds[foldStarts[l]:]), tail...)
			if s.in.Levels != nil {
				ct.queryPoints(s.in.Levels[l], l, cfg.Queries[l])
			}
		}
		return nil
	}
	return fmt.Errorf("%w: no final WHIR level", ErrReveal)
}

// windowTerm is Σ_j mask(j)·eq(τ, j)·s[(Offset+j) mod 64]·eq(chi_in′, ⌊(Offset+j)/64⌋),
// lincheck.Terminal's public-window term. With the window on whole 64-column blocks
// and aligned to its size it is computed in tensor form: j = 64·h + l, eq(τ, j) =
// eq(τ_low, l)·eq(τ_high, h), the blocks' eq(chi_in′, ·) from one table over the low
// coordinates times the high ones' eq (when the window is aligned to its size; else
// per block), and Σ_l over a block's mask shared by every block with the same word.
func windowTerm(t *Tape, win lincheck.Window, tau, s, chiInPrime []Lin) Lin {
	if win.Log < lincheck.KSkip || win.Offset%64 != 0 || len(chiInPrime) < win.Log-lincheck.KSkip {
		return windowTermFlat(t, win, tau, s, chiInPrime)
	}
	aligned := (win.Offset>>lincheck.KSkip)%(1<<(win.Log-lincheck.KSkip)) == 0
	h := win.Log - lincheck.KSkip
	eqLo := t.EqTable(tau[:lincheck.KSkip])
	es := make([]Lin, len(eqLo)) // eq(τ_low, l)·s[l]
	for l := range es {
		es[l] = t.Mul(eqLo[l], s[l])
	}
	eqHi := t.EqTable(tau[lincheck.KSkip:])
	// eq(chi_in′, b0 + k) = eq(chi_in′[:h], k)·eq(chi_in′[h:], b0 >> h) when b0 is
	// aligned to 2^h; else each block's eq on its own.
	b0 := win.Offset >> lincheck.KSkip
	var blk []Lin
	high := oneLin
	if aligned {
		blk = t.EqTable(chiInPrime[:h])
		high = t.EqAt(chiInPrime[h:], b0>>h)
	} else {
		blk = make([]Lin, 1<<h)
		for k := range blk {
			blk[k] = t.EqAt(chiInPrime, b0+k)
		}
	}
	inner := map[uint64]Lin{} // Σ_l over a mask word
	var acc Lin
	for k := range 1 << h {
		word := ^uint64(0)
		if win.Mask != nil {
			word = win.Mask[k]
		}
		if word == 0 {
			continue
		}
		in, ok := inner[word]
		if !ok {
			for l := range 64 {
				if word>>l&1 == 1 {
					in = in.Add(es[l])
				}
			}
			inner[word] = in
		}
		acc = acc.Add(t.Mul(t.Mul(eqHi[k], blk[k]), in))
	}
	return t.Mul(acc, high)
}

// windowTermFlat is windowTerm one pinned column at a time.
func windowTermFlat(t *Tape, win lincheck.Window, tau, s, chiInPrime []Lin) Lin {
	eqTau := t.EqTable(tau)
	var acc Lin
	blockEq := map[int]Lin{}
	for j := range eqTau {
		if win.Mask != nil && win.Mask[j/64]>>(j%64)&1 == 0 {
			continue
		}
		col := win.Offset + j
		blk := col >> lincheck.KSkip
		e, ok := blockEq[blk]
		if !ok {
			e = t.EqAt(chiInPrime, blk)
			blockEq[blk] = e
		}
		acc = acc.Add(t.Mul(eqTau[j], t.Mul(s[col&(lincheck.KBits-1)], e)))
	}
	return acc
}

// queryLevel ties level l's n query blocks to the tape (samples, eq table of the
// level's folds, level 0's in reversed lane order) and to the stream scalars holding
// the level's root (ct.Words), and returns the λ-weighted sums of their fold and
// induced terms: the level's enforced sum and induced weight.
func (ct *ChildTape) queryLevel(ql TapeQueryLevel, l, n, depth, pointLen int, root []Lin) (enforced, induced Lin, err error) {
	t, qb, lv := ct.Tape, ql.QB, &ct.Levels[l]
	if qb == nil || !qb.noReveal || qb.Depth != depth || qb.level0 != (l == 0) || qb.PointLen != pointLen {
		return Lin{}, Lin{}, fmt.Errorf("recursion: level %d needs a no-reveal query block of depth %d and point %d", l, depth, pointLen)
	}
	if need := (n + qb.PerWord - 1) / qb.PerWord; len(lv.Samples) != need {
		return Lin{}, Lin{}, fmt.Errorf("recursion: level %d draws %d samples for %d queries, %d per sample", l, len(lv.Samples), n, qb.PerWord)
	}
	eq := t.EqTable(lv.Folds)
	if l == 0 {
		slices.Reverse(eq)
	}
	if len(eq) != qb.EqLen {
		return Lin{}, Lin{}, fmt.Errorf("recursion: level %d folds %d values, its block %d", l, len(eq), qb.EqLen)
	}
	in := func(q, col int) Lin { return t.Input(ql.word(q, col)) }
	pow := oneLin
	for q := range n {
		t.Equal("a query's sample", in(q, qb.Sample), lv.Samples[q/qb.PerWord])
		for i, e := range eq {
			t.Equal("a query's eq entry", in(q, qb.Eq+192*i), e)
		}
		rootSeg, rootWord := ql.word(q, qb.Root)
		for k := range 4 {
			half := root[k/2].Terms[0].Atom
			ct.Words = append(ct.Words, flows.Relation{Terms: []flows.RelationTerm{
				{Segment: rootSeg, Word: rootWord + k, Coeff: field.One},
				{Segment: half.Segment, Word: half.Word + k%2, Coeff: field.One}}})
		}
		enforced = enforced.Add(t.Mul(pow, in(q, qb.Fold)))
		induced = induced.Add(t.Mul(pow, in(q, qb.Induced)))
		if q+1 < n {
			pow = t.Mul(pow, lv.Lambda)
		}
	}
	for _, h := range root {
		a := h.Terms[0].Atom
		ct.Words = append(ct.Words, flows.Relation{Terms: []flows.RelationTerm{{Segment: a.Segment, Word: a.Word + 2, Coeff: field.One}}})
	}
	return enforced, induced, nil
}

// queryPoints ties level l's query blocks' induced point to the level's point.
func (ct *ChildTape) queryPoints(ql TapeQueryLevel, l, n int) {
	t, qb := ct.Tape, ql.QB
	for q := range n {
		for k, p := range ct.Levels[l].Point {
			t.Equal("a query's induced point", t.Input(ql.word(q, qb.Point+192*k)), p)
		}
	}
}

// grindLevel ties level l's grinding block to the nonce step (step): its nonce to the
// stream's, its chaining value to the transcript block's before the step (the
// previous step's output, or the run's starting value when the nonce opens a run).
func (ct *ChildTape) grindLevel(g *TapeGrind, in TapeInputs, l, step int, nonce Lin) {
	t, tb := ct.Tape, in.T
	slot := g.SlotOffset + l
	t.Equal("a grinding nonce", t.Input(g.Seg, g.GB.Word(slot, g.GB.Nonce)), nonce)
	pos, run := step%TranscriptSteps, in.RunOffset+step/TranscriptSteps
	base := tb.CV/64 + run<<(TranscriptLogSize-6)
	if pos > 0 {
		base = (tb.Out+256*(pos-1))/64 + run<<(TranscriptLogSize-6)
	}
	for k := range 4 {
		ct.Words = append(ct.Words, flows.Relation{Terms: []flows.RelationTerm{
			{Segment: g.Seg, Word: g.GB.Word(slot, g.GB.CV) + k, Coeff: field.One},
			{Segment: in.TSeg, Word: base + k, Coeff: field.One}}})
	}
}

// DeferredReveal is what a parent carries of a child's deferred claims (docs/recursion.md
// §6.6): the points and values of its matrix claim and key claim. It is the only part
// of a child's verification that is revealed: a fixed number of values per child, so
// proofs do not grow with the tree, and the parent's verifier batches or checks the
// claims natively from it.
type DeferredReveal struct {
	Z                                 field.E // the skip challenge: Row.Low = L(Z)
	ChiIn, S, ChiInPrime, Tau, ChiOut []field.E
	VA, VB, Key                       field.E
}

// Claims returns the revealed matrix and key claims.
func (d *DeferredReveal) Claims() (MatrixClaim, KeyClaim) {
	skip := make([]field.E, 1<<lincheck.KSkip)
	lincheck.SkipWeights(skip, d.Z)
	return MatrixClaim{
			Row: Weight{Low: skip, High: slices.Clone(d.ChiIn)},
			Col: Weight{Low: slices.Clone(d.S), High: slices.Clone(d.ChiInPrime)},
			VA:  d.VA, VB: d.VB,
		},
		KeyClaim{Tau: slices.Clone(d.Tau), ChiOut: slices.Clone(d.ChiOut), Value: d.Key}
}

// Deferred evaluates the child's deferred claims' points on the tape's inputs (the
// prover's side: what it reveals), with the hints' values.
func (ct *ChildTape) Deferred(value func(seg, word int) field.E, hints []field.E) DeferredReveal {
	_, _, units := ct.Tape.Operands(value)
	ev := func(ls []Lin) []field.E {
		out := make([]field.E, len(ls))
		for i, l := range ls {
			out[i] = l.Eval(value, units)
		}
		return out
	}
	return DeferredReveal{Z: ct.Z.Eval(value, units), ChiIn: ev(ct.ChiIn), S: ev(ct.S), ChiInPrime: ev(ct.ChiInPrime),
		Tau: ev(ct.Tau), ChiOut: ev(ct.ChiOut), VA: hints[HintMatrixA], VB: hints[HintMatrixB], Key: hints[HintKey]}
}

// AssertDeferred records that the child's committed deferred points are the revealed
// ones (their values enter through the hints: RevealedHints).
func (ct *ChildTape) AssertDeferred(d *DeferredReveal) error {
	t := ct.Tape
	pairs := []struct {
		what string
		ls   []Lin
		vs   []field.E
	}{
		{"the skip challenge", []Lin{ct.Z}, []field.E{d.Z}},
		{"chi_in", ct.ChiIn, d.ChiIn}, {"the slice values", ct.S, d.S}, {"chi_in′", ct.ChiInPrime, d.ChiInPrime},
		{"τ", ct.Tau, d.Tau}, {"chi_out", ct.ChiOut, d.ChiOut},
	}
	for _, p := range pairs {
		if len(p.ls) != len(p.vs) {
			return fmt.Errorf("%w: %d revealed values of %s for %d", ErrReveal, len(p.vs), p.what, len(p.ls))
		}
		for i := range p.ls {
			t.Equal("a revealed deferred point: "+p.what, p.ls[i], ConstLin(p.vs[i]))
		}
	}
	return nil
}

// RevealedHints are the hints of a child whose deferred values are revealed: constants.
func RevealedHints(d *DeferredReveal) func(h int) Lin {
	return func(h int) Lin {
		switch h {
		case HintMatrixA:
			return ConstLin(d.VA)
		case HintMatrixB:
			return ConstLin(d.VB)
		case HintKey:
			return ConstLin(d.Key)
		}
		panic(fmt.Sprintf("recursion: hint %d of a child with revealed deferred values", h))
	}
}

// flockTape is one Flock instance's zerocheck and lincheck replayed on a tape: what
// the lincheck's claim and deferred evaluations are made of.
type flockTape struct {
	z, va, vb, vc, alpha                    Lin
	tau, s, chiIn, chiOut, chiInPrime, skip []Lin
}

// tapeFlock replays zerocheck.VerifyWith over m variables and
// lincheck.VerifyPublicDeferred for a circuit of 2^logSize columns (constant column
// constCol; public window win, nil for none) on the tape, with the matrices' values
// hintA, hintB and the public term's pub as committed values, and asserts the
// lincheck's terminal identity.
func tapeFlock(t *Tape, s *tapeTr, m, logSize, constCol int, win *lincheck.Window, hintA, hintB, pub Lin) flockTape {
	var ft flockTape
	fixed := zerocheck.EqPoint(func() field.E { return field.E{} }, m)
	r := make([]Lin, len(fixed))
	for i := range r {
		if i < zerocheck.NInner {
			r[i] = ConstLin(fixed[i])
		} else {
			r[i] = s.Sample()
		}
	}
	coset := s.receiveMany(1 << zerocheck.KSkip)
	ft.z = s.Sample()
	cw := t.Lagrange(2<<zerocheck.KSkip, ft.z)[1<<zerocheck.KSkip:]
	running := t.InnerProduct(cw, coset)
	chi := make([]Lin, len(r))
	for i := range r {
		q := s.roundPoly(3, running, &r[i])
		chi[i] = s.Sample()
		running = t.Poly(q, chi[i])
	}
	ft.va, ft.vb = s.Receive(), s.Receive()
	ft.vc = running.Add(t.Mul(ft.va, ft.vb))

	rounds := logSize - lincheck.KSkip
	alpha := s.Sample()
	ft.alpha = alpha
	if win != nil {
		ft.tau = make([]Lin, win.Log)
		for i := range ft.tau {
			ft.tau[i] = s.Sample()
		}
	}
	a2 := t.Mul(alpha, alpha)
	a3 := t.Mul(a2, alpha)
	a4 := t.Mul(a2, a2)
	running = Sum(t.Mul(ft.vc, a2), ft.va, t.Mul(alpha, ft.vb), a3)
	if win != nil {
		running = running.Add(t.Mul(a4, pub))
	}
	challenges := make([]Lin, rounds)
	for i := range challenges {
		q := s.roundPoly(3, running, nil)
		challenges[i] = s.Sample()
		running = t.Poly(q, challenges[i])
	}
	ft.s = s.receiveMany(lincheck.KBits)
	ft.chiIn, ft.chiOut = chi[:rounds], chi[rounds:]
	ft.chiInPrime = slices.Clone(challenges)
	slices.Reverse(ft.chiInPrime)
	ft.skip = t.Lagrange(1<<lincheck.KSkip, ft.z)
	matrix := hintA.Add(t.Mul(alpha, hintB))
	terminal := Sum(matrix,
		t.Mul(t.Mul(a2, t.EqEval(ft.chiIn, ft.chiInPrime)), t.InnerProduct(ft.skip, ft.s)),
		t.Mul(a3, t.Mul(ft.s[constCol&(lincheck.KBits-1)], t.EqAt(ft.chiInPrime, constCol>>lincheck.KSkip))))
	if win != nil {
		terminal = terminal.Add(t.Mul(a4, windowTerm(t, *win, ft.tau, ft.s, ft.chiInPrime)))
	}
	t.Equal("lincheck terminal", running, terminal)
	return ft
}

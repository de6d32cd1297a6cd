package recursion

import (
	"errors"
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Stream checks (docs/recursion.md §4.4): a child's verification replayed on its
// stream scalars as unknowns. Once the parent reveals the child's challenges, its
// Merkle roots, each WHIR level's enforced sum and induced weight, the zerocheck's
// v_a and v_b, the lincheck's 64 slice values and the deferred evaluations, every
// check the child's verifier makes on its stream is affine in the stream: round
// polynomials are evaluated at known challenges, their fixed coefficient is a sum, the
// coset interpolation and the final multilinear evaluation have known weights. The two
// steps that are not (the product v_a·v_b and the ring switch's Φ, a sum of
// Frobenius powers) read only revealed values. So the stream never needs revealing:
// the transcript blocks (segment T) hold it as the data they absorb, and the checks
// become linear claims on T's column (flows.LinearClaim), with the revealed values as
// constants. ChildStream also returns the child's transcript schedule (what each
// on-chain step absorbs), which pins every step's data: a stream scalar, a value the
// verifier knows, or the zeros of a squeeze.

// Affine is Σ_t A_t·x_{J_t} + C over a child's stream scalars x_j.
type Affine struct {
	C     field.E
	Terms []AffineTerm
}

// AffineTerm is one term A·x_J of an Affine.
type AffineTerm struct {
	J int
	A field.E
}

func constant(c field.E) Affine { return Affine{C: c} }

func variable(j int) Affine { return Affine{Terms: []AffineTerm{{j, field.One}}} }

// Add returns a + b.
func (a Affine) Add(b Affine) Affine {
	t := make([]AffineTerm, 0, len(a.Terms)+len(b.Terms))
	return Affine{C: a.C.Add(b.C), Terms: append(append(t, a.Terms...), b.Terms...)}
}

// Scale returns e·a.
func (a Affine) Scale(e field.E) Affine {
	t := make([]AffineTerm, len(a.Terms))
	for i, x := range a.Terms {
		t[i] = AffineTerm{x.J, e.Mul(x.A)}
	}
	return Affine{C: e.Mul(a.C), Terms: t}
}

// Eval returns a's value at the stream x.
func (a Affine) Eval(x []field.E) field.E {
	v := a.C
	for _, t := range a.Terms {
		v = v.Add(t.A.Mul(x[t.J]))
	}
	return v
}

// normal merges a's terms on one scalar and drops zero ones, in scalar order.
func (a Affine) normal() Affine {
	sum := map[int]field.E{}
	var order []int
	for _, t := range a.Terms {
		if _, ok := sum[t.J]; !ok {
			order = append(order, t.J)
		}
		sum[t.J] = sum[t.J].Add(t.A)
	}
	out := Affine{C: a.C}
	for _, j := range order {
		if !sum[j].IsZero() {
			out.Terms = append(out.Terms, AffineTerm{j, sum[j]})
		}
	}
	return out
}

// polyAt is Σ_i c_i·r^i for affine coefficients (Horner).
func polyAt(c []Affine, r field.E) Affine {
	acc := Affine{}
	for i := len(c) - 1; i >= 0; i-- {
		acc = acc.Scale(r).Add(c[i])
	}
	return acc
}

// StepKind says what an on-chain transcript step absorbs.
type StepKind uint8

const (
	// StepScalar absorbs stream scalar Var.
	StepScalar StepKind = iota
	// StepPublic absorbs Data, which the verifier knows (statement bytes, a length,
	// a value it computed).
	StepPublic
	// StepSqueeze absorbs zeros and outputs challenge number Challenge.
	StepSqueeze
)

// Domain tags of the transcript's steps (lane 3 of the absorbed block).
const (
	tagScalar  = 1
	tagByte    = 2
	tagLen     = 3
	tagSqueeze = 4
	tagNonce   = 6
)

// StreamStep is one on-chain step of a child's transcript schedule.
type StreamStep struct {
	Kind      StepKind
	Tag       uint64
	Var       int       // StepScalar
	Data      [3]uint64 // StepPublic
	Challenge int       // StepSqueeze
}

// StreamCheck is one check of the child's verifier: Value must be zero.
type StreamCheck struct {
	What  string
	Value Affine
}

// StreamChecks is a child's verification replayed on its stream as unknowns.
type StreamChecks struct {
	Steps  []StreamStep
	Checks []StreamCheck
	Vars   int // stream scalars the child's proof carries
	// Nonces are the WHIR levels' grinding nonces (stream scalars; the grinding
	// blocks check their proof of work, the checks here pin them to the revealed ones),
	// and NonceSteps the on-chain steps absorbing them.
	Nonces, NonceSteps []int
	// Levels are the WHIR levels' query inputs as the verifier knows them (the rows and
	// paths are the prover's): root, folds, λ, point, and per query its index, eq table
	// and weight; Enforced is the revealed sum.
	Levels []LevelQueries
	// Matrix and Key are the deferred claims the child's lincheck leaves (on the
	// xmss-aggregate circuit's matrices and on the child's key table), with Alpha.
	Matrix MatrixClaim
	Key    KeyClaim
	Alpha  field.E
}

// ChildReveal is what a parent reveals of one child's verification: the values that
// make every stream check affine.
type ChildReveal struct {
	// Challenges are every challenge the child's transcript squeezed, in order (the
	// query positions' squeezes included).
	Challenges []field.E
	// Roots are the WHIR levels' Merkle roots, the commitment's first.
	Roots []merkle.Digest
	// VA and VB are the zerocheck's claims; their product is the one product of two
	// stream scalars in the child's checks.
	VA, VB field.E
	// S are the lincheck's 64 slice values: the ring switch's target applies Φ (sums
	// of Frobenius powers, not E-linear) to them.
	S []field.E
	// Values are the deferred evaluations (the lincheck's matrices and key term).
	Values ChildValues
	// Enforced and Induced are each WHIR level's enforced sum and its queries'
	// induced weight at the level's point (what the query segments sum to).
	Enforced, Induced []field.E
	// Nonces are the WHIR levels' grinding nonces.
	Nonces []field.E
}

// ErrReveal reports revealed values that do not fit the child's shape.
var ErrReveal = errors.New("recursion: the revealed values do not fit the child")

type symTranscript struct {
	challenges []field.E
	used       int
	vars       int
	steps      []StreamStep
	checks     []StreamCheck
	nonces     []int
	short      bool
}

// Sample takes the next revealed challenge (the step squeezes it).
func (s *symTranscript) Sample() field.E {
	s.steps = append(s.steps, StreamStep{Kind: StepSqueeze, Tag: tagSqueeze, Challenge: s.used})
	if s.used >= len(s.challenges) {
		s.short = true
		s.used++
		return field.One
	}
	s.used++
	return s.challenges[s.used-1]
}

func (s *symTranscript) receive(tag uint64) Affine {
	j := s.vars
	s.vars++
	s.steps = append(s.steps, StreamStep{Kind: StepScalar, Tag: tag, Var: j})
	return variable(j)
}

func (s *symTranscript) Receive() Affine { return s.receive(tagScalar) }

func (s *symTranscript) receiveMany(n int) []Affine {
	out := make([]Affine, n)
	for i := range out {
		out[i] = s.Receive()
	}
	return out
}

func (s *symTranscript) public(tag, w0, w1, w2 uint64) {
	s.steps = append(s.steps, StreamStep{Kind: StepPublic, Tag: tag, Data: [3]uint64{w0, w1, w2}})
}

func (s *symTranscript) Observe(x field.E) {
	s.public(tagScalar, uint64(x.C0), uint64(x.C1), uint64(x.C2))
}

func (s *symTranscript) absorbBytes(b []byte) {
	s.public(tagLen, uint64(len(b)), 0, 0)
	for off := 0; off < len(b); off += 24 {
		var w [3]uint64
		for i := range 24 {
			if off+i < len(b) {
				w[i/8] |= uint64(b[off+i]) << (8 * (i % 8))
			}
		}
		s.public(tagByte, w[0], w[1], w[2])
	}
}

// roundPoly receives a round polynomial of count coefficients and derives the fixed
// one as transcript.Verifier.RoundPoly does.
func (s *symTranscript) roundPoly(count int, claim Affine, eq *field.E) []Affine {
	fixed := 1
	if eq != nil {
		fixed = 0
	}
	c := make([]Affine, count)
	for i := range c {
		if i != fixed {
			c[i] = s.Receive()
		}
	}
	if eq == nil {
		sum := claim
		for _, x := range c[2:] {
			sum = sum.Add(x)
		}
		c[1] = sum
	} else {
		var sum Affine
		for _, x := range c[1:] {
			sum = sum.Add(x)
		}
		c[0] = claim.Add(sum.Scale(*eq))
	}
	return c
}

func (s *symTranscript) check(what string, a Affine) {
	s.checks = append(s.checks, StreamCheck{What: what, Value: a})
}

func (s *symTranscript) equal(what string, a Affine, v field.E) { s.check(what, a.Add(constant(v))) }

// ChildStream replays the verification of an xmss-aggregate child of statement st on
// its stream as unknowns, from what the parent reveals.
func ChildStream(st flows.Statement, rev *ChildReveal) (*StreamChecks, error) {
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
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		return nil, err
	}
	levels := cfg.Levels()
	if len(rev.Roots) != levels || len(rev.Enforced) != levels || len(rev.Induced) != levels || len(rev.Nonces) != levels || len(rev.S) != lincheck.KBits {
		return nil, fmt.Errorf("%w: %d roots, %d enforced sums, %d induced weights, %d nonces for %d levels, %d slice values",
			ErrReveal, len(rev.Roots), len(rev.Enforced), len(rev.Induced), len(rev.Nonces), levels, len(rev.S))
	}
	s := &symTranscript{challenges: rev.Challenges}
	s.absorbBytes(bind.Absorb)
	receiveRoot(s, rev.Roots[0], "the commitment's root")

	// The zerocheck (zerocheck.VerifyWith).
	m := sh.M()
	r := zerocheck.EqPoint(s.Sample, m)
	coset := s.receiveMany(1 << zerocheck.KSkip)
	z := s.Sample()
	cw := make([]field.E, 1<<zerocheck.KSkip)
	zerocheck.CosetWeights(cw, z)
	var running Affine
	for j, x := range coset {
		running = running.Add(x.Scale(cw[j]))
	}
	chi := make([]field.E, len(r))
	for i := range r {
		q := s.roundPoly(3, running, &r[i])
		chi[i] = s.Sample()
		running = polyAt(q, chi[i])
	}
	s.equal("zerocheck v_a", s.Receive(), rev.VA)
	s.equal("zerocheck v_b", s.Receive(), rev.VB)
	vc := running.Add(constant(rev.VA.Mul(rev.VB)))

	// The lincheck with its public term (lincheck.VerifyPublic), matrices and key
	// term deferred.
	rounds := aggregate.LogSize - lincheck.KSkip
	win := bind.Public.Window()
	alpha := s.Sample()
	tau := make([]field.E, win.Log)
	for i := range tau {
		tau[i] = s.Sample()
	}
	a2 := alpha.Square()
	a4 := a2.Square()
	running = vc.Scale(a2).Add(constant(rev.VA.Add(alpha.Mul(rev.VB)).Add(a2.Mul(alpha)).Add(a4.Mul(rev.Values.Key))))
	challenges := make([]field.E, rounds)
	for t := range challenges {
		q := s.roundPoly(3, running, nil)
		challenges[t] = s.Sample()
		running = polyAt(q, challenges[t])
	}
	for i := range lincheck.KBits {
		s.equal(fmt.Sprintf("lincheck slice value %d", i), s.Receive(), rev.S[i])
	}
	chiIn := chi[:rounds]
	chiInPrime := slices.Clone(challenges)
	slices.Reverse(chiInPrime)
	skip := make([]field.E, 1<<lincheck.KSkip)
	lincheck.SkipWeights(skip, z)
	matrix := rev.Values.VA.Add(alpha.Mul(rev.Values.VB))
	s.equal("lincheck terminal", running, lincheck.Terminal(matrix, alpha, skip, chiIn, chiInPrime, rev.S, aggregate.ConstCol, &win, tau))
	out := &StreamChecks{
		Matrix: MatrixClaim{
			Row: Weight{Low: skip, High: append([]field.E(nil), chiIn...)},
			Col: Weight{Low: append([]field.E(nil), rev.S...), High: append([]field.E(nil), chiInPrime...)},
			VA:  rev.Values.VA, VB: rev.Values.VB,
		},
		Key:   KeyClaim{Tau: tau, ChiOut: append([]field.E(nil), chi[rounds:]...), Value: rev.Values.Key},
		Alpha: alpha,
	}
	point := append(append([]field.E(nil), chiInPrime...), chi[rounds:]...)

	// The ring switch and the stacked opening of its one claim (open.VerifyStacked).
	ring := ringswitch.Verify(s, point, rev.S)
	place := open.Placement{Variables: sh.Mu, Offset: 0}
	scales := make([]field.E, 1)
	field.Powers(scales, s.Sample())
	target := scales[0].Mul(ring.Target)
	basis := func(x []field.E) field.E {
		low, high := x[:place.Variables], x[place.Variables:]
		return open.SelectorEq(place.Selector(), high).Mul(scales[0]).Mul(ring.WeightAt(low))
	}
	if out.Levels, err = whirStream(s, sh.Commitment(), cfg, target, rev, basis); err != nil {
		return nil, err
	}
	if s.short || s.used != len(rev.Challenges) {
		return nil, fmt.Errorf("%w: the child draws %d challenges, %d revealed", ErrReveal, s.used, len(rev.Challenges))
	}
	out.Steps, out.Vars, out.Nonces = s.steps, s.vars, s.nonces
	for _, j := range out.Nonces {
		for i, st := range s.steps {
			if st.Kind == StepScalar && st.Var == j {
				out.NonceSteps = append(out.NonceSteps, i)
			}
		}
	}
	for _, c := range s.checks {
		out.Checks = append(out.Checks, StreamCheck{What: c.What, Value: c.Value.normal()})
	}
	return out, nil
}

func receiveRoot(s *symTranscript, root merkle.Digest, what string) {
	h := commit.RootHalves(root)
	s.equal(what+" (low half)", s.Receive(), h[0])
	s.equal(what+" (high half)", s.Receive(), h[1])
}

// symQuad is a WHIR round polynomial c0 + c1·X + c2·X² on the stream.
type symQuad [3]Affine

func readSymQuad(s *symTranscript, claim Affine) symQuad {
	c := s.roundPoly(3, claim, nil)
	return symQuad{c[0], c[1], c[2]}
}

func (q symQuad) addScaled(p symQuad, e field.E) symQuad {
	return symQuad{q[0].Add(p[0].Scale(e)), q[1].Add(p[1].Scale(e)), q[2].Add(p[2].Scale(e))}
}

// whirStream is open.VerifyWHIR on the stream: the rows' enforced sums and the
// queries' induced weights are the revealed ones (the query segments prove them).
func whirStream(s *symTranscript, sh commit.Shape, cfg *open.Config, target field.E, rev *ChildReveal, basis func([]field.E) field.E) ([]LevelQueries, error) {
	logN := sh.StackLog
	levels := cfg.Levels()
	s.Observe(target)
	for _, h := range commit.RootHalves(rev.Roots[0]) {
		s.Observe(h)
	}
	running := constant(target)
	q := readSymQuad(s, running)
	folds := make([]field.E, 0, logN)
	type glued struct {
		scalar    field.E
		foldStart int
		weightAt  func([]field.E) field.E
	}
	var claims []glued
	lqs := make([]LevelQueries, levels)
	foldStarts := make([]int, levels)
	for level := range levels {
		lq := &lqs[level]
		lq.Root, lq.Enforced = rev.Roots[level], rev.Enforced[level]
		for range cfg.Folds[level] {
			r := s.Sample()
			folds = append(folds, r)
			lq.Folds = append(lq.Folds, r)
			running = polyAt(q[:], r)
			q = readSymQuad(s, running)
		}
		messageLog := logN - len(folds)
		foldStarts[level] = len(folds)
		final := level == levels-1
		type pending struct {
			value    Affine
			intro    symQuad
			weightAt func([]field.E) field.E
		}
		var pend []pending
		var residual []Affine
		if final {
			residual = s.receiveMany(1 << messageLog)
		} else {
			receiveRoot(s, rev.Roots[level+1], fmt.Sprintf("WHIR level %d's root", level+1))
			zp := make([]field.E, messageLog)
			for i := range zp {
				zp[i] = s.Sample()
			}
			y := s.Receive()
			pend = append(pend, pending{y, readSymQuad(s, y), func(x []field.E) field.E { return field.EqEval(zp, x) }})
		}
		nonce := s.receive(tagNonce)
		s.nonces = append(s.nonces, nonce.Terms[0].J)
		s.equal(fmt.Sprintf("WHIR level %d's nonce", level), nonce, rev.Nonces[level])
		if open.QueryGrindingBits == 0 && !rev.Nonces[level].IsZero() {
			return nil, fmt.Errorf("%w: a nonzero nonce without grinding", ErrReveal)
		}
		blockLog := messageLog + cfg.LogInvRates[level]
		queries := transcript.QueriesFrom(1<<blockLog, cfg.Queries[level], s.Sample)
		lambda := s.Sample()
		lq.Lambda, lq.MessageLog = lambda, messageLog
		for _, qi := range queries {
			lq.Queries = append(lq.Queries, QueryInput{Index: qi, Weight: field.One})
		}
		enforced := constant(rev.Enforced[level])
		induced := rev.Induced[level]
		pend = append(pend, pending{enforced, readSymQuad(s, enforced), func([]field.E) field.E { return induced }})
		scalar := field.One
		for _, p := range pend {
			scalar = scalar.Mul(lambda)
			q = q.addScaled(p.intro, scalar)
			running = running.Add(p.value.Scale(scalar))
			claims = append(claims, glued{scalar, len(folds), p.weightAt})
		}
		if !final {
			continue
		}
		tail := make([]field.E, 0, messageLog)
		for i := range messageLog {
			r := s.Sample()
			running = polyAt(q[:], r)
			tail = append(tail, r)
			if i+1 < messageLog {
				q = readSymQuad(s, running)
			}
		}
		point := append(append([]field.E(nil), folds...), tail...)
		f0 := cfg.Folds[0]
		stackPoint := append(append([]field.E(nil), point[f0:]...), point[:f0]...)
		weight := basis(stackPoint)
		for _, c := range claims {
			x := append(append([]field.E(nil), folds[c.foldStart:]...), tail...)
			weight = weight.Add(c.scalar.Mul(c.weightAt(x)))
		}
		// weight·residual(tail) = running: residual's extension at tail has the
		// weights eq(tail, i).
		eq := make([]field.E, len(residual))
		field.EqTable(eq, tail)
		term := running
		for i, x := range residual {
			term = term.Add(x.Scale(weight.Mul(eq[i])))
		}
		s.check("WHIR terminal", term)
		for l := range lqs {
			lq := &lqs[l]
			lq.Point = append(append([]field.E(nil), folds[foldStarts[l]:]...), tail...)
			eq := make([]field.E, 1<<len(lq.Folds))
			field.EqTable(eq, lq.Folds)
			if l == 0 {
				// Level-0 rows list lanes in descending order: word i meets lane 63 − i.
				slices.Reverse(eq)
			}
			for i := range lq.Queries {
				lq.Queries[i].Eq, lq.Queries[i].Point = eq, lq.Point
			}
		}
		return lqs, nil
	}
	return nil, fmt.Errorf("%w: no final WHIR level", ErrReveal)
}

// RevealChild verifies a child natively (the deferred evaluations computed) and
// returns what its parent reveals of it, and its stream.
func RevealChild(proof *transcript.Proof, st flows.Statement) (*ChildReveal, []field.E, error) {
	x, stream, err := extractChild(proof, st)
	if err != nil {
		return nil, nil, err
	}
	return x.rev, stream, nil
}

// extractChild verifies a child once, natively (the deferred evaluations computed
// from the circuit's description and the statement's keys), and reads off it what the
// merge prover needs: the transcript's steps, the opening's levels and the revealed
// values; and the child's stream.
func extractChild(proof *transcript.Proof, st flows.Statement) (*childExtract, []field.E, error) {
	x := &childExtract{}
	trace := func(s transcript.Step) {
		if s.OnChain {
			x.chain = append(x.chain, s)
		} else {
			x.grind = append(x.grind, s)
		}
	}
	rp, dm, dp, err := replayDeferred(proof, st, ChildValues{}, aggregate.VerifierMatrices(), trace)
	if err != nil {
		return nil, nil, err
	}
	v := ChildValues{VA: dm.va, VB: dm.vb, Key: dp.value}
	if x.levels, err = queriesOf(rp); err != nil {
		return nil, nil, err
	}
	rev := &ChildReveal{VA: rp.zc.VA, VB: rp.zc.VB, S: rp.lc.S, Values: v, Roots: rp.tr.roots}
	for _, s := range x.chain {
		switch {
		case s.Block[3] == tagNonce:
			rev.Nonces = append(rev.Nonces, field.E{C0: field.K(s.Block[0]), C1: field.K(s.Block[1]), C2: field.K(s.Block[2])})
		case s.Block == squeezeBlock:
			rev.Challenges = append(rev.Challenges, field.E{C0: field.K(s.Out[0]), C1: field.K(s.Out[1]), C2: field.K(s.Out[2])})
		}
	}
	for _, lq := range x.levels {
		idx := make([]int, len(lq.Queries))
		for i, q := range lq.Queries {
			idx[i] = q.Index
		}
		w := make([]field.E, len(idx))
		field.Powers(w, lq.Lambda)
		rev.Enforced = append(rev.Enforced, lq.Enforced)
		rev.Induced = append(rev.Induced, open.InducedWeight(lq.MessageLog, idx, w, lq.Point))
	}
	x.rev = rev
	return x, rp.tr.RawProof().Stream, nil
}

// LinearClaims turns the checks into linear claims on segment seg of transcript
// blocks holding the child's on-chain steps in order from slot runOffset (step i in
// slot runOffset + i/16, step i mod 16): every check, and every public step's data
// equal to its value. A stream scalar's E value is its step's three data words.
func (c *StreamChecks) LinearClaims(tb *TranscriptBlock, seg, runOffset int) []flows.LinearClaim {
	wordBits := TranscriptLogSize - 6
	word := func(step int) int {
		return (tb.Data+256*(step%TranscriptSteps))/64 + (runOffset+step/TranscriptSteps)<<wordBits
	}
	stepOf := make([]int, c.Vars)
	var out []flows.LinearClaim
	for i, s := range c.Steps {
		switch s.Kind {
		case StepScalar:
			stepOf[s.Var] = i
		case StepPublic:
			cl := flows.LinearClaim{Segment: seg, Value: field.E{C0: field.K(s.Data[0]), C1: field.K(s.Data[1]), C2: field.K(s.Data[2])}}
			t := flows.LinearTermsE(word(i), field.One)
			cl.Terms = t[:]
			out = append(out, cl)
		}
	}
	for _, ch := range c.Checks {
		cl := flows.LinearClaim{Segment: seg, Value: ch.Value.C}
		for _, t := range ch.Value.Terms {
			ts := flows.LinearTermsE(word(stepOf[t.J]), t.A)
			cl.Terms = append(cl.Terms, ts[:]...)
		}
		out = append(out, cl)
	}
	return out
}

// PinRuns builds the transcript runs as the verifier knows them (for
// TranscriptBlock.TranscriptShape): each run's starting chaining value from
// boundaries (one per run, then the value after the last run's TranscriptSteps steps),
// its steps' tags and squeezes from the schedule, and the squeezed challenges.
func (c *StreamChecks) PinRuns(challenges []field.E, boundaries [][4]uint64) ([]TranscriptRun, error) {
	n := (len(c.Steps) + TranscriptSteps - 1) / TranscriptSteps
	if len(boundaries) != n+1 {
		return nil, fmt.Errorf("%w: %d chaining values for %d transcript blocks", ErrReveal, len(boundaries), n)
	}
	runs := make([]TranscriptRun, n)
	for r := range runs {
		run := &runs[r]
		run.CV = boundaries[r]
		run.Steps = min(TranscriptSteps, len(c.Steps)-TranscriptSteps*r)
		for s := range run.Steps {
			st := c.Steps[TranscriptSteps*r+s]
			run.Blocks[s][3] = st.Tag
			if st.Kind == StepSqueeze {
				if st.Challenge >= len(challenges) {
					return nil, fmt.Errorf("%w: challenge %d of %d", ErrReveal, st.Challenge, len(challenges))
				}
				x := challenges[st.Challenge]
				run.Squeeze[s] = true
				run.Outs[s] = [4]uint64{uint64(x.C0), uint64(x.C1), uint64(x.C2)}
			}
		}
		last := boundaries[r+1]
		if run.Squeeze[TranscriptSteps-1] && [3]uint64(last[:3]) != [3]uint64(run.Outs[TranscriptSteps-1][:3]) {
			return nil, fmt.Errorf("%w: transcript block %d ends on a squeeze other than its boundary", ErrReveal, r)
		}
		run.Outs[TranscriptSteps-1] = last
	}
	return runs, nil
}

// GrindClaims are linear claims on the transcript blocks (segment seg, the child's
// from slot runOffset) that the
// chaining value before each nonce step is the revealed one the grinding blocks start
// from: four words of the step before's materialised output (or of the run's
// starting value when the nonce opens a run).
func (c *StreamChecks) GrindClaims(tb *TranscriptBlock, seg, runOffset int, cvs [][4]uint64) ([]flows.LinearClaim, error) {
	if len(cvs) != len(c.NonceSteps) {
		return nil, fmt.Errorf("%w: %d grinding chaining values for %d checks", ErrReveal, len(cvs), len(c.NonceSteps))
	}
	wordBits := TranscriptLogSize - 6
	var out []flows.LinearClaim
	for g, j := range c.NonceSteps {
		run, pos := runOffset+j/TranscriptSteps, j%TranscriptSteps
		base := tb.CV
		if pos > 0 {
			base = tb.Out + 256*(pos-1)
		}
		for k, v := range cvs[g] {
			out = append(out, flows.LinearClaim{Segment: seg, Value: field.FromK(field.K(v)),
				Terms: []flows.LinearTerm{{Word: base/64 + k + run<<wordBits, Coeff: field.One}}})
		}
	}
	return out, nil
}

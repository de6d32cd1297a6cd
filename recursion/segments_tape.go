package recursion

import (
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
)

// A segmented proof's verification on a tape (docs/recursion.md §6.5): what a
// grandparent replays of a merged child. flows.VerifySegments' transcript and
// arithmetic, step for step: per segment the zerocheck, the lincheck with its public
// term and the ring switch; the relations and the linear claims' sumcheck; the stacked
// opening of every ring claim. What the verifier evaluates natively on fixed
// polynomials at points the replay commits — each segment's matrices, its public
// table, each linear batch's weight — and each WHIR level's enforced sum and induced
// weight are hints (SegmentHint says which is which); the first kind becomes the
// merged child's carried claims.

// SegmentHintKind says what a hint of a segments tape stands for.
type SegmentHintKind uint8

const (
	HintSegmentA       SegmentHintKind = iota // a segment's e_rowᵀ·A0·w_col
	HintSegmentB                              // … and e_rowᵀ·B0·w_col
	HintSegmentPublic                         // a segment's public term P(τ, chi_out)
	HintLinearWeight                          // a linear batch's weight W(ρ) on its segment
	HintLevelEnforced                         // a WHIR level's enforced sum
	HintLevelInduced                          // … and its induced weight
	HintRelationTarget                        // the relations' batched value Σ_r eq(τ, r)·Value_r
)

// SegmentHint is one hint of a segments tape: its kind and the segment (or, for the
// level hints, the WHIR level) it belongs to.
type SegmentHint struct {
	Kind SegmentHintKind
	Of   int
}

// SegmentsTape is a segmented proof's verification on a tape.
type SegmentsTape struct {
	*ChildTape
	Hints []SegmentHint
	// Flock are the segments' zerocheck and lincheck values (points, slices), Gamma and
	// Rho the linear sumcheck's batching challenge and point (per batch, its segment's
	// last variables).
	Flock    []flockTape
	Gamma    Lin
	Rho      []Lin
	Batches  []int // the segments with linear claims, in order
	Relation []Lin // the relations' per-segment values (sent, then implied), in batch order
	// Cols are the batches' columns at their points: point claims of the opening.
	Cols []Lin
	// RelTau is the relations' batching point.
	RelTau []Lin
	// Atoms are the committed steps at the end of the absorbed statement
	// (TapeInputs.CommittedTail), in order.
	Atoms []Lin
}

// NewSegmentsTape records the verification of a segmented proof of shapes (statement
// bytes statement, evaluations ev, rate logInvRate) on a tape, its committed values
// given by in (Hint is called with the index of each SegmentHint, in order).
func NewSegmentsTape(statement []byte, shapes []flows.SegmentShape, ev *flows.Evaluations, logInvRate int, in TapeInputs) (*SegmentsTape, error) {
	nLogs, places, stackLog, start, err := flows.SegmentsLayout(shapes, logInvRate, statement)
	if err != nil {
		return nil, err
	}
	if ev != nil && (ev.Points != nil || ev.Check != nil) {
		return nil, fmt.Errorf("recursion: a segments tape of a proof with point evaluations")
	}
	t := in.Tape
	if t == nil {
		t = &Tape{}
	}
	s := &tapeTr{t: t, in: in}
	st := &SegmentsTape{ChildTape: &ChildTape{Tape: t}}
	hint := func(k SegmentHintKind, of int) Lin {
		st.Hints = append(st.Hints, SegmentHint{k, of})
		return in.Hint(len(st.Hints) - 1)
	}
	if in.CommittedTail < 0 || 24*in.CommittedTail > len(start) {
		return nil, fmt.Errorf("recursion: %d committed steps of a %d-byte statement", in.CommittedTail, len(start))
	}
	st.Atoms = s.absorbBytesTail(start, in.CommittedTail)
	root := s.receiveMany(2)
	rings := make([]tapeRingClaim, len(shapes))
	for i, sh := range shapes {
		var win *lincheck.Window
		var pub Lin
		hA, hB := hint(HintSegmentA, i), hint(HintSegmentB, i)
		if sh.Public != nil {
			w := sh.Public.Window()
			win = &w
			pub = hint(HintSegmentPublic, i)
		}
		logSize := sh.Circuit.LogSize()
		ft := tapeFlock(t, s, logSize+nLogs[i], logSize, sh.Circuit.ConstCol(), win, hA, hB, pub)
		st.Flock = append(st.Flock, ft)
		point := append(append([]Lin(nil), ft.chiInPrime...), ft.chiOut...)
		rings[i] = tapeRing(t, s, point, ft.s)
	}

	// The relations, then the linear claims' sumcheck (flows' verifyRelations and
	// verifyLinear).
	var linear []flows.LinearClaim
	var values []Lin // each linear claim's value
	if ev != nil {
		linear = ev.Linear
		for _, c := range ev.Linear {
			values = append(values, ConstLin(c.Value))
		}
		if len(ev.Relations) > 0 || len(ev.Copies) > 0 {
			segs, relValues, err := st.relations(s, ev, len(shapes), func() Lin { return hint(HintRelationTarget, 0) })
			if err != nil {
				return nil, err
			}
			for k, seg := range segs {
				linear = append(linear, flows.LinearClaim{Segment: seg})
				values = append(values, relValues[k])
			}
		}
	}
	if len(linear) > 0 {
		st.linear(s, linear, values, places)
	}

	// The stacked opening of every ring claim.
	sh, err := flows.CommittedShape(places, stackLog, logInvRate)
	if err != nil {
		return nil, err
	}
	// The linear batches' column values are point claims at their stack points (the
	// batch's last round variables, its placement's selector bits above).
	points := make([][]Lin, len(st.Batches))
	for k, b := range st.Batches {
		p := places[b]
		pt := append([]Lin(nil), st.Rho[len(st.Rho)-p.Variables:]...)
		for v := p.Variables; v < stackLog; v++ {
			pt = append(pt, ConstLin(field.FromK(field.K(p.Selector()>>(v-p.Variables)&1))))
		}
		points[k] = pt
	}
	if len(rings) > 1 {
		for _, r := range rings {
			s.observe(r.target)
		}
	}
	for _, c := range st.Cols {
		s.observe(c)
	}
	g := s.Sample()
	scales := make([]Lin, len(rings)+len(points))
	scales[0] = oneLin
	for i := 1; i < len(scales); i++ {
		scales[i] = t.Mul(scales[i-1], g)
	}
	var target Lin
	for i, r := range rings {
		target = target.Add(t.Mul(scales[i], r.target))
	}
	for k, c := range st.Cols {
		target = target.Add(t.Mul(scales[len(rings)+k], c))
	}
	basis := func(x []Lin) Lin {
		var v Lin
		for i, r := range rings {
			p := places[i]
			low, high := x[:p.Variables], x[p.Variables:]
			v = v.Add(t.Mul(selectorEq(t, p.Selector(), high), t.Mul(scales[i], r.weightAt(low))))
		}
		for k, pt := range points {
			v = v.Add(t.Mul(scales[len(rings)+k], t.EqEval(pt, x)))
		}
		return v
	}
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		return nil, err
	}
	levelHints := func(l int) (Lin, Lin) { return hint(HintLevelEnforced, l), hint(HintLevelInduced, l) }
	if err := st.whir(s, sh, cfg, target, root, basis, levelHints); err != nil {
		return nil, err
	}
	st.Vars, st.Challenges, st.Steps = s.vars, s.chals, s.steps
	return st, nil
}

// relations replays flows' verifyRelations: τ over the relations and copy pairs, then
// one value per touched segment but the last (sent), the last implied by the batched
// target. It returns the touched segments and their values.
func (st *SegmentsTape) relations(s *tapeTr, ev *flows.Evaluations, segments int, targetHint func() Lin) ([]int, []Lin, error) {
	count := len(ev.Relations)
	for _, c := range ev.Copies {
		count += len(c.FromWords)
	}
	n := 0
	for 1<<n < count {
		n++
	}
	tau := make([]Lin, n)
	for i := range tau {
		tau[i] = s.Sample()
	}
	st.RelTau = tau
	// The batched target Σ_r eq(τ, r)·Value_r is the values' extension at τ, a fixed
	// polynomial of the statement: a hint (carried), not an eq table over every relation.
	// Where a value includes a committed atom (TapeInputs.CarriedRels), the hint is the
	// constant part and the atoms' share is added here: eq(τ, r) as the product of two
	// half tables' entries.
	target := targetHint()
	if len(s.in.CarriedRels) > 0 {
		lo := n / 2
		eqLo, eqHi := s.t.EqTable(tau[:lo]), s.t.EqTable(tau[lo:])
		for _, p := range s.in.CarriedRels {
			r, k := p[0], p[1]
			if r < 0 || r >= count || k < 0 || k >= len(st.Atoms) {
				return nil, nil, fmt.Errorf("recursion: carried relation %d on atom %d (%d relations, %d atoms)", r, k, count, len(st.Atoms))
			}
			target = target.Add(s.t.Mul(s.t.Mul(eqLo[r&(1<<lo-1)], eqHi[r>>lo]), st.Atoms[k]))
		}
	}
	touched := make([]bool, segments)
	for r, rel := range ev.Relations {
		for _, tm := range rel.Terms {
			if tm.Segment < 0 || tm.Segment >= segments {
				return nil, nil, fmt.Errorf("recursion: relation %d on segment %d of %d", r, tm.Segment, segments)
			}
			touched[tm.Segment] = true
		}
	}
	for _, c := range ev.Copies {
		if c.From < 0 || c.From >= segments || c.To < 0 || c.To >= segments {
			return nil, nil, fmt.Errorf("recursion: a copy claim between segments %d and %d of %d", c.From, c.To, segments)
		}
		touched[c.From], touched[c.To] = true, true
	}
	var segs []int
	for i, ok := range touched {
		if ok {
			segs = append(segs, i)
		}
	}
	vs := make([]Lin, len(segs))
	last := target
	for k := range segs[:len(segs)-1] {
		vs[k] = s.Receive()
		last = last.Add(vs[k])
	}
	vs[len(vs)-1] = last
	st.Relation = vs
	return segs, vs, nil
}

// linear replays flows' verifyLinear: γ, one degree-2 round per variable of the
// largest batch (a batch joins when its variables begin), each batch's column value,
// and the final identity Σ_b W_b(ρ_b)·col_b(ρ_b) = running with the weights as hints.
func (st *SegmentsTape) linear(s *tapeTr, claims []flows.LinearClaim, values []Lin, places []open.Placement) {
	t := st.Tape
	gamma := s.Sample()
	st.Gamma = gamma
	pow := make([]Lin, len(claims))
	pow[0] = oneLin
	for i := 1; i < len(pow); i++ {
		pow[i] = t.Mul(pow[i-1], gamma)
	}
	rounds := 0
	sums := map[int]Lin{}
	for i, c := range claims {
		if _, ok := sums[c.Segment]; !ok {
			st.Batches = append(st.Batches, c.Segment)
		}
		sums[c.Segment] = sums[c.Segment].Add(t.Mul(pow[i], values[i]))
	}
	slices.Sort(st.Batches)
	for _, b := range st.Batches {
		rounds = max(rounds, places[b].Variables)
	}
	var running Lin
	st.Rho = make([]Lin, rounds)
	for r := range st.Rho {
		for _, b := range st.Batches {
			if r == rounds-places[b].Variables {
				running = running.Add(sums[b])
			}
		}
		q := s.roundPoly(3, running, nil)
		st.Rho[r] = s.Sample()
		running = t.Poly(q, st.Rho[r])
	}
	var want Lin
	for _, b := range st.Batches {
		col := s.Receive()
		st.Cols = append(st.Cols, col)
		w := s.in.Hint(len(st.Hints))
		st.Hints = append(st.Hints, SegmentHint{HintLinearWeight, b})
		want = want.Add(t.Mul(w, col))
	}
	t.Equal("the linear claims", running, want)
}

// HintPoint is the committed point a hint is the value of a fixed polynomial at (what a
// parent carries with the value): a segment's matrices at (z, chi_in, s, chi_in′), its
// public table at (τ, chi_out), a linear batch's weight at (the relations' τ, γ, ρ).
// The WHIR levels' sums are not evaluations of a fixed polynomial: nil.
func (st *SegmentsTape) HintPoint(h int) []Lin {
	hk := st.Hints[h]
	switch hk.Kind {
	case HintSegmentA, HintSegmentB:
		ft := st.Flock[hk.Of]
		return append(append(append([]Lin{ft.z}, ft.chiIn...), ft.s...), ft.chiInPrime...)
	case HintSegmentPublic:
		ft := st.Flock[hk.Of]
		return append(append([]Lin(nil), ft.tau...), ft.chiOut...)
	case HintLinearWeight:
		return append(append(append([]Lin(nil), st.RelTau...), st.Gamma), st.Rho...)
	case HintRelationTarget:
		return append([]Lin(nil), st.RelTau...)
	}
	return nil
}

// SegmentsCarried is what a parent carries of a segmented child: each hint's value and
// point (docs/recursion.md §6.7), in the tape's hint order.
type SegmentsCarried struct {
	Values []field.E
	Points [][]field.E
}

// CarriedHints are the hints of a child whose carried values are c's: constants.
func CarriedHints(c *SegmentsCarried) func(h int) Lin {
	return func(h int) Lin {
		if h < 0 || h >= len(c.Values) {
			return Lin{} // the count is checked by AssertCarried
		}
		return ConstLin(c.Values[h])
	}
}

// AssertCarried records that each hint's committed point is the carried one.
func (st *SegmentsTape) AssertCarried(c *SegmentsCarried) error {
	if len(c.Values) != len(st.Hints) || len(c.Points) != len(st.Hints) {
		return fmt.Errorf("%w: %d carried values and %d points for %d hints", ErrReveal, len(c.Values), len(c.Points), len(st.Hints))
	}
	for h := range st.Hints {
		pt := st.HintPoint(h)
		if len(pt) != len(c.Points[h]) {
			return fmt.Errorf("%w: hint %d's point of %d coordinates, %d carried", ErrReveal, h, len(pt), len(c.Points[h]))
		}
		for i, l := range pt {
			st.Tape.Equal("a carried point", l, ConstLin(c.Points[h][i]))
		}
	}
	return nil
}

// CheckCarried evaluates a segmented child's carried claims natively (what the root
// verifier does): each segment's matrices and public table from its shape, each linear
// batch's weight from the child's relations (shapes, ev and logInvRate the child's).
func CheckCarried(hints []SegmentHint, c *SegmentsCarried, shapes []flows.SegmentShape, ev *flows.Evaluations, logInvRate int, statement []byte) error {
	if len(c.Values) != len(hints) || len(c.Points) != len(hints) {
		return fmt.Errorf("%w: %d carried values for %d hints", ErrClaim, len(c.Values), len(hints))
	}
	_, places, _, _, err := flows.SegmentsLayout(shapes, logInvRate, statement)
	if err != nil {
		return err
	}
	for h, hk := range hints {
		got, err := carriedValue(hk, c.Points[h], shapes, ev, places)
		if err != nil {
			return fmt.Errorf("hint %d: %w", h, err)
		}
		if got != c.Values[h] {
			return fmt.Errorf("%w: carried hint %d (kind %d of %d)", ErrClaim, h, hk.Kind, hk.Of)
		}
	}
	return nil
}

// carriedValue evaluates one carried hint natively at its point: a segment's matrices
// or public table from its shape, a linear batch's weight or the relations' target from
// the child's relations (places: the child's segments' placements).
func carriedValue(hk SegmentHint, pt []field.E, shapes []flows.SegmentShape, ev *flows.Evaluations, places []open.Placement) (field.E, error) {
	switch hk.Kind {
	case HintSegmentA, HintSegmentB:
		m := shapes[hk.Of].Circuit
		rounds := m.LogSize() - lincheck.KSkip
		if len(pt) != 1+rounds+lincheck.KBits+rounds {
			return field.E{}, fmt.Errorf("%w: a matrix hint's point of %d coordinates", ErrClaim, len(pt))
		}
		skip := make([]field.E, 1<<lincheck.KSkip)
		lincheck.SkipWeights(skip, pt[0])
		row := circuit.Tensor{Low: skip, High: pt[1 : 1+rounds]}
		col := circuit.Tensor{Low: pt[1+rounds : 1+rounds+lincheck.KBits], High: pt[1+rounds+lincheck.KBits:]}
		va, vb := m.BilinearTensor(row, col)
		if hk.Kind == HintSegmentB {
			return vb, nil
		}
		return va, nil
	case HintSegmentPublic:
		pub := shapes[hk.Of].Public
		if pub == nil {
			return field.E{}, fmt.Errorf("%w: a public hint on a segment without a public term", ErrClaim)
		}
		wl := pub.Window().Log
		if len(pt) < wl {
			return field.E{}, fmt.Errorf("%w: a public hint's point of %d coordinates", ErrClaim, len(pt))
		}
		return pub.Eval(pt[:wl], pt[wl:]), nil
	case HintLinearWeight:
		return relationWeight(ev, hk.Of, pt, places[hk.Of].Variables)
	case HintRelationTarget:
		return relationTarget(ev, pt), nil
	}
	return field.E{}, fmt.Errorf("%w: a hint of kind %d is not carried", ErrClaim, hk.Kind)
}

// relationWeight is a no-reveal child's linear batch weight on segment seg at the
// carried point (τ over the relations, γ, then ρ): the child's linear claims are its
// relations' per-segment claims only, in segment order, claim k weighed γ^k.
func relationWeight(ev *flows.Evaluations, seg int, pt []field.E, vars int) (field.E, error) {
	vs := make([]int, seg+1)
	for i := range vs {
		vs[i] = -1
	}
	vs[seg] = vars
	ws, err := relationWeights(ev, pt, vs)
	if err != nil {
		return field.E{}, err
	}
	return ws[seg], nil
}

// relationWeights is relationWeight for every segment s with vars[s] ≥ 0 (ρ's last
// vars[s] coordinates), in one pass over the relations; the others' entries are zero.
func relationWeights(ev *flows.Evaluations, pt []field.E, vars []int) ([]field.E, error) {
	if ev == nil || len(ev.Linear) > 0 {
		return nil, fmt.Errorf("%w: a carried linear weight of a proof with other linear claims", ErrClaim)
	}
	count := len(ev.Relations)
	for _, c := range ev.Copies {
		count += len(c.FromWords)
	}
	n := 0
	for 1<<n < count {
		n++
	}
	eqRho := make([]*halfEq, len(vars))
	byVars := map[int]*halfEq{}
	for s, v := range vars {
		if v < 0 {
			continue
		}
		if len(pt) < n+1+v {
			return nil, fmt.Errorf("%w: a carried linear weight's point", ErrClaim)
		}
		if byVars[v] == nil {
			h := newHalfEq(pt[len(pt)-v:])
			byVars[v] = &h
		}
		eqRho[s] = byVars[v]
	}
	if len(pt) < n+1 {
		return nil, fmt.Errorf("%w: a carried linear weight's point", ErrClaim)
	}
	tau, gamma := pt[:n], pt[n]
	eq := make([]field.E, 1<<n)
	field.EqTable(eq, tau)
	w := make([]field.E, len(vars))
	var touched []bool
	touch := func(s int) {
		for len(touched) <= s {
			touched = append(touched, false)
		}
		touched[s] = true
	}
	add := func(s int, x field.E, word int) {
		if s < len(eqRho) && eqRho[s] != nil {
			w[s] = w[s].Add(x.Mul(eqRho[s].at(word)))
		}
	}
	for r, rel := range ev.Relations {
		for _, tm := range rel.Terms {
			touch(tm.Segment)
			add(tm.Segment, eq[r].Mul(tm.Coeff), tm.Word)
		}
	}
	r := len(ev.Relations)
	for _, c := range ev.Copies {
		touch(c.From)
		touch(c.To)
		for i := range c.FromWords {
			add(c.From, eq[r], c.FromWords[i])
			add(c.To, eq[r], c.ToWords[i])
			r++
		}
	}
	// A batch's claim index among the touched segments (in order) sets its γ power.
	pow := field.One
	for s := range w {
		if s < len(touched) && touched[s] {
			w[s] = w[s].Mul(pow)
			pow = pow.Mul(gamma)
		}
	}
	return w, nil
}

// relationTarget is Σ_r eq(τ, r)·Value_r over a child's relations (copies are zero).
func relationTarget(ev *flows.Evaluations, tau []field.E) field.E {
	eqTau := newHalfEq(tau)
	var v field.E
	for r, rel := range ev.Relations {
		if !rel.Value.IsZero() {
			v = v.Add(eqTau.at(r).Mul(rel.Value))
		}
	}
	return v
}

// halfEq evaluates eq(r, j) for any j < 2^len(r) as the product of two tables' entries,
// over r's low and high halves (what eqIndex computes, one product each).
type halfEq struct {
	lo, hi []field.E
	bits   int
}

func newHalfEq(r []field.E) halfEq {
	h := len(r) / 2
	e := halfEq{lo: make([]field.E, 1<<h), hi: make([]field.E, 1<<(len(r)-h)), bits: h}
	field.EqTable(e.lo, r[:h])
	field.EqTable(e.hi, r[h:])
	return e
}

// at is eq(r, j) over j's low len(r) bits (higher bits ignored, as eqIndex does).
func (e halfEq) at(j int) field.E {
	return e.lo[j&(len(e.lo)-1)].Mul(e.hi[(j>>e.bits)&(len(e.hi)-1)])
}

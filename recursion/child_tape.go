package recursion

import (
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
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

// TapeInputs are a child's committed values as tape inputs.
type TapeInputs struct {
	Stream    func(j int) Lin
	Challenge func(i int) Lin
	Hint      func(h int) Lin
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
}

type tapeTr struct {
	t            *Tape
	in           TapeInputs
	vars, chals  int
	onceReceived []Lin
}

func (s *tapeTr) Sample() Lin { s.chals++; return s.in.Challenge(s.chals - 1) }

func (s *tapeTr) Receive() Lin { s.vars++; return s.in.Stream(s.vars - 1) }

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
	t := &Tape{}
	s := &tapeTr{t: t, in: in}
	ct := &ChildTape{Tape: t}
	s.receiveMany(2) // the commitment's root, two halves (the query blocks read it)

	// The zerocheck (zerocheck.VerifyWith).
	m := sh.M()
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
	z := s.Sample()
	cw := t.Lagrange(2<<zerocheck.KSkip, z)[1<<zerocheck.KSkip:]
	running := t.InnerProduct(cw, coset)
	chi := make([]Lin, len(r))
	for i := range r {
		q := s.roundPoly(3, running, &r[i])
		chi[i] = s.Sample()
		running = t.Poly(q, chi[i])
	}
	ct.VA, ct.VB = s.Receive(), s.Receive()
	ct.VC = running.Add(t.Mul(ct.VA, ct.VB))

	// The lincheck with its public term, matrices and key term taken as hints.
	rounds := aggregate.LogSize - lincheck.KSkip
	win := bind.Public.Window()
	alpha := s.Sample()
	ct.Alpha = alpha
	ct.Tau = make([]Lin, win.Log)
	for i := range ct.Tau {
		ct.Tau[i] = s.Sample()
	}
	a2 := t.Mul(alpha, alpha)
	a3 := t.Mul(a2, alpha)
	a4 := t.Mul(a2, a2)
	running = Sum(t.Mul(ct.VC, a2), ct.VA, t.Mul(alpha, ct.VB), a3, t.Mul(a4, in.Hint(HintKey)))
	challenges := make([]Lin, rounds)
	for i := range challenges {
		q := s.roundPoly(3, running, nil)
		challenges[i] = s.Sample()
		running = t.Poly(q, challenges[i])
	}
	ct.S = s.receiveMany(lincheck.KBits)
	ct.ChiIn = chi[:rounds]
	ct.ChiOut = chi[rounds:]
	ct.ChiInPrime = slices.Clone(challenges)
	slices.Reverse(ct.ChiInPrime)
	ct.Skip = t.Lagrange(1<<lincheck.KSkip, z)
	matrix := in.Hint(HintMatrixA).Add(t.Mul(alpha, in.Hint(HintMatrixB)))
	terminal := Sum(matrix,
		t.Mul(t.Mul(a2, t.EqEval(ct.ChiIn, ct.ChiInPrime)), t.InnerProduct(ct.Skip, ct.S)),
		t.Mul(a3, t.Mul(ct.S[aggregate.ConstCol&(lincheck.KBits-1)], t.EqAt(ct.ChiInPrime, aggregate.ConstCol>>lincheck.KSkip))),
		t.Mul(a4, windowTerm(t, win, ct.Tau, ct.S, ct.ChiInPrime)))
	t.Equal("lincheck terminal", running, terminal)
	ct.Vars, ct.Challenges = s.vars, s.chals
	return ct, nil
}

// windowTerm is Σ_j mask(j)·eq(τ, j)·s[(Offset+j) mod 64]·eq(chi_in′, ⌊(Offset+j)/64⌋),
// lincheck.Terminal's public-window term.
func windowTerm(t *Tape, win lincheck.Window, tau, s, chiInPrime []Lin) Lin {
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

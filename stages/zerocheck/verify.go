package zerocheck

import (
	"errors"
	"fmt"

	"github.com/leanpipe/leanpipe/field"
)

// ErrTooSmall reports an instance with fewer than MinVars variables.
var ErrTooSmall = errors.New("zerocheck: instance has fewer than 13 variables")

// Result is the reduction's output: claims on the quirky extensions of a, b and c,
// all three at the one point (ZSkip, Chi), which lincheck consumes.
//
// VA = Σ_x eq(Chi, x)·Σ_s L_s(ZSkip)·a(s, x), likewise VB and VC; L_s is the Lagrange
// basis over the skip domain PHI[0, 64) and x runs over the m − KSkip high variables,
// low coordinate first.
type Result struct {
	ZSkip      field.E
	Chi        []field.E
	VA, VB, VC field.E
}

// VerifierTranscript is the part of the verifier transcript the zerocheck uses.
type VerifierTranscript interface {
	Sample() field.E
	Receive() (field.E, error)
	RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error)
}

// ProverTranscript is the prover twin of VerifierTranscript.
type ProverTranscript interface {
	Sample() field.E
	Send(v field.E)
	SendRoundPoly(coeffs []field.E, eq bool)
}

// eqPoint builds r: the NInner fixed coordinates, then m − KSkip − NInner samples.
func eqPoint(sample func() field.E, m int) []field.E {
	r := make([]field.E, m-KSkip)
	copy(r, fixedChallenges[:])
	for i := NInner; i < len(r); i++ {
		r[i] = sample()
	}
	return r
}

// VerifyWith replays the zerocheck over m variables on any verifier transcript.
// It checks nothing but the shape of the stream: the claims it returns are what the
// proof implies, and lincheck pins them against the committed witness.
func VerifyWith(tr VerifierTranscript, m int) (Result, error) {
	if m < MinVars {
		return Result{}, fmt.Errorf("%w (m = %d)", ErrTooSmall, m)
	}
	if m > 62 {
		return Result{}, fmt.Errorf("zerocheck: m = %d is out of range", m)
	}
	d := domain()
	r := eqPoint(tr.Sample, m)

	coset := make([]field.E, skipSize)
	for j := range coset {
		v, err := tr.Receive()
		if err != nil {
			return Result{}, fmt.Errorf("zerocheck: coset value %d: %w", j, err)
		}
		coset[j] = v
	}
	z := tr.Sample()
	running := d.interpolateCoset(coset, z)

	chi := make([]field.E, len(r))
	for i := range r {
		coeffs, err := tr.RoundPoly(3, running, &r[i])
		if err != nil {
			return Result{}, fmt.Errorf("zerocheck: round %d: %w", i, err)
		}
		chi[i] = tr.Sample()
		running = field.PolyEval(coeffs, chi[i])
	}
	va, err := tr.Receive()
	if err != nil {
		return Result{}, fmt.Errorf("zerocheck: v_a: %w", err)
	}
	vb, err := tr.Receive()
	if err != nil {
		return Result{}, fmt.Errorf("zerocheck: v_b: %w", err)
	}
	return Result{ZSkip: z, Chi: chi, VA: va, VB: vb, VC: running.Add(va.Mul(vb))}, nil
}

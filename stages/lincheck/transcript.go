package lincheck

import "github.com/leanpipe/leanpipe/field"

// ProverTranscript is the part of the Fiat–Shamir prover transcript the
// lincheck uses: challenges, single scalars, and sumcheck round polynomials
// (all coefficients but the one the round identity fixes: c1 for a plain
// round, c0 when eq is true).
type ProverTranscript interface {
	Sample() field.E
	Send(v field.E)
	SendRoundPoly(coeffs []field.E, eq bool)
}

// VerifierTranscript is the verifier twin of ProverTranscript: every Send is
// matched by a Receive and every SendRoundPoly by a RoundPoly, which returns
// the full coefficient vector with the fixed coefficient derived from claim.
type VerifierTranscript interface {
	Sample() field.E
	Receive() (field.E, error)
	RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error)
}

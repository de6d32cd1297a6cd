// Package testtranscript is the stage tests' recording transcript, so that the
// lincheck's and the ring switch's tests share one instead of each keeping a copy.
package testtranscript

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/transcript"
)

// Label is the transcript label of every T.
var Label = []byte("leanpipe/stage-test")

// T puts the real transcript behind a stage test's small surface. The zero value
// is a prover: it records the sent stream in Stream. A VerifierCopy (or a T with
// Verifying set and a Stream) reads that stream instead, which a test may alter
// before the first read: the verifier is created on first use.
type T struct {
	Stream    []field.E
	Verifying bool
	p         *transcript.Prover
	v         *transcript.Verifier
}

func (t *T) prover() *transcript.Prover {
	if t.p == nil {
		t.p = transcript.NewProver(Label, nil)
	}
	return t.p
}

func (t *T) verifier() *transcript.Verifier {
	if t.v == nil {
		t.v = transcript.NewVerifier(&transcript.Proof{Stream: t.Stream}, Label, nil)
	}
	return t.v
}

// Sample draws from the prover's transcript, or the verifier's on a verifier copy.
func (t *T) Sample() field.E {
	if t.Verifying {
		return t.verifier().Sample()
	}
	return t.prover().Sample()
}

// Send sends v on the prover's transcript.
func (t *T) Send(v field.E) {
	t.prover().Send(v)
	t.Stream = t.p.Proof().Stream
}

// SendRoundPoly sends a round polynomial on the prover's transcript.
func (t *T) SendRoundPoly(coeffs []field.E, eq bool) {
	t.prover().SendRoundPoly(coeffs, eq)
	t.Stream = t.p.Proof().Stream
}

// Receive reads the next scalar of the verifier's stream.
func (t *T) Receive() (field.E, error) { return t.verifier().Receive() }

// RoundPoly reads a round polynomial from the verifier's stream.
func (t *T) RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error) {
	return t.verifier().RoundPoly(count, claim, eq)
}

// VerifierCopy returns a verifier over a copy of the prover's stream.
func (t *T) VerifierCopy() *T {
	return &T{Stream: append([]field.E(nil), t.Stream...), Verifying: true}
}

package ringswitch

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/transcript"
)

// testLabel is the transcript label of the ring switch tests.
var testLabel = []byte("leanpipe/ringswitch-test")

// Compile-time checks that the proof transcripts serve the ring switch.
var (
	_ Transcript = (*transcript.Prover)(nil)
	_ Transcript = (*transcript.Verifier)(nil)
)

// fakeTranscript puts the real transcript behind the ring switch tests' small
// surface: used as a prover it records the sent stream in stream; a verifierCopy
// reads a copy of that stream, which a test may alter before the first read (the
// verifier is created on first use).
type fakeTranscript struct {
	stream    []field.E
	verifying bool // a verifierCopy: reads stream instead of writing it
	p         *transcript.Prover
	v         *transcript.Verifier
}

func (t *fakeTranscript) prover() *transcript.Prover {
	if t.p == nil {
		t.p = transcript.NewProver(testLabel, nil)
	}
	return t.p
}

func (t *fakeTranscript) verifier() *transcript.Verifier {
	if t.v == nil {
		t.v = transcript.NewVerifier(&transcript.Proof{Stream: t.stream}, testLabel, nil)
	}
	return t.v
}

// Sample draws from the prover's transcript, or the verifier's on a verifier copy.
func (t *fakeTranscript) Sample() field.E {
	if t.verifying {
		return t.verifier().Sample()
	}
	return t.prover().Sample()
}

func (t *fakeTranscript) Send(v field.E) {
	t.prover().Send(v)
	t.stream = t.p.Proof().Stream
}

func (t *fakeTranscript) Receive() (field.E, error) { return t.verifier().Receive() }

// verifierCopy returns a verifier over a copy of the prover's stream.
func (t *fakeTranscript) verifierCopy() *fakeTranscript {
	return &fakeTranscript{stream: append([]field.E(nil), t.stream...), verifying: true}
}

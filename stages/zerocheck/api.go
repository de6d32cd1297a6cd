package zerocheck

import (
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// Compile-time checks that the transcript types serve the zerocheck.
var (
	_ ProverTranscript   = (*transcript.Prover)(nil)
	_ VerifierTranscript = (*transcript.Verifier)(nil)
)

// Prove runs the zerocheck prover on the proof transcript with fresh buffers (see
// ProveWith).
func Prove(tr *transcript.Prover, in Input, workers par.Workers) (Result, error) {
	return ProveWith(tr, in, workers, nil)
}

// Verify replays the zerocheck over m variables on the proof transcript (see VerifyWith).
func Verify(tr *transcript.Verifier, m int) (Result, error) {
	return VerifyWith(tr, m)
}

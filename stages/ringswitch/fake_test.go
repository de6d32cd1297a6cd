package ringswitch

import (
	"github.com/leanpipe/leanpipe/internal/testtranscript"
	"github.com/leanpipe/leanpipe/transcript"
)

// Compile-time checks that the proof transcripts serve the ring switch.
var (
	_ Transcript = (*transcript.Prover)(nil)
	_ Transcript = (*transcript.Verifier)(nil)
)

// fakeTranscript is the stage tests' recording transcript: a prover that records
// its Stream, and its VerifierCopy.
type fakeTranscript = testtranscript.T

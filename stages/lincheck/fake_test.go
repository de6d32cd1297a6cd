package lincheck

import "github.com/leanpipe/leanpipe/internal/testtranscript"

// fakeTranscript is the stage tests' recording transcript: a prover that records
// its Stream, and its VerifierCopy.
type fakeTranscript = testtranscript.T

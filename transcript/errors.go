package transcript

import "errors"

// Errors a verifier or decoder returns (wrapped, with details).
var (
	// ErrStreamExhausted: the verifier read past the end of the scalar stream.
	ErrStreamExhausted = errors.New("transcript: proof stream exhausted")
	// ErrMissingOpening: the verifier needed a Merkle opening (raw) or phase (wire) the
	// proof does not have.
	ErrMissingOpening = errors.New("transcript: Merkle opening missing")
	// ErrInvalidOpening: an opening does not authenticate against its root or has the
	// wrong shape.
	ErrInvalidOpening = errors.New("transcript: invalid Merkle opening")
	// ErrNotConsumed: verification ended with stream scalars or openings left over.
	ErrNotConsumed = errors.New("transcript: proof not fully consumed")
	// ErrPow: a grinding nonce fails its proof-of-work check.
	ErrPow = errors.New("transcript: invalid grinding nonce")
	// ErrNonCanonical: a scalar used as a narrower encoding has nonzero spare limbs.
	ErrNonCanonical = errors.New("transcript: non-canonical encoding")
	// ErrMalformed: proof bytes do not decode (truncated, oversized length, trailing bytes).
	ErrMalformed = errors.New("transcript: malformed proof encoding")
)

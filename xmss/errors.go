package xmss

import "errors"

// Verification failures, named after the reference's XmssVerifyError.
var (
	// ErrInvalidWots: the encoding rejects (m, ρ, e) — bit 63 of a word of D is set or the
	// digits do not sum to T — so no one-time public key is recovered.
	ErrInvalidWots = errors.New("xmss: invalid WOTS encoding")
	// ErrInvalidMerklePath: the recovered leaf folded with the path does not give the root.
	ErrInvalidMerklePath = errors.New("xmss: invalid Merkle path")
)

// Key generation and signing errors.
var (
	// ErrInvalidRange: the activation range has epoch_start > epoch_end.
	ErrInvalidRange = errors.New("xmss: invalid activation range")
	// ErrRangeTooLarge: the activation range has more than MaxEpochs epochs.
	ErrRangeTooLarge = errors.New("xmss: activation range too large")
	// ErrEpochOutOfRange: the signing epoch is outside the key's activation range.
	ErrEpochOutOfRange = errors.New("xmss: epoch out of the activation range")
)

// Parsing errors.
var (
	// ErrSignatureLength: a serialised signature is not SignatureSize bytes.
	ErrSignatureLength = errors.New("xmss: bad signature length")
	// ErrPublicKeyLength: a serialised public key is not PublicKeySize bytes.
	ErrPublicKeyLength = errors.New("xmss: bad public key length")
	// ErrSecretKeyLength: a serialised secret key is not SecretKeySize bytes.
	ErrSecretKeyLength = errors.New("xmss: bad secret key length")
)

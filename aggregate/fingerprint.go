package aggregate

import "github.com/leanpipe/leanpipe/circuit"

// FingerprintLabel seeds the fingerprint's evaluation point (circuit.Fingerprint).
const FingerprintLabel = "leanpipe/xmss-aggregate/circuit-fingerprint/v0"

// Fingerprint identifies the circuit's matrices (circuit.Fingerprint under
// FingerprintLabel): each of A0, B0's multilinear extensions at a point the label
// fixes, as 48 hex digits.
func (c *Circuit) Fingerprint() (a, b string) {
	return circuit.Fingerprint(c.Circuit, FingerprintLabel)
}

// MatricesFingerprint is Fingerprint computed from Matrices (the description, no
// program built): the same two values for the same circuit.
func MatricesFingerprint() (a, b string) { return circuit.Fingerprint(Matrices(), FingerprintLabel) }

package keccak

import "github.com/leanpipe/leanpipe/circuit"

// FingerprintLabel seeds the fingerprint's evaluation point (circuit.Fingerprint).
const FingerprintLabel = "leanpipe/keccak-batch/circuit-fingerprint/v0"

// Fingerprint identifies the circuit's matrices (circuit.Fingerprint under
// FingerprintLabel): each of A0, B0's multilinear extensions at a point the label
// fixes, as 48 hex digits.
func (c *Circuit) Fingerprint() (a, b string) {
	return circuit.Fingerprint(c.Circuit, FingerprintLabel)
}

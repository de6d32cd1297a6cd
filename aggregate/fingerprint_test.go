package aggregate

import "testing"

// The circuit's fingerprint is pinned (docs/xmss-aggregate.md quotes it): any change
// to the circuit's matrices changes the proof system's statement and must change the
// flow's label and the document too.
func TestCircuitFingerprint(t *testing.T) {
	a, b := New().Fingerprint()
	const wantA, wantB = "70b46a0ce09531ff58233ee31f07917f7fe5219dd16f498d", "ca375f6b51d1dd1c577b9a31719d0b9c41ac93cb4c3d0da9"
	if a != wantA || b != wantB {
		t.Fatalf("fingerprint\n  A0: %s\n  B0: %s\nwant\n  A0: %s\n  B0: %s", a, b, wantA, wantB)
	}
}

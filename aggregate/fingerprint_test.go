package aggregate

import "testing"

// The circuit's fingerprint is pinned (docs/xmss-aggregate.md quotes it): any change
// to the circuit's matrices changes the proof system's statement and must change the
// flow's label and the document too.
func TestCircuitFingerprint(t *testing.T) {
	a, b := New().Fingerprint()
	const wantA, wantB = "27d84741619339b5e9b299b7ea18f5c987dea0f4df9909e3", "a5e84015f855339b0be118ea2fbb6907eb34851752b577cc"
	if a != wantA || b != wantB {
		t.Fatalf("fingerprint\n  A0: %s\n  B0: %s\nwant\n  A0: %s\n  B0: %s", a, b, wantA, wantB)
	}
}

package keccak

import "testing"

// The circuits' fingerprints are pinned (docs/keccak-batch.md quotes the
// registered layout's): any change to a circuit's matrices changes the proof
// system's statement and must change the flow's label and the document too.
func TestCircuitFingerprint(t *testing.T) {
	for _, c := range []struct {
		l            Layout
		wantA, wantB string
	}{
		{Dense, "d67ee982435bd79a33562aab1f944ecf77e0268adae17b17", "c6989c05172e31d494c24229222a93f3d2e306043079335a"},
		{Sparse, "52931dd1c684bd193b3f515c58706eead7cad0cce4172b05", "562340157d4c121670cbf9c1f01c37f8f76926892667b699"},
	} {
		a, b := NewCircuit(c.l).Fingerprint()
		if a != c.wantA || b != c.wantB {
			t.Errorf("%+v fingerprint\n  A0: %s\n  B0: %s\nwant\n  A0: %s\n  B0: %s", c.l, a, b, c.wantA, c.wantB)
		}
	}
}

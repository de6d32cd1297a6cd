package lincheck

import (
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/field"
)

// FuzzVerify feeds arbitrary streams and claim points to the verifier:
// it must return an error or a well-formed claim, never panic.
func FuzzVerify(f *testing.F) {
	f.Add([]byte{}, uint8(3), uint64(1))
	f.Add(make([]byte, 24*70), uint8(5), uint64(2))
	f.Add([]byte("not a proof at all, just some bytes"), uint8(0), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, chiLen uint8, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 7))
		c := newToyCircuit(rng, 8)
		tr := &fakeTranscript{Verifying: true}
		for len(data) >= 24 {
			e, _ := field.EFromBytes(data[:24])
			tr.Stream = append(tr.Stream, e)
			data = data[24:]
		}
		zc := ZerocheckClaims{ZSkip: randE(rng), Chi: randEs(rng, int(chiLen%12)), VA: randE(rng)}
		if rng.IntN(4) == 0 {
			zc.ZSkip = field.FromK(field.Phi8(byte(rng.IntN(64)))) // a skip-domain node
		}
		cl, err := Verify(tr, c, zc)
		if err == nil && (len(cl.S) != KBits || len(cl.Point) != len(zc.Chi)) {
			t.Fatalf("accepted with a malformed claim")
		}
	})
}

package keccak

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The Keccak team's intermediate values for Keccak-f[1600] on the all-zero state
// (KeccakF-1600-IntermediateValues.txt), as lanes A[x,y] at index x+5y.
var zeroPermuted = State{
	0xF1258F7940E1DDE7, 0x84D5CCF933C0478A, 0xD598261EA65AA9EE, 0xBD1547306F80494D, 0x8B284E056253D057,
	0xFF97A42D7F8E6FD4, 0x90FEE5A0A44647C4, 0x8C5BDA0CD6192E76, 0xAD30A6F71B19059C, 0x30935AB7D08FFC64,
	0xEB5AA93F2317D635, 0xA9A6E6260D712103, 0x81A57C16DBCF555F, 0x43B831CD0347C826, 0x01F22F1A11A5569F,
	0x05E5635A21D9AE61, 0x64BEFEF28CC970F2, 0x613670957BC46611, 0xB87C5A554FD00ECB, 0x8C3EE88A1CCF32C8,
	0x940C7922AE3A2614, 0x1841F924A2C509E4, 0x16F53526E70465C2, 0x75F644E97F30A13B, 0xEAF1FF7B5CECA249,
}

func TestPermuteZeroState(t *testing.T) {
	var s State
	Permute(&s)
	if s != zeroPermuted {
		t.Fatalf("Keccak-f[1600](0) =\n%016x\nwant\n%016x", s, zeroPermuted)
	}
	var zero [StateSize]byte
	want := zeroPermuted.Bytes()
	if got := PermuteBytes(zero); got != want {
		t.Fatalf("PermuteBytes(0) = %x", got)
	}
}

// FIPS 202 example values (NIST's SHA3-256 and SHAKE128 examples for the empty
// message and "abc").
func TestFIPS202Examples(t *testing.T) {
	for _, c := range []struct{ msg, sha3, shake string }{
		{"", "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a", "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"},
		{"abc", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532", "5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8"},
	} {
		d := SumSHA3_256([]byte(c.msg))
		if got := hex.EncodeToString(d[:]); got != c.sha3 {
			t.Errorf("SHA3-256(%q) = %s, want %s", c.msg, got, c.sha3)
		}
		if got := hex.EncodeToString(SHAKE128([]byte(c.msg), 32)); got != c.shake {
			t.Errorf("SHAKE128(%q, 32) = %s, want %s", c.msg, got, c.shake)
		}
	}
}

// The sponge on Permute agrees with the standard library's crypto/sha3 (an
// independent implementation) on random messages of 0..1000 bytes.
func TestSpongeAgainstStdlib(t *testing.T) {
	rng := testrand.New(t)
	n := 1000
	if testing.Short() {
		n = 200
	}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		n = 5000
	}
	for i := range n {
		msg := make([]byte, rng.IntN(1001))
		for j := range msg {
			msg[j] = byte(rng.Uint32())
		}
		if got, want := SumSHA3_256(msg), sha3.Sum256(msg); got != want {
			t.Fatalf("message %d (%d bytes): SHA3-256 %x, want %x", i, len(msg), got, want)
		}
		outLen := 1 + rng.IntN(400)
		if got, want := SHAKE128(msg, outLen), sha3.SumSHAKE128(msg, outLen); !bytes.Equal(got, want) {
			t.Fatalf("message %d (%d bytes): SHAKE128 %x, want %x", i, len(msg), got, want)
		}
	}
}

// Absorbing in pieces and squeezing in pieces gives the one-shot output.
func TestSpongeIncremental(t *testing.T) {
	rng := testrand.New(t)
	msg := make([]byte, 700)
	for j := range msg {
		msg[j] = byte(rng.Uint32())
	}
	h := NewSHAKE128()
	for rest := msg; len(rest) > 0; {
		k := min(len(rest), rng.IntN(200))
		h.Write(rest[:k])
		rest = rest[k:]
	}
	out := make([]byte, 500)
	for got := out; len(got) > 0; {
		k := min(len(got), 1+rng.IntN(170))
		h.Read(got[:k])
		got = got[k:]
	}
	if want := sha3.SumSHAKE128(msg, 500); !bytes.Equal(out, want) {
		t.Fatalf("incremental SHAKE128 differs")
	}
}

func TestStateBytesRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	var s State
	for i := range s {
		s[i] = rng.Uint64()
	}
	b := s.Bytes()
	if StateFrom(b[:]) != s {
		t.Fatal("StateFrom(Bytes) differs")
	}
	// Lane A[1,0] is bytes 8..15, little-endian.
	if b[8] != byte(s[1]) || b[15] != byte(s[1]>>56) {
		t.Fatal("lane byte order")
	}
}

func BenchmarkPermute(b *testing.B) {
	var s State
	b.SetBytes(StateSize)
	for b.Loop() {
		Permute(&s)
	}
}

func TestThetaRhoPiUnrolled(t *testing.T) {
	rng := testrand.New(t)
	for range 100 {
		var s State
		for i := range s {
			s[i] = rng.Uint64()
		}
		if thetaRhoPi(&s) != thetaRhoPiLoop(&s) {
			t.Fatal("unrolled θρπ differs from the loop form")
		}
	}
}

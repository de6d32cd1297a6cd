package xmss

import (
	"bytes"
	"testing"
)

// FuzzVerify: arbitrary bytes as (public key, epoch, message, signature) never panic Verify,
// VerifyTrace or the parsers, the two verifiers agree, and a parsed signature serialises back
// to its input.
func FuzzVerify(f *testing.F) {
	k := loadKAT(f)
	for _, s := range k.Signatures[:2] {
		seed := append(append([]byte{}, k.Signers[s.Signer].PublicKey...), s.Message...)
		seed = append(seed, byte(s.Epoch), byte(s.Epoch>>8), byte(s.Epoch>>16), byte(s.Epoch>>24))
		f.Add(append(seed, s.Signature...))
	}
	for _, c := range k.InvalidCases {
		seed := append(append([]byte{}, c.PublicKey...), c.Message...)
		seed = append(seed, byte(c.Epoch), byte(c.Epoch>>8), byte(c.Epoch>>16), byte(c.Epoch>>24))
		f.Add(append(seed, c.Signature...))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		const head = PublicKeySize + MessageLen + 4
		if len(b) < head {
			if _, err := ParsePublicKey(b); err == nil && len(b) != PublicKeySize {
				t.Fatalf("a %d-byte public key parsed", len(b))
			}
			return
		}
		pk, err := ParsePublicKey(b[:PublicKeySize])
		if err != nil {
			t.Fatal(err)
		}
		msg := Message(b[PublicKeySize:])
		epoch := uint32(b[head-4]) | uint32(b[head-3])<<8 | uint32(b[head-2])<<16 | uint32(b[head-1])<<24
		sig, err := ParseSignature(b[head:])
		if err != nil {
			if len(b[head:]) == SignatureSize {
				t.Fatalf("a %d-byte signature was refused: %v", SignatureSize, err)
			}
			return
		}
		back := sig.Bytes()
		if !bytes.Equal(back[:], b[head:]) {
			t.Fatal("Bytes(Parse(b)) ≠ b")
		}
		verr := Verify(pk, epoch, msg, &sig)
		_, terr := VerifyTrace(pk, epoch, msg, &sig)
		if (verr == nil) != (terr == nil) || verr != nil && verr.Error() != terr.Error() {
			t.Fatalf("Verify %v, VerifyTrace %v", verr, terr)
		}
	})
}

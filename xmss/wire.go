package xmss

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// PublicKey is a signer's public key: the Merkle root and the public parameter P.
type PublicKey struct {
	Root Digest
	P    PublicParam
}

// Bytes returns root ‖ P, the reference's 32-byte layout.
func (pk PublicKey) Bytes() [PublicKeySize]byte {
	var b [PublicKeySize]byte
	copy(b[:N], pk.Root[:])
	copy(b[N:], pk.P[:])
	return b
}

// MarshalBinary returns Bytes as a slice.
func (pk PublicKey) MarshalBinary() ([]byte, error) {
	b := pk.Bytes()
	return b[:], nil
}

// UnmarshalBinary parses root ‖ P; the length must be exactly PublicKeySize.
func (pk *PublicKey) UnmarshalBinary(b []byte) error {
	if len(b) != PublicKeySize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrPublicKeyLength, len(b), PublicKeySize)
	}
	copy(pk.Root[:], b[:N])
	copy(pk.P[:], b[N:])
	return nil
}

// ParsePublicKey parses root ‖ P.
func ParsePublicKey(b []byte) (PublicKey, error) {
	var pk PublicKey
	err := pk.UnmarshalBinary(b)
	return pk, err
}

// String returns the lowercase hex of Bytes.
func (pk PublicKey) String() string {
	b := pk.Bytes()
	return hex.EncodeToString(b[:])
}

// Signature is an XMSS signature at one epoch: the WOTS chain tips (tip i = chain i at
// position x_i), the encoding randomness ρ and the authentication path (Path[ℓ] is the
// sibling at level ℓ, bottom first).
type Signature struct {
	Tips [V]Digest
	Rho  Randomness
	Path [LogLifetime]Digest
}

// Bytes returns tips ‖ ρ ‖ path, the reference's 1208-byte layout (docs/xmss.md §9).
func (sig *Signature) Bytes() [SignatureSize]byte {
	var b [SignatureSize]byte
	for i := range sig.Tips {
		copy(b[OffsetTips+N*i:], sig.Tips[i][:])
	}
	copy(b[OffsetRandomness:], sig.Rho[:])
	for l := range sig.Path {
		copy(b[OffsetPath+N*l:], sig.Path[l][:])
	}
	return b
}

// MarshalBinary returns Bytes as a slice.
func (sig *Signature) MarshalBinary() ([]byte, error) {
	b := sig.Bytes()
	return b[:], nil
}

// UnmarshalBinary parses tips ‖ ρ ‖ path; the length must be exactly SignatureSize (the
// reference's bincode would ignore trailing bytes; this parser refuses them).
func (sig *Signature) UnmarshalBinary(b []byte) error {
	if len(b) != SignatureSize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrSignatureLength, len(b), SignatureSize)
	}
	for i := range sig.Tips {
		copy(sig.Tips[i][:], b[OffsetTips+N*i:])
	}
	copy(sig.Rho[:], b[OffsetRandomness:])
	for l := range sig.Path {
		copy(sig.Path[l][:], b[OffsetPath+N*l:])
	}
	return nil
}

// ParseSignature parses tips ‖ ρ ‖ path.
func ParseSignature(b []byte) (Signature, error) {
	var sig Signature
	err := sig.UnmarshalBinary(b)
	return sig, err
}

// SecretKeySize is the length of a serialised secret key: seed ‖ LE32(epoch_start) ‖
// LE32(epoch_end). This layout is leanpipe's own: the reference keeps a key as (seed, range)
// and defines no serialisation (docs/xmss.md §7).
const SecretKeySize = SeedSize + 4 + 4

// MarshalBinary returns seed ‖ LE32(epoch_start) ‖ LE32(epoch_end): everything the key is
// derived from. Keep it secret.
func (sk *SecretKey) MarshalBinary() ([]byte, error) {
	b := make([]byte, SecretKeySize)
	copy(b, sk.seed[:])
	binary.LittleEndian.PutUint32(b[SeedSize:], sk.epochStart)
	binary.LittleEndian.PutUint32(b[SeedSize+4:], sk.epochEnd)
	return b, nil
}

// ParseSecretKey regenerates the key pair serialised by MarshalBinary (a full key
// generation over the range).
func ParseSecretKey(b []byte) (*SecretKey, PublicKey, error) {
	if len(b) != SecretKeySize {
		return nil, PublicKey{}, fmt.Errorf("%w: %d bytes, want %d", ErrSecretKeyLength, len(b), SecretKeySize)
	}
	return GenerateKey([SeedSize]byte(b), binary.LittleEndian.Uint32(b[SeedSize:]), binary.LittleEndian.Uint32(b[SeedSize+4:]))
}

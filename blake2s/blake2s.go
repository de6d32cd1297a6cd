// Package blake2s implements BLAKE2s-256 (RFC 7693), the 64-byte → 32-byte node hash of
// Merkle trees and the transcript, and many-lane hashing of independent equal-length inputs.
package blake2s

import xb "golang.org/x/crypto/blake2s"

// Size is the digest length in bytes.
const Size = 32

// Digest is a 32-byte BLAKE2s-256 output.
type Digest = [Size]byte

// Sum256 returns the unkeyed BLAKE2s-256 digest of data.
func Sum256(data []byte) Digest { return xb.Sum256(data) }

// Node returns BLAKE2s-256(left ‖ right), the Merkle and transcript node hash.
func Node(left, right *Digest) Digest {
	var buf [64]byte
	copy(buf[:32], left[:])
	copy(buf[32:], right[:])
	return xb.Sum256(buf[:])
}

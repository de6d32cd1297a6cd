// Package xmss implements the stateful hash-based signature scheme that leanEthereum/leanVM-b
// (commit 5df6c37, crates/xmss) signs and verifies: a target-sum Winternitz one-time signature
// (WOTS) per epoch under a height-32 Merkle tree, every hash a tweaked BLAKE2s-256 truncated to
// 16 bytes. It exists so that leanpipe can check, sign and aggregate exactly the signatures the
// reference produces; the byte-for-byte description is docs/xmss.md §1–§11, and this
// package follows it (where the reference's spec and code differ, the code, docs/xmss.md §11).
//
// The math objects, with docs/xmss.md's symbols:
//
//   - Th(P, tweak, payload) = BLAKE2s-256(tweak ‖ P ‖ payload)[:16], the tweakable hash (§2);
//     the tweak is type ‖ LE32(sub_position) ‖ LE32(index) ‖ 0^7 (MakeTweak).
//   - The encoding (§3): D = Th(P, tweak(3, 0, e), m ‖ ρ ‖ 0^8); the 42 digits x_i are the
//     3-bit groups of D's two little-endian words, valid iff both words have bit 63 clear and
//     Σ x_i = T = 195 (Encode). The signer grinds ρ until the encoding is valid.
//   - Chains (§4): position k+1 of chain i at epoch e is Th(P, tweak(0, 8i+k, e), position k);
//     position 0 is the secret PRF(seed, 1000, e, i), position 7 the chain end. The leaf is
//     Th(P, tweak(1, 0, e), end_0 ‖ … ‖ end_41).
//   - The tree (§5, §7): node (ℓ, j) = Th(P, tweak(2, ℓ, j), node(ℓ−1, 2j) ‖ node(ℓ−1, 2j+1)),
//     leaf index = epoch, root = node(32, 0). Only nodes whose subtree meets the activation
//     range [lo, hi] are computed; a child outside that band is the filler PRF(seed, 1002, ℓ, j).
//     PRF(seed, d, a, b) is keyed BLAKE2s-256(key = seed, LE32(d) ‖ LE64(a) ‖ LE64(b))[:16].
//
// Protocol steps:
//
//   - GenerateKey(seed, lo, hi): P = PRF(seed, 1001, 0, 0); the leaves of the range and the
//     band of real nodes above them, hashed many lanes at a time with blake2s.SumMany; the
//     public key is root ‖ P (32 bytes).
//   - (*SecretKey).Sign(e, m, rand): grind ρ, then tip_i = chain i at position x_i, and the
//     authentication path A_ℓ = node(ℓ, (e >> ℓ) ⊕ 1) for ℓ = 0..31 (§8).
//     SignWithRandomness takes ρ itself (the known-answer vectors record it).
//   - Verify(pk, e, m, σ) (§6): encoding (2 compressions), 99 chain steps, the leaf
//     (11 compressions) and 32 Merkle steps, 144 compressions for every valid signature;
//     ErrInvalidWots or ErrInvalidMerklePath names the reference's reason for a rejection.
//     VerifyTrace returns every intermediate value and all 144 compressions, the witness an
//     aggregation circuit needs.
//
// Byte layouts (§9): a signature is chain tips (42·16) ‖ ρ (24) ‖ path (32·16) = 1208 bytes;
// a public key is root (16) ‖ P (16). The parsers here are strict about length (the
// reference's bincode accepts trailing bytes). A secret key serialises as seed ‖ LE32(lo) ‖
// LE32(hi), leanpipe's own layout (the reference has none), and parsing it regenerates the key.
//
// The scheme is stateful: never sign two messages at one epoch. The secret key does not
// record used epochs, as in the reference; that is the caller's job.
package xmss

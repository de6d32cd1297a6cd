// Package merkle builds and opens the binary BLAKE2s Merkle trees that commit codeword rows.
//
// The committed object is a matrix of 2^d rows of W words each (K = GF(2^64) elements as raw
// uint64, row-major). Leaf i is BLAKE2s-256 of row i's words as 8-byte little-endian values
// (8W bytes); an internal node is BLAKE2s-256(left ‖ right) (blake2s.Node). Bit ℓ of a leaf
// index chooses the left (0) or right (1) child at height ℓ, so bit 0 decides at the leaves.
// A padded tree (NewPadded) stores narrower rows and hashes each as its leaf image: zero
// words first, then the row, leafWords in all; its pruned phases carry the narrow rows and
// its raw openings the images (ExpandPadded rebuilds them). A Builder hashes the leaves
// range by range as their rows become final (each aligned range with the subtree above
// it), so that an encoder can hand over its rows while they are in cache.
//
// Leaves and internal nodes share one hash, BLAKE2s-256 without a domain tag. That is
// safe here because a tree's depth is fixed by the statement (every opening has exactly
// depth siblings, so a leaf is only ever hashed at height 0 and a node above it), and
// the leaves the protocol commits are never 8 words (64 and 24 words: 512- and 192-byte
// preimages), while a node's preimage is always the 64 bytes of two digests, so no leaf
// preimage is a node preimage.
//
// Openings come in two forms that carry the same information:
//   - raw: one RawOpening per query, the full row and its d siblings, leaf level first;
//   - pruned ("octopus"): one Phase per opening round, the rows at the distinct queried
//     positions in ascending order and the siblings of the union of their paths, level by
//     level bottom-up and left to right, leaving out every node that the opened rows
//     determine.
//
// Tree.Prune produces the pruned siblings; Expand authenticates a pruned phase against a
// root and rebuilds the raw form, one opening per query in query order, hashing the opened
// leaves and each level's parents through the many-lane hasher. Expand and VerifyPath are
// verifier code: they return errors (never panic) on any input.
//
// This package exists so the commitment (prover) and the transcript's opening channel
// (verifier) share one definition of the leaf image, the node hash and the pruning order.
package merkle

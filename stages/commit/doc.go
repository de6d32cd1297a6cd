// Package commit is the level-0 commitment of leanVM-b's polynomial commitment
// (spec §4 "Committing the witness", annex B): the packed witness stack q of 2^μ K
// words is split into 2^6 lane blocks (the top six index bits), each block is
// Reed–Solomon encoded in the novel polynomial basis at rate 2^-ρ, and the codeword
// rows (one evaluation point across the 64 lanes, lanes in descending block order)
// are the leaves of a BLAKE2s Merkle tree whose root is the commitment. The root
// travels as two scalars (RootHalves).
//
// The package exists so the witness buffer is encoded in place of a copy and the
// result (codeword, tree) is handed as one value to the opening (package open). The
// leaves are hashed as the encoder finishes each cache-sized range of rows
// (ntt.Plan.EncodeKThen feeding a merkle.Builder), not in a second pass over the
// codeword.
// Commit allocates the codeword and tree; CommitInto writes into a caller-owned
// Committed and reuses its buffers, so a prover committing one shape after another
// allocates almost nothing here.
package commit

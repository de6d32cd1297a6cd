// Package keccak is Keccak-f[1600] (FIPS 202) and the keccak-batch flow: one
// Flock proof that N permutations map N given input states to N given output
// states, every state bit bound by the statement (docs/keccak-batch.md is the
// specification).
//
// The pieces:
//
//   - The permutation (Permute, keccak.go): 24 rounds of θ, ρ, π, χ, ι on 25
//     little-endian 64-bit lanes, lane A[x,y] at bytes 8(x+5y)..8(x+5y)+7 of the
//     200-byte state string. Sponge (sponge.go) builds SHA3-256 and SHAKE128 on it,
//     for the known-answer tests.
//   - The circuit (NewCircuit, circuit.go): per permutation 1,600 input columns,
//     24 × 1,600 committed χ products (¬b₁)·b₂, θ ρ π ι held as GF(2)-linear forms,
//     and 1,600 output columns pinned to the linear form of the last round.
//   - The witness (fill, witness.go): filled lane by lane from a native trace of
//     the permutation: every committed region is 64-bit aligned, so each χ product
//     lane and its A- and B-values are one K word of the packed stack.
//   - The flow (Flow, flow.go): the statement (N and the states) is absorbed as a
//     SHA-256 digest after the label and pinned bit by bit into every block by the
//     lincheck's public-input term.
//
// The package exists so that the Keccak statement, its circuit and its witness live
// together, beside the shared stages that prove any Flock circuit.
package keccak

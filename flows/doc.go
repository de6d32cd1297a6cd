// Package flows assembles proof stages into the standard flows, so that the command
// line and examples only pick a flow and feed it.
//
// The BLAKE2s batch flow is leanVM-b's standalone Flock batch proof
// (crates/flock/tests/blake2s_batch.rs): transcript label "flock-blake2s-batch", empty
// statement; commit the packed witness q_flock (mu = 8 + n_log variables, stacked at
// offset 0 in a stack of 2^max(15, mu) words; for mu < 15 only the column's lane
// blocks are encoded, the zero lanes leading every leaf image and left out of the
// wire rows, as the reference commits a short stack) and send its root as two scalars; the
// Flock zerocheck over 14 + n_log variables; the lincheck; ring switching; the stacked
// WHIR opening with the one ring-switched claim. Proofs are byte-identical to the
// reference prover's for the same compressions and do not depend on worker counts.
package flows

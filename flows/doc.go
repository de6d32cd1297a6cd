// Package flows holds leanpipe's proof flows as values and the engine that runs them.
//
// A Flow is one kind of proof: a name and a transcript label, how a job's input (a
// file, a generated seed or a Go value) becomes the instances it proves, the ordered
// stages of its prover, its verifier, the PROOF.json metadata of its proof files and
// a memory estimate. Flows are registered by name (Register, Lookup, Names); the
// command line, run configs and streams reach them only through the registry, so a
// new flow touches its own package and one registration line.
//
// A flow's prover is one graph.Chain of typed stages: Prove runs it directly, stage
// after stage on the caller's workers, and an Engine wires the same chain into a
// stage graph (one per flow, built on first use) whose stages share the engine's
// scheduler, shape cache, buffer pools and scratch (Resources). Both paths give the
// same proof bytes, whatever the worker count.
//
// Flock flows (NewFlock) prove a Boolean R1CS circuit for N instances with the
// stages plan → witness → commit → zerocheck → lincheck → open; only the circuit,
// the inputs and the witness writer differ between them. The plan stage fetches the
// WHIR configuration from the shape cache and it travels along the edges to the
// opening; the commit stage starts the transcript with the flow's label.
//
// Batch, registered as "blake2s-batch", is leanVM-b's standalone Flock BLAKE2s batch
// proof (crates/flock/tests/blake2s_batch.rs): label "flock-blake2s-batch", empty
// statement; commit the packed witness q_flock (mu = 8 + n_log variables, stacked at
// offset 0 in a stack of 2^max(15, mu) words; for mu < 15 only the column's lane
// blocks are encoded, the zero lanes leading every leaf image and left out of the
// wire rows, as the reference commits a short stack) and send its root as two
// scalars; the Flock zerocheck over 14 + n_log variables; the lincheck; ring
// switching; the stacked WHIR opening with the one ring-switched claim. Its proofs
// are byte-identical to the reference prover's for the same compressions.
package flows

// Package recursion is where xmss-aggregate proofs are merged: a parent proof that
// verified its child proofs (and any raw signatures) in a circuit of its own, with the
// fixed-matrix and key-table evaluations deferred as claims (docs/recursion.md).
//
// It exists apart from aggregate because a merge verifies whole proofs: it sits above
// the stages and the leaf flow in the import order, as a flow of its own.
//
// What is here so far is the ledger (Measure): what verifying one child proof costs a
// recursion circuit, counted by replaying the child's verification through the real
// verifier stages with a recording transcript — transcript compressions and Merkle
// openings as the verifier performs them, field multiplications by kind from the
// in-circuit form of each stage's checks — so that the circuit's budget is set from
// measurements before the circuit is written.
package recursion

// Package recursion is where xmss-aggregate proofs are merged: a parent proof that
// verified its child proofs (and any raw signatures) in a circuit of its own, with the
// fixed-matrix and key-table evaluations deferred as claims (docs/recursion.md).
//
// It exists apart from aggregate because a merge verifies whole proofs: it sits above
// the stages and the leaf flow in the import order, as a flow of its own.
//
// What is here:
//   - Merge, Merged, VerifyMerged: merges of leaves (depth 1), each child's interface
//     revealed, its matrix claims batched into one; the product path (prove --child,
//     run's tree, serve and NATS jobs).
//   - MergeNR, MergedNR: merges of leaves with nothing revealed but each child's
//     carried claims (docs/recursion.md §6.4–6.7), built from tapes (Tape, NewChildTape,
//     NewSegmentsTape), arithmetic and squaring blocks, no-reveal query and grinding
//     blocks and relations across segments; the design that reaches depth ≥ 2, not yet
//     taking merged children nor on the product path.
//   - The ledgers (Measure, MeasureMerged): what verifying one child proof costs a
//     recursion circuit, measured on real proofs before the circuit was written.
package recursion

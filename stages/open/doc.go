// Package open is the stacked WHIR opening of leanVM-b's polynomial commitment
// (spec annex B, "The polynomial commitment scheme"; §4 for the stack): the proof
// that the committed stack q (2^LogN K words, committed by package commit) satisfies
// one batched claim Σ_u q(u)·B(u) = T, where B pools ring-switched weights on placed
// columns of the stack (one for a Flock flow; several for a proof of several
// segments, VerifyStackedRings) and any number of point (eq) claims over the stack.
//
// Stacking: StackOffsets places blocks of 2^v words largest first at multiples of
// their size (Placement); a column's weight is W(low)·eq(selector, high).
// VerifyStacked/ProveStacked observe the point values, draw one challenge c and
// pool the ring claim with c^0 and point claim i with c^(i+1); with r ring claims
// (VerifyStackedRings/ProveStackedRings, columns anywhere, overlapping ones adding) ring claim j
// takes c^j and point claim i c^(r+i).
//
// WHIR, per level l of the ladder given by DeriveConfig:
//   - fold rounds: a degree-2 sumcheck over q·B, one challenge per folded variable
//     (level 0 folds the six lane variables, the top six bits of the stack index;
//     later levels the lowest ones);
//   - a non-final level commits the folded polynomial (lanes = its low fold
//     variables, rows of E values; root as two scalars), draws one out-of-domain
//     point, sends the value there and its intro round polynomial; the final level
//     sends the residual in the clear;
//   - 17 bits of grinding, the query positions, one batching challenge λ, the Merkle
//     openings of the level's codeword, the enforced sum of the folded rows and its
//     intro round polynomial (weight: the novel-basis column weight, InducedWeight);
//     the level's claims are glued with λ, λ², …;
//   - after the final level the remaining rounds run (the last round polynomial is
//     not sent) and the verifier closes on one evaluation of every weight at the
//     terminal point.
//
// Round polynomials travel as (c0, c2): h(0) + h(1) = claim fixes c1.
//
// The Merkle openings are the reference's wire form unless a flow opts into Wire
// (Scratch.Wire, VerifyStackedWire): with Wire.RepeatedLanes the level-0 rows leave
// out the equal leading words of identical top lane blocks (a Flock batch's padding
// lanes); the stream and the raw form do not change.
// The prover (ProveStacked, ProveWHIR; Scratch to reuse buffers) and the verifier
// (VerifyStacked, VerifyWHIR; the *Lanes variants for stacks committed in fewer
// than 64 lane blocks) sit side by side so the two streams cannot drift apart. Both
// take the transcript through small interfaces that transcript.Prover and
// transcript.Verifier implement.
package open

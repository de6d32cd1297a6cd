// Package open is the stacked WHIR opening of leanVM-b's polynomial commitment
// (spec annex B, "The polynomial commitment scheme"; §4 for the stack): the proof
// that the committed stack q (2^LogN K words, committed by package commit) satisfies
// one batched claim Σ_u q(u)·B(u) = T, where B pools a ring-switched weight on a
// region of the stack and any number of point (eq) claims over the whole stack.
//
// Protocol, per level l of the ladder given by DeriveConfig:
//   - fold rounds: a degree-2 sumcheck over q·B, one challenge per folded variable
//     (level 0 folds the six lane variables, the top six of the stack index);
//   - a non-final level commits the folded polynomial (root as two scalars), takes
//     one out-of-domain claim at a random point and introduces it with a round
//     polynomial; the final level sends the residual in the clear;
//   - 17 bits of grinding, the query positions, one batching challenge λ, the Merkle
//     openings of the previous codeword, the enforced sum of the folded rows and its
//     intro round polynomial; the level's claims are glued with λ, λ², …;
//   - after the final level the remaining rounds run and the verifier closes on one
//     evaluation of every weight at the terminal point.
//
// Round polynomials travel as (c0, c2): h(0) + h(1) = claim fixes c1.
// The package holds the prover (ProveStacked) and the verifier (VerifyStacked,
// VerifyWHIR) side by side so the two streams cannot drift apart.
package open

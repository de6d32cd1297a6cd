// Package zerocheck is the Flock zerocheck of leanVM-b (doc/leanvm/body/c-flock-protocol.tex):
// it reduces "a(y)·b(y) + c(y) = 0 for every y ∈ {0,1}^m" over three bit vectors to
// claims on their extensions at one random point, which lincheck then pins against
// the committed witness. It is a stage of its own because it is the one step that
// reads the packed bits of a, b and c; everything after it works on the claims.
//
// Variables are indexed low coordinate first: the low KSkip = 6 index bits (the bit
// inside a packed 64-bit word) are the skip variable s, the word index holds the
// m − 6 remaining ones. The protocol, with r = (r_0, …, r_{m−7}):
//
//  1. r_0..r_6 are fixed (FixedChallenges: three GF(2^8) images φ8(0xF7), φ8(0x53),
//     φ8(0xB5), then β^(2^p)/(1 + β^(2^p)) for p < 4); the rest are sampled.
//  2. Univariate skip: the prover sends P(Λ_j), j < 64, for
//     P(λ) = Σ_x eq(r, x)·(â(λ, x)·b̂(λ, x) + ĉ(λ, x)), where â(·, x) is the polynomial
//     of degree < 64 through a(·, x) on S = PHI[0, 64) and Λ = PHI[64, 128). P vanishes
//     on S for a true statement, so the verifier interpolates P at the sampled z_skip
//     from 64 zeros and the 64 coset values.
//  3. One quadratic round per coordinate of r, low first, with the eq factor of the
//     round's own coordinate pulled out: the round polynomial G has
//     (1 + r_i)·G(0) + r_i·G(1) = claim, so its constant coefficient is implied and
//     (c1, c2) go on the stream; chi_i is sampled and claim ← G(chi_i).
//  4. The prover sends v_a = â(z_skip, chi), v_b = b̂(z_skip, chi); both sides set
//     v_c = claim + v_a·v_b. Nothing is checked here: a false statement or a forged
//     message ends in claims that lincheck rejects.
//
// The prover computes step 2 on bit planes in GF(2^8) (the coset values of a word's
// polynomial are GF(2^8) elements, and so are the small eq coordinates), reads the
// first quadratic round straight from the bits through byte tables at z_skip, and folds
// z_skip and chi_0 in one table pass before the rounds on E tables. Padding instances
// (identical copies of one instance, see Input.Live) are summed once and weighted by
// the eq mass of the tail, so the work follows the live instances; the bytes do not
// change.
package zerocheck

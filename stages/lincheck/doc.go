// Package lincheck is the Flock lincheck of leanVM-b: the reduction that turns
// the zerocheck's three claims on the Boolean witness z into 64 bit-slice claims
// on the packed committed column q (K words, 64 bits each) at one point.
//
// Lincheck (leanVM-b doc, Flock protocol appendix). The zerocheck leaves
// v_a = (A·z)^(x), v_b = (B·z)^(x), v_c = z^(x) at one "quirky" point
// x = (z_skip, chi_in, chi_out): z_skip binds the 6 low row bits through the
// Lagrange basis over the GF(2^8) skip domain PHI(0..63), chi_in the next
// LogSize-6 row bits of a block, chi_out the slot bits. With A = I ⊗ A0,
// B = I ⊗ B0, C = I, and e_row = L(z_skip) ⊗ eq(chi_in, ·), the verifier draws α
// and the claim
//
//	v_a + α·v_b + α²·v_c + α³ = Σ_c comb(c)·ẑ(c, chi_out),
//	comb = (A0 + α·B0)ᵀ·e_row + α²·e_row + α³·[c = constant column]
//
// is reduced by LogSize-6 plain quadratic sumcheck rounds binding the high
// column bits (top bit first). The prover then sends the 64 slice values
// s_i = z(i, point) with point = (reversed round challenges, chi_out), and the
// verifier checks the terminal identity through the circuit's bilinear form.
// The Claim (Point, S) is what package ringswitch takes next.
//
// Public inputs (public.go). A flow whose blocks carry public bits pins them with
// a fifth term: a Window of pinned columns, τ drawn after α, comb gaining
// α⁴·mask(j)·eq(τ, j) at each pinned column and the claim α⁴·P(τ, chi_out), P the
// multilinear extension of the public table (Public, Table). Without a window
// (Prove, Verify) the transcript is the reference's, byte for byte.
//
// Prover kernel. The lincheck folds the packed witness over its slots with
// 256-entry subset-sum tables of eight slot weights, indexed by 8x8-transposed
// witness bytes (PartialFold). It has an AVX2 kernel (kernels_amd64.go,
// fold_amd64.s) and a GFNI kernel that maps each slot group's bits through 24 bit
// matrices with VGF2P8AFFINEQB (bitfold_amd64.go, bitfold_amd64.s), with a portable
// twin, chosen by the "reduce" family's level (cpu). Scratch carries
// the prover's buffers across proofs; Prove is its one-shot form.
//
// The package exists so that the lincheck, prover and verifier side by side,
// sits between the zerocheck and the ring switch with the circuit as a parameter.
package lincheck

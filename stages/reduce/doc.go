// Package reduce holds the Flock lincheck and the ring switch of leanVM-b: the
// reductions that turn the zerocheck's three claims on the Boolean witness z
// into one claim on the packed committed column q (K words, 64 bits each).
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
//
// Ring switch (leanVM-b doc, ring-switching appendix). After s is bound, six
// challenges define the F2-linear map Φ(a) = stages a ← a + f_p·a^(2^shift_p),
// shifts 32, 16, 8, 4, 2, 1, whose Frobenius expansion Σ_k c_k·a^(2^k) has a
// distinct monomial at every k < 64. The 64 slice claims become the single claim
// Σ_u W(u)·q(u) = T with T = Σ_i x^i·Φ(s_i) and W(u) = Φ(eq(point, u)), which the
// opening discharges; its verifier evaluates W's multilinear extension from the
// c_k, the prover builds W densely.
//
// Prover kernels. The lincheck folds the packed witness over its slots with
// 256-entry subset-sum tables of eight slot weights, indexed by 8x8-transposed
// witness bytes (PartialFold). The ring weight is built without the 2^mu eq
// table: the lowest coordinate's two eq factors are folded into Φ's byte
// tables, so one 64-byte row per byte of eq(point[1:], b) yields W(2b) and
// W(2b+1) (RingWeights). Both have AVX2 kernels (kernels_amd64.go, *.s) with
// portable twins, chosen by simd's level. LincheckScratch and RingScratch carry
// the provers' buffers across proofs; LincheckProve, RingSwitchProve and
// RingWeights are their one-shot forms.
//
// The package exists so that both reductions, prover and verifier side by side,
// sit between the zerocheck and the opening with the circuit as a parameter.
package reduce

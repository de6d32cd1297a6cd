// Package ringswitch is the ring switch of leanVM-b: the reduction that turns
// the lincheck's 64 bit-slice claims s_i = z(i, point) on the packed committed
// column q (K words, 64 bits each) into one dense claim on q that the opening
// discharges.
//
// Ring switch (leanVM-b doc, ring-switching appendix). After s is bound, six
// challenges define the F2-linear map Φ(a) = stages a ← a + f_p·a^(2^shift_p),
// shifts 32, 16, 8, 4, 2, 1 (Map), whose Frobenius expansion Σ_k c_k·a^(2^k) has
// a distinct monomial at every k < 64. The 64 slice claims become the single
// claim Σ_u W(u)·q(u) = T with T = Σ_i x^i·Φ(s_i) and W(u) = Φ(eq(point, u)),
// which the opening discharges; its verifier evaluates W's multilinear extension
// from the c_k (WeightAt), the prover builds W densely (Weights).
//
// Prover kernel. The ring weight is built without the 2^mu eq table: the lowest
// coordinate's two eq factors are folded into Φ's byte tables, so one 64-byte row
// per byte of eq(point[1:], b) yields W(2b) and W(2b+1). It has an AVX2 kernel
// (kernels_amd64.go, ring_amd64.s) and, at the GFNI level, the pair table's bit
// matrices applied to 64 values at a time by simd's bit folds, with a portable
// twin, chosen by the "reduce" family's level (cpu).
// Scratch carries the prover's buffers across proofs; Prove and Weights are its
// one-shot forms.
//
// The package exists so that the ring switch, prover and verifier side by side,
// sits between the lincheck and the opening, taking the lincheck's point and
// slice values as plain arguments.
package ringswitch

// Package field implements the binary fields of the leanVM-b proof system.
//
// K = GF(2^64) = F2[x]/(x^64 + x^4 + x^3 + x + 1): a K element is a 64-bit word, bit i
// being the coefficient of x^i; addition is XOR. E = K[y]/(y^3 + y + 1) is the 192-bit
// challenge field; an E element c0 + c1·y + c2·y² is three K words. The GF(2^8)
// skip-domain embedding PHI (Phi8) maps bytes into K.
//
// Scalar operations are methods on K and E. E.Inv uses the norm to K: with
// σ(a) = a^(2^64), a⁻¹ = σ(a)·σ²(a)·N(a)⁻¹ where N(a) = a·σ(a)·σ²(a) ∈ K; Frobenius
// powers are K-linear on the limbs and use precomputed powers of y.
//
// Multilinear helpers follow the reference's conventions: tables are indexed with the
// lowest variable in bit 0, EqTable and EvalMLE take points low coordinate first, and
// FoldLow/FoldHigh fix the lowest/highest variable.
//
// The slice kernels (MulESlice, ScaleE, AddScaledE, InnerProduct, FoldLow, …) hand
// the words of their arguments to package simd, which picks portable Go or amd64
// assembly once at start-up. They reinterpret []E as []uint64 with unsafe.Slice: E is
// three K (uint64) fields, 24 bytes, 8-byte aligned, no padding, asserted at compile
// time in words.go. Results never depend on the dispatch level.
package field

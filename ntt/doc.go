// Package ntt implements the additive NTT over the Lin–Chung–Han novel polynomial
// basis that Reed–Solomon-encodes every WHIR commitment of leanVM-b.
//
// # The math object
//
// Let β_i = x^i ∈ K (so the F2-span of β_0..β_{d-1} is {0, 1, …, 2^d − 1} under the
// natural encoding of a K word). The subspace polynomials are W_0(X) = X and
// W_{i+1}(X) = W_i(X)·(W_i(X) + W_i(β_i)); they are F2-linear and W_i vanishes on
// span(β_0..β_{i-1}). The normalisation constants are r_i = W_i(β_i)
// ([SubspaceRoots]) and Ŵ_i = W_i / r_i. The novel basis is
// X_j(X) = Π_{k: bit k of j} Ŵ_k(X).
//
// A forward transform of dimension d maps novel-basis coefficients (m_j)_{j<2^d} to the
// evaluations c_q = Σ_j m_j·X_j(q) at the 2^d field elements q = 0, 1, …, 2^d − 1 (q's
// bits read as a K word). Layer ℓ (0 ≤ ℓ < d) splits index blocks of 2^{d−ℓ} entries into
// halves u, v and applies u ← u + λ·v, v ← v + u with
// λ = Σ_j bit_j(block)·Ŵ_{d−ℓ−1}(β_{d−ℓ+j}) ([Plan.Twiddle]). The inverse runs the layers
// backwards with v ← v + u, u ← u + λ·v.
//
// # Reed–Solomon encoding (doc annex B, "committing the witness")
//
// A message of 2^m coefficients at log inverse rate ρ is the low part of a coefficient
// vector of 2^{m+ρ} entries whose high part is zero; its first ρ layers only replicate it,
// so the encoder writes 2^ρ replicas and runs layers ρ..m+ρ−1. Several messages (lanes)
// share the transform and are interleaved: one codeword row per evaluation point q, which
// is exactly one Merkle leaf ([Plan.EncodeK], [Plan.EncodeE] give the row contracts).
//
// # Codeword row contracts (checked against the reference proofs)
//
// Level 0 ([Plan.EncodeK]): the committed stack is n ≤ 2^6 contiguous lane blocks of
// 2^{μ−6} K words; row q of the codeword is the Merkle leaf of position q, whose 2^6 words
// list the lanes' codewords at q in DESCENDING block order (word i is block 63 − i), the
// absent blocks of a short stack being a zero prefix. A verifier reverses the row to fold
// it with the eq weights of the six fold challenges (block b ↔ bit pattern b, low
// coordinate first). The encoder writes either whole 64-word leaves or only their last w
// words (the committed tail).
//
// Deeper levels ([Plan.EncodeE]): the folded message is row-major over 2^k lanes (the
// lane is the low k bits of its index); row q lists the lanes in ASCENDING order, each E
// as its three words C0, C1, C2.
//
// The WHIR prover's batched query weight over a level's message cube,
// b ↦ Σ_i w_i·X_b(q_i), is the transpose of the encoder applied to the sparse vector of
// query weights ([Plan.InducedTable], [Plan.TransposeE]); its multilinear extension is the
// verifier's induced weight Π_k (1 + p_k·(1 + Ŵ_k(q))) summed over the queries.
//
// The E-valued transforms of the deeper WHIR levels use the same K twiddles: an E·K
// product scales the three K coordinates independently, so an E row is transformed as
// three times as many K words.
//
// # Engine
//
// The encoder runs the top layers in whole-buffer passes of up to six layers, each group
// read from the message (or the buffer) in its first sub-pass and written back in its
// last, and the remaining layers as cache-resident sub-transforms; two layers at a time
// go through a radix-4 kernel that keeps four rows' words in registers. The first pass
// transforms the replicas of one run of message rows one after another, so each row is
// read from memory once; [Plan.EncodeK] transposes its lane-major stack into the first
// replica inside that pass, round by round (the tiles the next groups read), so that
// the pass reads them back from cache. [Plan.EncodeKThen] hands each finished
// sub-transform's rows to the caller while they are still in cache (the commitment
// hashes its Merkle leaves there). Twiddle-zero butterflies (block 0 of a layer) are
// plain XORs. The AVX2 + VPCLMULQDQ kernels (four words per ymm register) and the
// AVX-512 + VPCLMULQDQ kernels (eight words per zmm register, level avx512-vpclmul, on
// each row's multiple-of-8 head) have portable twins that give the same bits.
//
// The package exists because the encoder is the prover's largest memory-bound kernel; it
// takes its buffers and worker count from the caller and its output never depends on the
// worker count.
package ntt

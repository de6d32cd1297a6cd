// Package circuit models Boolean R1CS blocks, the per-instance relation Flock proves
// in batch: (A0·w) ∘ (B0·w) = C0·w with C0 = I over GF(2), for one block of 2^LogSize
// columns w (a committed bit per column), one column pinned to the constant 1.
//
// A circuit is a straight-line program, never a matrix: sources (input columns and
// the constant column) are read into wires, XOR wires are GF(2) sums, and every
// constraint row a·b = w[row] records the two wires a and b. A wire's value is a
// linear combination of columns, so the program defines A0 and B0 row by row
// (row r of A0 is the combination carried by its a wire). Every product row is its
// own committed column, read back by later wires, so the affine cascade of a
// hash never materialises its intermediate words (BLAKE2s has ~89M nonzeros but a
// program of ~10^5 steps).
//
// The walks, all O(program):
//   - RowValues / RowValuesK / RowValuesWords: A0·w and B0·w for w over E, over K,
//     or over uint64 words holding 64 instances bit-sliced;
//   - Solve: the witness itself, 64 bit-sliced instances per word, from the inputs;
//   - Transpose: (A0 + α·B0)ᵀ·e by reverse-mode differentiation of the forward
//     walk (the lincheck prover's column marginal); TransposePair the two sides;
//   - Bilinear: eᵀ(A0 + α·B0)w (the lincheck verifier's terminal term).
//
// Builder records a circuit (Col, Xor, Row, word gadgets Add and Add3) and Compile
// freezes it, dropping dead steps and assigning wires to reusable registers.
//
// Descriptions. A circuit is written once as generic code over Ops[W] (Col, Xor,
// Row, One, Input, Name), with the gadgets of this package (Product, Add, Add3,
// AddAuto, Compress, Mux, …) generic too. Run on a Builder (W = Wire) it records
// the program; run on an Evaluator (W = EvalWire: a wire's value under the column
// weights and its Builder wire number, so literal folds decide alike) it computes
// eᵀA0·w and eᵀB0·w as it goes, with no program held. Matrices is what a verifier
// needs of the fixed matrices (BilinearPair at full weights, BilinearTensor at
// weights given by tensor factors, Tensor); *Circuit implements it by walking its
// program and *Described by running the description (NewDescribed). Eval(m, rRow,
// rCol) is the pair of multilinear extensions Â0(rRow, rCol), B̂0(rRow, rCol): the
// call a verifier, a recursive verifier's deferred claims or another flow make on
// any circuit. BLAKE2sMatrices is BLAKE2s() as a description.
// BLAKE2s() is one instance: the BLAKE2s compression with all ten rounds in the
// reference's 2^14-column layout (Blake2s* constants; see doc/leanvm Annex C of
// leanVM-b and c-flock-protocol.tex), 16000 useful columns, constant column 512.
//
// Row packing (what the zerocheck, the commitment and the witness stage share): a
// batch of 2^n instances of a circuit of 2^k columns is a bit vector of 2^(k+n)
// entries, instance s column r at index s·2^k + r, packed 64 per K word: bit
// (s·2^k + r) mod 64 of word (s·2^k + r) / 64. PackRows (built on Transpose64)
// converts 64 bit-sliced instances, as Solve and RowValuesWords produce them, to
// that packing, so any circuit can fill the committed stack gate by gate; BLAKE2s
// has a word-level generator in stages/witness.
package circuit

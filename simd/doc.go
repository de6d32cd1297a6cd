// Package simd holds the GF(2^64) kernels the prover spends its time in, on raw words.
//
// A K element (GF(2^64) modulo x^64 + x^4 + x^3 + x + 1) is one uint64; an E element
// c0 + c1·y + c2·y² of K[y]/(y^3 + y + 1) is three consecutive uint64 words c0, c1, c2,
// so an E vector of n elements is a []uint64 of 3n words. The package knows no field
// types: package field wraps these kernels with typed slices.
//
// Every kernel has an always-compiled portable Go twin. On amd64, unless built with
// -tags=purego, the kernels run at the level package cpu selects for the "field"
// family (Kernels):
//
//   - cpu.PCLMUL: scalar carry-less products (PCLMULQDQ), one element at a time;
//   - cpu.AVX2VPCLMUL: four elements per step with VPCLMULQDQ on ymm registers (two
//     64×64-bit products per instruction) and AVX2 shuffles and shifts.
//
// Higher levels run the AVX2VPCLMUL kernels; $LEANPIPE_SIMD caps the level for every
// family, and tests and benchmarks switch it with cpu.SetLevel.
//
// Vector kernels take 128-bit unreduced products, XOR them, and reduce each output
// limb once; inner products reduce once at the very end. Results are identical at
// every level. Lengths are in elements and must match as documented; kernels panic
// on mismatched lengths. dst may equal an input exactly (in place) but must not
// otherwise overlap it, except where a kernel says so.
package simd

// Package cpu is the one place leanpipe reads the processor: it detects the kernel
// level once (with github.com/klauspost/cpuid/v2), applies the cap from
// $LEANPIPE_SIMD, and tells every kernel family (field, ntt, blake2s, zerocheck,
// reduce, open) which of its implementations to run.
//
// Levels are ordered, each implying the ones below it:
//
//	portable < pclmul < avx2 < avx2-vpclmul < avx512-vpclmul < avx512-gfni
//
// portable is pure Go; pclmul adds scalar PCLMULQDQ; avx2 adds AVX and AVX2; avx2-vpclmul
// adds VPCLMULQDQ on ymm; avx512-vpclmul adds AVX-512 F, BW and VL (VPCLMULQDQ on zmm);
// avx512-gfni adds GFNI. A kernel family implements some of them; Family.Level is the
// highest one it implements at or below the level in use, and dispatch compares it
// with >=, so a CPU above a family's best kernel runs that best kernel.
package cpu

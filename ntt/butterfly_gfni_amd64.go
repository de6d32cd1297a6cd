//go:build amd64 && !purego

package ntt

// The GFNI variants of the AVX-512 butterflies (butterfly_gfni_amd64.s): the same
// contracts as fwdZ, invZ, fwd4Z, fwd4ioZ, fwdioZ and fwd4BlocksZ, with the reduction's
// shifts and fold table replaced by GF2P8AFFINEQB byte maps. The _amd64.go wrappers
// run them instead of those at level avx512-gfni.

// fwdG applies the forward butterfly to n words at u and v.
// Requires AVX-512 F, BW, VPCLMULQDQ and GFNI; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwdG(u, v *uint64, n int, lambda uint64)

// invG applies the inverse butterfly to n words at u and v.
// Requires AVX-512 F, BW, VPCLMULQDQ and GFNI; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func invG(u, v *uint64, n int, lambda uint64)

// fwd4G applies two forward layers to n words at each of four rows: (a, c) and (b, d)
// with t0, then (a, b) with t1 and (c, d) with t2.
// Requires AVX-512 F, BW, VPCLMULQDQ and GFNI; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwd4G(a, b, c, d *uint64, n int, t0, t1, t2 uint64)

// fwd4ioG is fwd4G reading rows i0..i3 and writing rows o0..o3 (o_k may equal i_k;
// otherwise the rows must not overlap).
// Requires AVX-512 F, BW, VPCLMULQDQ and GFNI; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwd4ioG(o0, o1, o2, o3, i0, i1, i2, i3 *uint64, n int, t0, t1, t2 uint64)

// fwdioG is the forward butterfly reading rows ui, vi and writing rows uo, vo (uo may
// equal ui and vo vi; otherwise no overlap).
// Requires AVX-512 F, BW, VPCLMULQDQ and GFNI; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwdioG(uo, vo, ui, vi *uint64, n int, lambda uint64)

// fwd4BlocksG runs the radix-4 kernel on words 0..cols−1 of nb consecutive blocks of four
// rows of s words, block k with the twiddles tw[3k..3k+2].
// Requires AVX-512 F, BW, VPCLMULQDQ and GFNI; nb > 0; cols a positive multiple of 8, at
// most s; no alignment.
//
//go:noescape
func fwd4BlocksG(buf *uint64, s, cols, nb int, tw *uint64)

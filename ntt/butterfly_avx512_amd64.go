//go:build amd64 && !purego

package ntt

// The AVX-512 butterflies (butterfly_avx512_amd64.s): eight words per zmm register. The
// _amd64.go wrappers run them on the multiple-of-8 head of a row at level avx512-vpclmul
// and leave the rest to the ymm kernels and the scalar tail.

// fwdZ applies the forward butterfly to n words at u and v.
// Requires AVX-512 F, BW and VPCLMULQDQ; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwdZ(u, v *uint64, n int, lambda uint64)

// invZ applies the inverse butterfly to n words at u and v.
// Requires AVX-512 F, BW and VPCLMULQDQ; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func invZ(u, v *uint64, n int, lambda uint64)

// fwd4Z applies two forward layers to n words at each of four rows: (a, c) and (b, d)
// with t0, then (a, b) with t1 and (c, d) with t2.
// Requires AVX-512 F, BW and VPCLMULQDQ; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwd4Z(a, b, c, d *uint64, n int, t0, t1, t2 uint64)

// fwd4ioZ is fwd4Z reading rows i0..i3 and writing rows o0..o3 (o_k may equal i_k;
// otherwise the rows must not overlap).
// Requires AVX-512 F, BW and VPCLMULQDQ; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwd4ioZ(o0, o1, o2, o3, i0, i1, i2, i3 *uint64, n int, t0, t1, t2 uint64)

// fwdioZ is the forward butterfly reading rows ui, vi and writing rows uo, vo (uo may
// equal ui and vo vi; otherwise no overlap).
// Requires AVX-512 F, BW and VPCLMULQDQ; n must be a positive multiple of 8; no alignment.
//
//go:noescape
func fwdioZ(uo, vo, ui, vi *uint64, n int, lambda uint64)

// fwd4BlocksZ runs the radix-4 kernel on words 0..cols−1 of nb consecutive blocks of four
// rows of s words, block k with the twiddles tw[3k..3k+2].
// Requires AVX-512 F, BW and VPCLMULQDQ; nb > 0; cols a positive multiple of 8, at most s;
// no alignment.
//
//go:noescape
func fwd4BlocksZ(buf *uint64, s, cols, nb int, tw *uint64)

// transposeRev8 transposes eight lanes (lane k at src + k·laneStride words) of nrows
// words into nrows rows of s words at out, lanes in descending order within a row.
// Requires AVX-512F; nrows a positive multiple of 8; no alignment.
//
//go:noescape
func transposeRev8(out *uint64, s int, src *uint64, laneStride int, nrows int)

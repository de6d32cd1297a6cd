//go:build !purego

#include "textflag.h"

// Vector kernels for the AVX2VPCLMUL level: VPCLMULQDQ on ymm (VEX.256, two 64×64-bit
// products per instruction) with AVX2 blends, permutes and shifts. Every entry point
// takes n, a positive multiple of 4 elements, and unaligned pointers; E vectors are
// 3n words. Four E elements (12 words, three ymm) are transposed into "limb registers"
// L_j = (limb j of elements 0, 1, 2, 3) so that a K vector loaded as is lines up.

// LOADE4 loads four E elements at p into limb registers l0, l1, l2.
// Memory holds r0 = [a0 a1 a2 b0], r1 = [b1 b2 c0 c1], r2 = [c2 d0 d1 d2].
#define LOADE4(p, l0, l1, l2) \
	VMOVDQU   0(p), l0 \
	VPBLENDD  $0x0c, 64(p), l0, l0 \
	VPBLENDD  $0x30, 32(p), l0, l0 \
	VPERMQ    $0x6c, l0, l0 \
	VMOVDQU   32(p), l1 \
	VPBLENDD  $0x0c, 0(p), l1, l1 \
	VPBLENDD  $0x30, 64(p), l1, l1 \
	VPERMQ    $0xb1, l1, l1 \
	VMOVDQU   64(p), l2 \
	VPBLENDD  $0x0c, 32(p), l2, l2 \
	VPBLENDD  $0x30, 0(p), l2, l2 \
	VPERMQ    $0xc6, l2, l2

// STOREE4 stores limb registers l0, l1, l2 (clobbered) as four E elements at p; r is scratch.
#define STOREE4(p, l0, l1, l2, r) \
	VPERMQ    $0x6c, l0, l0 \
	VPERMQ    $0xb1, l1, l1 \
	VPERMQ    $0xc6, l2, l2 \
	VPBLENDD  $0x0c, l1, l0, r \
	VPBLENDD  $0x30, l2, r, r \
	VMOVDQU   r, 0(p) \
	VPBLENDD  $0x0c, l2, l1, r \
	VPBLENDD  $0x30, l0, r, r \
	VMOVDQU   r, 32(p) \
	VPBLENDD  $0x0c, l0, l2, r \
	VPBLENDD  $0x30, l1, r, r \
	VMOVDQU   r, 64(p)

// XORSTOREE4 adds limb registers l0, l1, l2 (clobbered) into the four E elements at p.
#define XORSTOREE4(p, l0, l1, l2, r) \
	VPERMQ    $0x6c, l0, l0 \
	VPERMQ    $0xb1, l1, l1 \
	VPERMQ    $0xc6, l2, l2 \
	VPBLENDD  $0x0c, l1, l0, r \
	VPBLENDD  $0x30, l2, r, r \
	VPXOR     0(p), r, r \
	VMOVDQU   r, 0(p) \
	VPBLENDD  $0x0c, l2, l1, r \
	VPBLENDD  $0x30, l0, r, r \
	VPXOR     32(p), r, r \
	VMOVDQU   r, 32(p) \
	VPBLENDD  $0x0c, l0, l2, r \
	VPBLENDD  $0x30, l1, r, r \
	VPXOR     64(p), r, r \
	VMOVDQU   r, 64(p)

// REDUCE4 reduces four 128-bit products, e = [p0 | p2] and o = [p1 | p3], to the K
// words [p0 p1 p2 p3] in t; e, o and u are clobbered.
#define REDUCE4(e, o, t, u) \
	VPUNPCKLQDQ o, e, t \
	VPUNPCKHQDQ o, e, e \
	VPSRLQ      $60, e, o \
	VPSRLQ      $61, e, u \
	VPXOR       u, o, o \
	VPSRLQ      $63, e, u \
	VPXOR       u, o, o \
	VPXOR       o, e, e \
	VPXOR       e, t, t \
	VPSLLQ      $1, e, o \
	VPXOR       o, t, t \
	VPSLLQ      $3, e, o \
	VPXOR       o, t, t \
	VPSLLQ      $4, e, o \
	VPXOR       o, t, t

// CLMUL4 sets (e, o) to the four products x_i·y_i of two K registers; y may be memory.
#define CLMUL4(y, x, e, o) \
	VPCLMULQDQ $0x00, y, x, e \
	VPCLMULQDQ $0x11, y, x, o

// CLMUL4X adds the four products x_i·y_i into (e, o); te, to are scratch.
#define CLMUL4X(y, x, e, o, te, to) \
	VPCLMULQDQ $0x00, y, x, te \
	VPCLMULQDQ $0x11, y, x, to \
	VPXOR      te, e, e \
	VPXOR      to, o, o

// MULES4 multiplies limb registers Y0, Y1, Y2 by the E scalar whose table is at BX
// (s0, s1, s2, s0+s1, s1+s2, s0+s2, each broadcast to 4 words), leaving the unreduced
// limbs in (Y3, Y4), (Y5, Y6), (Y7, Y8). Clobbers Y9–Y11. Karatsuba:
// c0 = p0+m1+p4+q12, c1 = p0+q01+q12, c2 = p0+m1+q02.
#define MULES4 \
	CLMUL4(0(BX), Y0, Y5, Y6) \
	CLMUL4(32(BX), Y1, Y7, Y8) \
	VPXOR  Y5, Y7, Y7 \
	VPXOR  Y6, Y8, Y8 \
	CLMUL4(64(BX), Y2, Y3, Y4) \
	VPXOR  Y7, Y3, Y3 \
	VPXOR  Y8, Y4, Y4 \
	VPXOR  Y1, Y2, Y11 \
	CLMUL4(128(BX), Y11, Y9, Y10) \
	VPXOR  Y9, Y3, Y3 \
	VPXOR  Y10, Y4, Y4 \
	VPXOR  Y9, Y5, Y5 \
	VPXOR  Y10, Y6, Y6 \
	VPXOR  Y0, Y1, Y11 \
	CLMUL4X(96(BX), Y11, Y5, Y6, Y9, Y10) \
	VPXOR  Y0, Y2, Y11 \
	CLMUL4X(160(BX), Y11, Y7, Y8, Y9, Y10)

// MULEV4 multiplies limb registers Y0, Y1, Y2 by limb registers Y13, Y14, Y15 into
// the unreduced (Y3, Y4), (Y5, Y6), (Y7, Y8). Clobbers Y9–Y12.
#define MULEV4 \
	CLMUL4(Y13, Y0, Y5, Y6) \
	CLMUL4(Y14, Y1, Y7, Y8) \
	VPXOR  Y5, Y7, Y7 \
	VPXOR  Y6, Y8, Y8 \
	CLMUL4(Y15, Y2, Y3, Y4) \
	VPXOR  Y7, Y3, Y3 \
	VPXOR  Y8, Y4, Y4 \
	VPXOR  Y1, Y2, Y11 \
	VPXOR  Y14, Y15, Y12 \
	CLMUL4(Y12, Y11, Y9, Y10) \
	VPXOR  Y9, Y3, Y3 \
	VPXOR  Y10, Y4, Y4 \
	VPXOR  Y9, Y5, Y5 \
	VPXOR  Y10, Y6, Y6 \
	VPXOR  Y0, Y1, Y11 \
	VPXOR  Y13, Y14, Y12 \
	CLMUL4X(Y12, Y11, Y5, Y6, Y9, Y10) \
	VPXOR  Y0, Y2, Y11 \
	VPXOR  Y13, Y15, Y12 \
	CLMUL4X(Y12, Y11, Y7, Y8, Y9, Y10)

// REDUCE3 reduces the limbs of MULES4/MULEV4 into Y9, Y11, Y0 (c0, c1, c2); clobbers
// Y3–Y8 and Y10.
#define REDUCE3 \
	REDUCE4(Y3, Y4, Y9, Y10) \
	REDUCE4(Y5, Y6, Y11, Y10) \
	REDUCE4(Y7, Y8, Y0, Y10)

// func mulKKAVX2(dst, a, b *uint64, n int)
TEXT ·mulKKAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

kkloop:
	VMOVDQU (SI), Y0
	CLMUL4((DX), Y0, Y1, Y2)
	REDUCE4(Y1, Y2, Y3, Y4)
	VMOVDQU Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ  kkloop
	VZEROUPPER
	RET

// func scaleEKAVX2(dst, a *uint64, s uint64, n int)
TEXT ·scaleEKAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	VPBROADCASTQ s+16(FP), Y15
	MOVQ n+24(FP), CX
	SHRQ $2, CX

ekloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	CLMUL4(Y15, Y0, Y3, Y4)
	CLMUL4(Y15, Y1, Y5, Y6)
	CLMUL4(Y15, Y2, Y7, Y8)
	REDUCE4(Y3, Y4, Y9, Y10)
	REDUCE4(Y5, Y6, Y11, Y10)
	REDUCE4(Y7, Y8, Y12, Y10)
	VMOVDQU Y9, 0(DI)
	VMOVDQU Y11, 32(DI)
	VMOVDQU Y12, 64(DI)
	ADDQ $96, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  ekloop
	VZEROUPPER
	RET

// func mulEKAVX2(dst, a, b *uint64, n int)
TEXT ·mulEKAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

mekloop:
	LOADE4(SI, Y0, Y1, Y2)
	VMOVDQU (DX), Y15
	CLMUL4(Y15, Y0, Y3, Y4)
	CLMUL4(Y15, Y1, Y5, Y6)
	CLMUL4(Y15, Y2, Y7, Y8)
	REDUCE3
	STOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $96, SI
	ADDQ $32, DX
	ADDQ $96, DI
	DECQ CX
	JNZ  mekloop
	VZEROUPPER
	RET

// func mulEEAVX2(dst, a, b *uint64, n int)
TEXT ·mulEEAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

meeloop:
	LOADE4(SI, Y0, Y1, Y2)
	LOADE4(DX, Y13, Y14, Y15)
	MULEV4
	REDUCE3
	STOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $96, SI
	ADDQ $96, DX
	ADDQ $96, DI
	DECQ CX
	JNZ  meeloop
	VZEROUPPER
	RET

// func scaleEAVX2(dst, a *uint64, tab *[24]uint64, n int)
TEXT ·scaleEAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ tab+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

sceloop:
	LOADE4(SI, Y0, Y1, Y2)
	MULES4
	REDUCE3
	STOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $96, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  sceloop
	VZEROUPPER
	RET

// func axpyEAVX2(dst, src *uint64, tab *[24]uint64, n int)
TEXT ·axpyEAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ tab+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

axeloop:
	LOADE4(SI, Y0, Y1, Y2)
	MULES4
	REDUCE3
	XORSTOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $96, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  axeloop
	VZEROUPPER
	RET

// func axpyKEAVX2(dst, src *uint64, tab *[24]uint64, n int)
TEXT ·axpyKEAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ tab+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

axkloop:
	VMOVDQU (SI), Y15
	CLMUL4(0(BX), Y15, Y3, Y4)
	CLMUL4(32(BX), Y15, Y5, Y6)
	CLMUL4(64(BX), Y15, Y7, Y8)
	REDUCE3
	XORSTOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $32, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  axkloop
	VZEROUPPER
	RET

// func dotKEAVX2(a, b *uint64, n int, acc *[24]uint64)
// Writes the unreduced sums (c0 even, c0 odd, c1 even, c1 odd, c2 even, c2 odd) to acc.
TEXT ·dotKEAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ acc+24(FP), DI
	SHRQ $2, CX
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8

dkeloop:
	LOADE4(DX, Y0, Y1, Y2)
	VMOVDQU (SI), Y15
	CLMUL4X(Y15, Y0, Y3, Y4, Y9, Y10)
	CLMUL4X(Y15, Y1, Y5, Y6, Y11, Y12)
	CLMUL4X(Y15, Y2, Y7, Y8, Y13, Y14)
	ADDQ $32, SI
	ADDQ $96, DX
	DECQ CX
	JNZ  dkeloop
	VMOVDQU Y3, 0(DI)
	VMOVDQU Y4, 32(DI)
	VMOVDQU Y5, 64(DI)
	VMOVDQU Y6, 96(DI)
	VMOVDQU Y7, 128(DI)
	VMOVDQU Y8, 160(DI)
	VZEROUPPER
	RET

// func dotEEAVX2(a, b *uint64, n int, acc *[24]uint64)
// Writes the unreduced sums like dotKEAVX2. Accumulators Y3–Y8; Karatsuba products
// go to (Y9, Y10) and are added where they belong.
TEXT ·dotEEAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ acc+24(FP), DI
	SHRQ $2, CX
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8

deeloop:
	LOADE4(SI, Y0, Y1, Y2)
	LOADE4(DX, Y13, Y14, Y15)
	// p0 → c0, c1, c2
	CLMUL4(Y13, Y0, Y9, Y10)
	VPXOR Y9, Y3, Y3
	VPXOR Y10, Y4, Y4
	VPXOR Y9, Y5, Y5
	VPXOR Y10, Y6, Y6
	VPXOR Y9, Y7, Y7
	VPXOR Y10, Y8, Y8
	// m1 → c0, c2
	CLMUL4(Y14, Y1, Y9, Y10)
	VPXOR Y9, Y3, Y3
	VPXOR Y10, Y4, Y4
	VPXOR Y9, Y7, Y7
	VPXOR Y10, Y8, Y8
	// p4 → c0
	CLMUL4X(Y15, Y2, Y3, Y4, Y9, Y10)
	// q12 → c0, c1
	VPXOR Y1, Y2, Y11
	VPXOR Y14, Y15, Y12
	CLMUL4(Y12, Y11, Y9, Y10)
	VPXOR Y9, Y3, Y3
	VPXOR Y10, Y4, Y4
	VPXOR Y9, Y5, Y5
	VPXOR Y10, Y6, Y6
	// q01 → c1
	VPXOR Y0, Y1, Y11
	VPXOR Y13, Y14, Y12
	CLMUL4X(Y12, Y11, Y5, Y6, Y9, Y10)
	// q02 → c2
	VPXOR Y0, Y2, Y11
	VPXOR Y13, Y15, Y12
	CLMUL4X(Y12, Y11, Y7, Y8, Y9, Y10)
	ADDQ $96, SI
	ADDQ $96, DX
	DECQ CX
	JNZ  deeloop
	VMOVDQU Y3, 0(DI)
	VMOVDQU Y4, 32(DI)
	VMOVDQU Y5, 64(DI)
	VMOVDQU Y6, 96(DI)
	VMOVDQU Y7, 128(DI)
	VMOVDQU Y8, 160(DI)
	VZEROUPPER
	RET

// func foldEAVX2(dst, a, b *uint64, tab *[24]uint64, n int)
// dst_i = a_i + r·(a_i + b_i); a is kept in Y12–Y14 (Y15 scratch).
TEXT ·foldEAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ tab+24(FP), BX
	MOVQ n+32(FP), CX
	SHRQ $2, CX

feloop:
	LOADE4(SI, Y12, Y13, Y14)
	LOADE4(DX, Y0, Y1, Y2)
	VPXOR Y12, Y0, Y0
	VPXOR Y13, Y1, Y1
	VPXOR Y14, Y2, Y2
	MULES4
	REDUCE3
	VPXOR Y12, Y9, Y9
	VPXOR Y13, Y11, Y11
	VPXOR Y14, Y0, Y0
	STOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $96, SI
	ADDQ $96, DX
	ADDQ $96, DI
	DECQ CX
	JNZ  feloop
	VZEROUPPER
	RET

// func foldPairsEAVX2(dst, src *uint64, tab *[24]uint64, n int)
// dst_i = src_{2i} + r·(src_{2i} + src_{2i+1}); 8 source elements per step. dst may
// be the front of src.
TEXT ·foldPairsEAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ tab+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

fpeloop:
	// Elements 0..3 → Y12–Y14, 4..7 → Y0–Y2; evens [e0 e4 e2 e6] → Y12–Y14,
	// odds [e1 e5 e3 e7] → Y0–Y2, then Y0–Y2 += evens.
	LOADE4(SI, Y12, Y13, Y14)
	ADDQ $96, SI
	LOADE4(SI, Y0, Y1, Y2)
	VPUNPCKLQDQ Y0, Y12, Y15
	VPUNPCKHQDQ Y0, Y12, Y0
	VMOVDQA Y15, Y12
	VPUNPCKLQDQ Y1, Y13, Y15
	VPUNPCKHQDQ Y1, Y13, Y1
	VMOVDQA Y15, Y13
	VPUNPCKLQDQ Y2, Y14, Y15
	VPUNPCKHQDQ Y2, Y14, Y2
	VMOVDQA Y15, Y14
	VPXOR Y12, Y0, Y0
	VPXOR Y13, Y1, Y1
	VPXOR Y14, Y2, Y2
	MULES4
	REDUCE3
	VPXOR Y12, Y9, Y9
	VPXOR Y13, Y11, Y11
	VPXOR Y14, Y0, Y0
	// Outputs are in the order [o0 o2 o1 o3].
	VPERMQ $0xd8, Y9, Y9
	VPERMQ $0xd8, Y11, Y11
	VPERMQ $0xd8, Y0, Y0
	STOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $96, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  fpeloop
	VZEROUPPER
	RET

// func foldKAVX2(dst, a, b *uint64, tab *[24]uint64, n int)
// dst_i = a[i] + r·(a[i] + b[i]) for K vectors a, b.
TEXT ·foldKAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ tab+24(FP), BX
	MOVQ n+32(FP), CX
	SHRQ $2, CX

fkloop:
	VMOVDQU (SI), Y14
	VPXOR   (DX), Y14, Y15
	CLMUL4(0(BX), Y15, Y3, Y4)
	CLMUL4(32(BX), Y15, Y5, Y6)
	CLMUL4(64(BX), Y15, Y7, Y8)
	REDUCE3
	VPXOR Y14, Y9, Y9
	STOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $96, DI
	DECQ CX
	JNZ  fkloop
	VZEROUPPER
	RET

// func foldPairsKAVX2(dst, src *uint64, tab *[24]uint64, n int)
// dst_i = src[2i] + r·(src[2i] + src[2i+1]) for a K vector src of 2n words.
TEXT ·foldPairsKAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ tab+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $2, CX

fpkloop:
	VMOVDQU 0(SI), Y12
	VMOVDQU 32(SI), Y13
	VPUNPCKLQDQ Y13, Y12, Y14
	VPUNPCKHQDQ Y13, Y12, Y15
	VPERMQ $0xd8, Y14, Y14
	VPERMQ $0xd8, Y15, Y15
	VPXOR  Y14, Y15, Y15
	CLMUL4(0(BX), Y15, Y3, Y4)
	CLMUL4(32(BX), Y15, Y5, Y6)
	CLMUL4(64(BX), Y15, Y7, Y8)
	REDUCE3
	VPXOR Y14, Y9, Y9
	STOREE4(DI, Y9, Y11, Y0, Y1)
	ADDQ $64, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  fpkloop
	VZEROUPPER
	RET

// func dotPairsEEAVX2(f, b *uint64, n int, acc *[48]uint64)
// For E vectors f, b of n elements (n/2 pairs, n a positive multiple of 4) it adds
// unreduced sums to acc: acc[0:24] receives the Karatsuba-combined limbs
// (c0 even, c0 odd, c1 even, c1 odd, c2 even, c2 odd) of Σ f_i·b_i, whose even lanes
// are the pairs' low elements and odd lanes their high elements; acc[24:48] receives the
// six raw Karatsuba products (p0, m1, p4, q01, q12, q02) of Σ (f_lo+f_hi)(b_lo+b_hi),
// one 128-bit sum per pair lane. acc must be zeroed by the caller on first use.
TEXT ·dotPairsEEAVX2(SB), NOSPLIT, $0-32
	MOVQ f+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ acc+24(FP), DI
	SHRQ $2, CX
	VMOVDQU 0(DI), Y3
	VMOVDQU 32(DI), Y4
	VMOVDQU 64(DI), Y5
	VMOVDQU 96(DI), Y6
	VMOVDQU 128(DI), Y7
	VMOVDQU 160(DI), Y8

dpeloop:
	LOADE4(SI, Y0, Y1, Y2)
	LOADE4(DX, Y13, Y14, Y15)
	// Σ f·b, as dotEEAVX2.
	CLMUL4(Y13, Y0, Y9, Y10)
	VPXOR Y9, Y3, Y3
	VPXOR Y10, Y4, Y4
	VPXOR Y9, Y5, Y5
	VPXOR Y10, Y6, Y6
	VPXOR Y9, Y7, Y7
	VPXOR Y10, Y8, Y8
	CLMUL4(Y14, Y1, Y9, Y10)
	VPXOR Y9, Y3, Y3
	VPXOR Y10, Y4, Y4
	VPXOR Y9, Y7, Y7
	VPXOR Y10, Y8, Y8
	CLMUL4X(Y15, Y2, Y3, Y4, Y9, Y10)
	VPXOR Y1, Y2, Y11
	VPXOR Y14, Y15, Y12
	CLMUL4(Y12, Y11, Y9, Y10)
	VPXOR Y9, Y3, Y3
	VPXOR Y10, Y4, Y4
	VPXOR Y9, Y5, Y5
	VPXOR Y10, Y6, Y6
	VPXOR Y0, Y1, Y11
	VPXOR Y13, Y14, Y12
	CLMUL4X(Y12, Y11, Y5, Y6, Y9, Y10)
	VPXOR Y0, Y2, Y11
	VPXOR Y13, Y15, Y12
	CLMUL4X(Y12, Y11, Y7, Y8, Y9, Y10)

	// Pair sums in the even lanes: x ^= (x with the qwords of each lane swapped).
	VPSHUFD $0x4e, Y0, Y9
	VPXOR   Y9, Y0, Y0
	VPSHUFD $0x4e, Y1, Y9
	VPXOR   Y9, Y1, Y1
	VPSHUFD $0x4e, Y2, Y9
	VPXOR   Y9, Y2, Y2
	VPSHUFD $0x4e, Y13, Y9
	VPXOR   Y9, Y13, Y13
	VPSHUFD $0x4e, Y14, Y9
	VPXOR   Y9, Y14, Y14
	VPSHUFD $0x4e, Y15, Y9
	VPXOR   Y9, Y15, Y15
	// The six Karatsuba products of the sums, accumulated raw in memory.
	VPCLMULQDQ $0x00, Y13, Y0, Y9
	VPXOR      192(DI), Y9, Y9
	VMOVDQU    Y9, 192(DI)
	VPCLMULQDQ $0x00, Y14, Y1, Y9
	VPXOR      224(DI), Y9, Y9
	VMOVDQU    Y9, 224(DI)
	VPCLMULQDQ $0x00, Y15, Y2, Y9
	VPXOR      256(DI), Y9, Y9
	VMOVDQU    Y9, 256(DI)
	VPXOR      Y0, Y1, Y11
	VPXOR      Y13, Y14, Y12
	VPCLMULQDQ $0x00, Y12, Y11, Y9
	VPXOR      288(DI), Y9, Y9
	VMOVDQU    Y9, 288(DI)
	VPXOR      Y1, Y2, Y11
	VPXOR      Y14, Y15, Y12
	VPCLMULQDQ $0x00, Y12, Y11, Y9
	VPXOR      320(DI), Y9, Y9
	VMOVDQU    Y9, 320(DI)
	VPXOR      Y0, Y2, Y11
	VPXOR      Y13, Y15, Y12
	VPCLMULQDQ $0x00, Y12, Y11, Y9
	VPXOR      352(DI), Y9, Y9
	VMOVDQU    Y9, 352(DI)

	ADDQ $96, SI
	ADDQ $96, DX
	DECQ CX
	JNZ  dpeloop
	VMOVDQU Y3, 0(DI)
	VMOVDQU Y4, 32(DI)
	VMOVDQU Y5, 64(DI)
	VMOVDQU Y6, 96(DI)
	VMOVDQU Y7, 128(DI)
	VMOVDQU Y8, 160(DI)
	VZEROUPPER
	RET

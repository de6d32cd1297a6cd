//go:build !purego

#include "textflag.h"

// Vector kernels for the AVX512VPCLMUL level: VPCLMULQDQ on zmm (four 64×64-bit
// products per instruction) with AVX-512 F masked blends, VALIGNQ, VPERMQ/VPERMI2Q and
// VPTERNLOGQ. Every entry point takes n, a positive multiple of 8 elements, and
// unaligned pointers; E vectors are 3n words.
//
// Eight E elements (24 words) are read as three zmm r0, r1, r2. Word 3e+j of the
// block sits in register s = (3e+j) / 8 at lane (3e+j) mod 8; limb register L_j gathers
// limb j of all eight elements with two masked blends (lanes l ≡ 0, 1, 2 mod 3 are the
// masks K3 = 0x49, K1 = 0x92, K2 = 0x24), then L_1 and L_2 are rotated by one and two
// lanes so that lane l of every L_j holds element 3l mod 8: the element order
// [0 3 6 1 4 7 2 5]. A K vector is brought to that order with one VPERMQ (idxK).

DATA idxK<>+0(SB)/8, $0
DATA idxK<>+8(SB)/8, $3
DATA idxK<>+16(SB)/8, $6
DATA idxK<>+24(SB)/8, $1
DATA idxK<>+32(SB)/8, $4
DATA idxK<>+40(SB)/8, $7
DATA idxK<>+48(SB)/8, $2
DATA idxK<>+56(SB)/8, $5
GLOBL idxK<>(SB), RODATA|NOPTR, $64

// foldPairsE512: with A (elements 0..7, lanes as above) as table 0 and B (8..15) as
// table 1, lane l of the evens gets element 2·(3l mod 8), of the odds the element after.
DATA idxEven<>+0(SB)/8, $0
DATA idxEven<>+8(SB)/8, $2
DATA idxEven<>+16(SB)/8, $12
DATA idxEven<>+24(SB)/8, $6
DATA idxEven<>+32(SB)/8, $8
DATA idxEven<>+40(SB)/8, $10
DATA idxEven<>+48(SB)/8, $4
DATA idxEven<>+56(SB)/8, $14
GLOBL idxEven<>(SB), RODATA|NOPTR, $64

DATA idxOdd<>+0(SB)/8, $3
DATA idxOdd<>+8(SB)/8, $5
DATA idxOdd<>+16(SB)/8, $15
DATA idxOdd<>+24(SB)/8, $1
DATA idxOdd<>+32(SB)/8, $11
DATA idxOdd<>+40(SB)/8, $13
DATA idxOdd<>+48(SB)/8, $7
DATA idxOdd<>+56(SB)/8, $9
GLOBL idxOdd<>(SB), RODATA|NOPTR, $64

// MASKS sets K1 (lanes ≡ 1 mod 3), K2 (≡ 2) and K3 (≡ 0); clobbers AX.
#define MASKS \
	MOVQ  $0x92, AX \
	KMOVW AX, K1 \
	MOVQ  $0x24, AX \
	KMOVW AX, K2 \
	MOVQ  $0x49, AX \
	KMOVW AX, K3

// LOADE8 loads eight E elements at p into limb registers l0, l1, l2; clobbers Z31.
// Each 64-byte line is loaded once, with a plain load, and the blends run on
// registers: a blend with a memory operand is a masked load, which on AMD Zen runs
// several times slower on lines not yet in cache (a 2^20-entry inner product took
// 7.8 ns an entry from memory, 2.0 ns with its lines first read by plain loads).
#define LOADE8(p, l0, l1, l2) \
	VMOVDQU64 0(p), Z31 \
	VMOVDQU64 64(p), l2 \
	VPBLENDMQ l2, Z31, K1, l0 \
	VPBLENDMQ l2, Z31, K2, l1 \
	VPBLENDMQ l2, Z31, K3, Z31 \
	VMOVDQU64 128(p), l2 \
	VPBLENDMQ l2, l0, K2, l0 \
	VPBLENDMQ l2, l1, K3, l1 \
	VALIGNQ   $1, l1, l1, l1 \
	VPBLENDMQ l2, Z31, K1, l2 \
	VALIGNQ   $2, l2, l2, l2

// STOREE8 stores limb registers c0, c1, c2 (c1, c2 clobbered) as eight E elements at p;
// clobbers Z30.
#define STOREE8(p, c0, c1, c2) \
	VALIGNQ   $7, c1, c1, c1 \
	VALIGNQ   $6, c2, c2, c2 \
	VPBLENDMQ c1, c0, K1, Z30 \
	VPBLENDMQ c2, Z30, K2, Z30 \
	VMOVDQU64 Z30, 0(p) \
	VPBLENDMQ c1, c0, K2, Z30 \
	VPBLENDMQ c2, Z30, K3, Z30 \
	VMOVDQU64 Z30, 64(p) \
	VPBLENDMQ c1, c0, K3, Z30 \
	VPBLENDMQ c2, Z30, K1, Z30 \
	VMOVDQU64 Z30, 128(p)

// XORSTOREE8 adds limb registers c0, c1, c2 (c1, c2 clobbered) into the eight E
// elements at p; clobbers Z30.
#define XORSTOREE8(p, c0, c1, c2) \
	VALIGNQ   $7, c1, c1, c1 \
	VALIGNQ   $6, c2, c2, c2 \
	VPBLENDMQ c1, c0, K1, Z30 \
	VPBLENDMQ c2, Z30, K2, Z30 \
	VPXORQ    0(p), Z30, Z30 \
	VMOVDQU64 Z30, 0(p) \
	VPBLENDMQ c1, c0, K2, Z30 \
	VPBLENDMQ c2, Z30, K3, Z30 \
	VPXORQ    64(p), Z30, Z30 \
	VMOVDQU64 Z30, 64(p) \
	VPBLENDMQ c1, c0, K3, Z30 \
	VPBLENDMQ c2, Z30, K1, Z30 \
	VPXORQ    128(p), Z30, Z30 \
	VMOVDQU64 Z30, 128(p)

// REDUCE8 reduces eight 128-bit products, e = [p0 | p2 | p4 | p6] and
// o = [p1 | p3 | p5 | p7], to the K words [p0 … p7] in out; e, o and t are clobbered.
// With h the high words: g = h + h>>63 + h>>61 + h>>60, out = lo + g·(x^4+x^3+x+1).
#define REDUCE8(e, o, out, t) \
	VPUNPCKLQDQ o, e, out \
	VPUNPCKHQDQ o, e, e \
	VPSRLQ      $63, e, o \
	VPSRLQ      $61, e, t \
	VPTERNLOGQ  $0x96, e, t, o \
	VPSRLQ      $60, e, t \
	VPXORQ      t, o, e \
	VPSLLQ      $1, e, o \
	VPTERNLOGQ  $0x96, e, o, out \
	VPSLLQ      $3, e, o \
	VPSLLQ      $4, e, t \
	VPTERNLOGQ  $0x96, o, t, out

// BSUMS sets Z12, Z13, Z14 to b0+b1, b1+b2, b0+b2 of the limb registers Z3, Z4, Z5.
#define BSUMS \
	VPXORQ Z4, Z3, Z12 \
	VPXORQ Z5, Z4, Z13 \
	VPXORQ Z5, Z3, Z14

// BCASTS broadcasts the E scalar at BX to Z3, Z4, Z5 and its sums to Z12–Z14.
#define BCASTS \
	VPBROADCASTQ 0(BX), Z3 \
	VPBROADCASTQ 8(BX), Z4 \
	VPBROADCASTQ 16(BX), Z5 \
	BSUMS

// MULE8 multiplies limb registers Z0, Z1, Z2 by Z3, Z4, Z5 (sums in Z12–Z14) and
// leaves the reduced limbs in Z6, Z7, Z8 (Karatsuba: c0 = p0+m1+p4+q12,
// c1 = p0+q01+q12, c2 = p0+m1+q02). Clobbers Z15–Z30.
#define MULE8 \
	VPXORQ     Z1, Z0, Z15 \
	VPXORQ     Z2, Z1, Z16 \
	VPXORQ     Z2, Z0, Z17 \
	VPCLMULQDQ $0x00, Z3, Z0, Z18 \
	VPCLMULQDQ $0x11, Z3, Z0, Z19 \
	VPCLMULQDQ $0x00, Z4, Z1, Z20 \
	VPCLMULQDQ $0x11, Z4, Z1, Z21 \
	VPCLMULQDQ $0x00, Z5, Z2, Z22 \
	VPCLMULQDQ $0x11, Z5, Z2, Z23 \
	VPCLMULQDQ $0x00, Z12, Z15, Z24 \
	VPCLMULQDQ $0x11, Z12, Z15, Z25 \
	VPCLMULQDQ $0x00, Z13, Z16, Z26 \
	VPCLMULQDQ $0x11, Z13, Z16, Z27 \
	VPCLMULQDQ $0x00, Z14, Z17, Z28 \
	VPCLMULQDQ $0x11, Z14, Z17, Z29 \
	VPTERNLOGQ $0x96, Z18, Z20, Z22 \
	VPXORQ     Z26, Z22, Z22 \
	VPTERNLOGQ $0x96, Z19, Z21, Z23 \
	VPXORQ     Z27, Z23, Z23 \
	VPTERNLOGQ $0x96, Z18, Z26, Z24 \
	VPTERNLOGQ $0x96, Z19, Z27, Z25 \
	VPTERNLOGQ $0x96, Z18, Z20, Z28 \
	VPTERNLOGQ $0x96, Z19, Z21, Z29 \
	REDUCE8(Z22, Z23, Z6, Z30) \
	REDUCE8(Z24, Z25, Z7, Z30) \
	REDUCE8(Z28, Z29, Z8, Z30)

// MULK8 multiplies the K register k (element order as the limb registers) by the
// broadcast E scalar in Z3, Z4, Z5, leaving the reduced limbs in Z6, Z7, Z8.
// Clobbers Z18–Z23 and Z30.
#define MULK8(k) \
	VPCLMULQDQ $0x00, Z3, k, Z18 \
	VPCLMULQDQ $0x11, Z3, k, Z19 \
	VPCLMULQDQ $0x00, Z4, k, Z20 \
	VPCLMULQDQ $0x11, Z4, k, Z21 \
	VPCLMULQDQ $0x00, Z5, k, Z22 \
	VPCLMULQDQ $0x11, Z5, k, Z23 \
	REDUCE8(Z18, Z19, Z6, Z30) \
	REDUCE8(Z20, Z21, Z7, Z30) \
	REDUCE8(Z22, Z23, Z8, Z30)

// func mulEE512(dst, a, b *uint64, n int)
TEXT ·mulEE512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	MASKS

mee8loop:
	LOADE8(SI, Z0, Z1, Z2)
	LOADE8(DX, Z3, Z4, Z5)
	BSUMS
	MULE8
	STOREE8(DI, Z6, Z7, Z8)
	ADDQ $192, SI
	ADDQ $192, DX
	ADDQ $192, DI
	DECQ CX
	JNZ  mee8loop
	VZEROUPPER
	RET

// func scaleE512(dst, a *uint64, s *[3]uint64, n int)
TEXT ·scaleE512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ s+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	MASKS
	BCASTS

sce8loop:
	LOADE8(SI, Z0, Z1, Z2)
	MULE8
	STOREE8(DI, Z6, Z7, Z8)
	ADDQ $192, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  sce8loop
	VZEROUPPER
	RET

// func axpyE512(dst, src *uint64, s *[3]uint64, n int)
TEXT ·axpyE512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ s+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	MASKS
	BCASTS

axe8loop:
	LOADE8(SI, Z0, Z1, Z2)
	MULE8
	XORSTOREE8(DI, Z6, Z7, Z8)
	ADDQ $192, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  axe8loop
	VZEROUPPER
	RET

// func foldE512(dst, a, b *uint64, s *[3]uint64, n int)
// dst_i = a_i + s·(a_i + b_i); a is kept in Z9–Z11. dst may equal a or b.
TEXT ·foldE512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ s+24(FP), BX
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	MASKS
	BCASTS

fe8loop:
	LOADE8(SI, Z9, Z10, Z11)
	LOADE8(DX, Z0, Z1, Z2)
	VPXORQ Z9, Z0, Z0
	VPXORQ Z10, Z1, Z1
	VPXORQ Z11, Z2, Z2
	MULE8
	VPXORQ Z9, Z6, Z6
	VPXORQ Z10, Z7, Z7
	VPXORQ Z11, Z8, Z8
	STOREE8(DI, Z6, Z7, Z8)
	ADDQ $192, SI
	ADDQ $192, DX
	ADDQ $192, DI
	DECQ CX
	JNZ  fe8loop
	VZEROUPPER
	RET

// func foldPairsE512(dst, src *uint64, s *[3]uint64, n int)
// dst_i = src_{2i} + s·(src_{2i} + src_{2i+1}); 16 source elements per step. dst may
// be the front of src (each step stores below what the next one reads).
TEXT ·foldPairsE512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ s+16(FP), BX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	MASKS
	BCASTS

fpe8loop:
	// Elements 0..7 → Z9–Z11, 8..15 → Z0–Z2; evens → Z9–Z11, odds + evens → Z0–Z2.
	LOADE8(SI, Z9, Z10, Z11)
	LEAQ   192(SI), R8
	LOADE8(R8, Z0, Z1, Z2)
	VMOVDQU64 idxEven<>(SB), Z15
	VPERMI2Q  Z0, Z9, Z15
	VMOVDQU64 idxEven<>(SB), Z16
	VPERMI2Q  Z1, Z10, Z16
	VMOVDQU64 idxEven<>(SB), Z17
	VPERMI2Q  Z2, Z11, Z17
	VMOVDQU64 idxOdd<>(SB), Z18
	VPERMI2Q  Z0, Z9, Z18
	VMOVDQU64 idxOdd<>(SB), Z19
	VPERMI2Q  Z1, Z10, Z19
	VMOVDQU64 idxOdd<>(SB), Z20
	VPERMI2Q  Z2, Z11, Z20
	VPXORQ    Z15, Z18, Z0
	VPXORQ    Z16, Z19, Z1
	VPXORQ    Z17, Z20, Z2
	VMOVDQA64 Z15, Z9
	VMOVDQA64 Z16, Z10
	VMOVDQA64 Z17, Z11
	MULE8
	VPXORQ Z9, Z6, Z6
	VPXORQ Z10, Z7, Z7
	VPXORQ Z11, Z8, Z8
	STOREE8(DI, Z6, Z7, Z8)
	ADDQ $384, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  fpe8loop
	VZEROUPPER
	RET

// func foldK512(dst, a, b *uint64, s *[3]uint64, n int)
// dst_i = a[i] + s·(a[i] + b[i]) for K vectors a, b of n words.
TEXT ·foldK512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ s+24(FP), BX
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	MASKS
	BCASTS
	VMOVDQU64 idxK<>(SB), Z29

fk8loop:
	VPERMQ (SI), Z29, Z9
	VPERMQ (DX), Z29, Z10
	VPXORQ Z9, Z10, Z10
	MULK8(Z10)
	VPXORQ Z9, Z6, Z6
	STOREE8(DI, Z6, Z7, Z8)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $192, DI
	DECQ CX
	JNZ  fk8loop
	VZEROUPPER
	RET

// ACC adds the products x·y (lanes 0x00 and 0x11) into the accumulators e, o; t is
// scratch.
#define ACC(y, x, e, o, t) \
	VPCLMULQDQ $0x00, y, x, t \
	VPXORQ     t, e, e \
	VPCLMULQDQ $0x11, y, x, t \
	VPXORQ     t, o, o

// func dotEE512(a, b *uint64, n int, acc *[96]uint64)
// Writes the raw Karatsuba products p0, m1, p4, q01, q12, q02 of Σ a_i·b_i, each as
// sixteen words (the even-lane register, then the odd-lane one: eight (lo, hi) pairs),
// to acc; finishDotEE512 combines and reduces them.
TEXT ·dotEE512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ acc+24(FP), DI
	SHRQ $3, CX
	MASKS
	VPXORQ Z18, Z18, Z18
	VMOVDQA64 Z18, Z19
	VMOVDQA64 Z18, Z20
	VMOVDQA64 Z18, Z21
	VMOVDQA64 Z18, Z22
	VMOVDQA64 Z18, Z23
	VMOVDQA64 Z18, Z24
	VMOVDQA64 Z18, Z25
	VMOVDQA64 Z18, Z26
	VMOVDQA64 Z18, Z27
	VMOVDQA64 Z18, Z28
	VMOVDQA64 Z18, Z29

dee8loop:
	LOADE8(SI, Z0, Z1, Z2)
	LOADE8(DX, Z3, Z4, Z5)
	ACC(Z3, Z0, Z18, Z19, Z30)
	ACC(Z4, Z1, Z20, Z21, Z30)
	ACC(Z5, Z2, Z22, Z23, Z30)
	VPXORQ Z1, Z0, Z6
	VPXORQ Z4, Z3, Z7
	ACC(Z7, Z6, Z24, Z25, Z30)
	VPXORQ Z2, Z1, Z8
	VPXORQ Z5, Z4, Z9
	ACC(Z9, Z8, Z26, Z27, Z30)
	VPXORQ Z2, Z0, Z10
	VPXORQ Z5, Z3, Z11
	ACC(Z11, Z10, Z28, Z29, Z30)
	ADDQ $192, SI
	ADDQ $192, DX
	DECQ CX
	JNZ  dee8loop
	VMOVDQU64 Z18, 0(DI)
	VMOVDQU64 Z19, 64(DI)
	VMOVDQU64 Z20, 128(DI)
	VMOVDQU64 Z21, 192(DI)
	VMOVDQU64 Z22, 256(DI)
	VMOVDQU64 Z23, 320(DI)
	VMOVDQU64 Z24, 384(DI)
	VMOVDQU64 Z25, 448(DI)
	VMOVDQU64 Z26, 512(DI)
	VMOVDQU64 Z27, 576(DI)
	VMOVDQU64 Z28, 640(DI)
	VMOVDQU64 Z29, 704(DI)
	VZEROUPPER
	RET

// func dotKE512(a, b *uint64, n int, acc *[48]uint64)
// Writes the unreduced limbs c0, c1, c2 of Σ a[i]·b_i, each as sixteen words like
// dotEE512, to acc.
TEXT ·dotKE512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ acc+24(FP), DI
	SHRQ $3, CX
	MASKS
	VMOVDQU64 idxK<>(SB), Z29
	VPXORQ Z18, Z18, Z18
	VMOVDQA64 Z18, Z19
	VMOVDQA64 Z18, Z20
	VMOVDQA64 Z18, Z21
	VMOVDQA64 Z18, Z22
	VMOVDQA64 Z18, Z23

dke8loop:
	LOADE8(DX, Z0, Z1, Z2)
	VPERMQ (SI), Z29, Z3
	ACC(Z3, Z0, Z18, Z19, Z30)
	ACC(Z3, Z1, Z20, Z21, Z30)
	ACC(Z3, Z2, Z22, Z23, Z30)
	ADDQ $64, SI
	ADDQ $192, DX
	DECQ CX
	JNZ  dke8loop
	VMOVDQU64 Z18, 0(DI)
	VMOVDQU64 Z19, 64(DI)
	VMOVDQU64 Z20, 128(DI)
	VMOVDQU64 Z21, 192(DI)
	VMOVDQU64 Z22, 256(DI)
	VMOVDQU64 Z23, 320(DI)
	VZEROUPPER
	RET

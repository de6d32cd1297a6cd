//go:build !purego

#include "textflag.h"

// flushAccE512: the tensor row flush into unreduced accumulators (flush.go). Eight
// E elements (24 words) are read as three zmm limb vectors (two masked blends each;
// limbs 1 and 2 rotated by one and two lanes) whose lane l holds element 3l mod 8;
// each limb vector is multiplied by the broadcast scalar's limbs with VPCLMULQDQ
// (even lanes with imm 0x00, odd lanes with 0x11), the six Karatsuba products
// summed into the three 128-bit limbs, and those XORed into the accumulators
// unreduced.

// FMASKS sets K1 (lanes ≡ 1 mod 3), K2 (≡ 2) and K3 (≡ 0); clobbers AX.
#define FMASKS \
	MOVQ  $0x92, AX \
	KMOVW AX, K1 \
	MOVQ  $0x24, AX \
	KMOVW AX, K2 \
	MOVQ  $0x49, AX \
	KMOVW AX, K3

// FLOADE8 loads eight E elements at p into limb vectors Z0, Z1, Z2 and their sums
// Z0+Z1, Z1+Z2, Z0+Z2 into Z15, Z16, Z17; clobbers Z31. Each line is loaded once
// with a plain load and blended on registers (simd's LOADE8 says why: a blend with
// a memory operand is a masked load, slow on lines not in cache on AMD Zen).
#define FLOADE8(p) \
	VMOVDQU64 0(p), Z31 \
	VMOVDQU64 64(p), Z2 \
	VPBLENDMQ Z2, Z31, K1, Z0 \
	VPBLENDMQ Z2, Z31, K2, Z1 \
	VPBLENDMQ Z2, Z31, K3, Z31 \
	VMOVDQU64 128(p), Z2 \
	VPBLENDMQ Z2, Z0, K2, Z0 \
	VPBLENDMQ Z2, Z1, K3, Z1 \
	VALIGNQ   $1, Z1, Z1, Z1 \
	VPBLENDMQ Z2, Z31, K1, Z2 \
	VALIGNQ   $2, Z2, Z2, Z2 \
	VPXORQ    Z1, Z0, Z15 \
	VPXORQ    Z2, Z1, Z16 \
	VPXORQ    Z2, Z0, Z17

// CLMUL2 sets lo and hi to the carry-less products of a and b's even qwords
// (imm 0x00) and odd qwords (imm 0x11), lane by lane.
#define CLMUL2(a, b, lo, hi) \
	VPCLMULQDQ $0x00, a, b, lo \
	VPCLMULQDQ $0x11, a, b, hi

// ACC4 adds (XORs) a, b, c and d into the 64 bytes at m; writes c.
#define ACC4(a, b, c, d, m) \
	VPTERNLOGQ $0x96, a, b, c \
	VPTERNLOGQ $0x96, m, d, c \
	VMOVDQU64  c, m

// ACC3 adds (XORs) a, b and c into the 64 bytes at m; writes c.
#define ACC3(a, b, c, m) \
	VPTERNLOGQ $0x96, a, b, c \
	VPXORQ     m, c, c \
	VMOVDQU64  c, m

// FMULACC multiplies Z0–Z2 (sums Z15–Z17) by the scalar in Z3–Z5 (sums Z12–Z14)
// and XORs the unreduced limbs c0, c1, c2 (even lanes, then odd) into the 384
// bytes at p. Clobbers Z18–Z29.
#define FMULACC(p) \
	CLMUL2(Z3, Z0, Z18, Z19) \
	CLMUL2(Z4, Z1, Z20, Z21) \
	CLMUL2(Z5, Z2, Z22, Z23) \
	CLMUL2(Z12, Z15, Z24, Z25) \
	CLMUL2(Z13, Z16, Z26, Z27) \
	CLMUL2(Z14, Z17, Z28, Z29) \
	ACC4(Z18, Z20, Z22, Z26, 0(p)) \
	ACC4(Z19, Z21, Z23, Z27, 64(p)) \
	ACC3(Z18, Z26, Z24, 128(p)) \
	ACC3(Z19, Z27, Z25, 192(p)) \
	ACC3(Z18, Z20, Z28, 256(p)) \
	ACC3(Z19, Z21, Z29, 320(p))

// func flushAccE512(acc *uint64, a, b *field.E, h *field.E, n int)
TEXT ·flushAccE512(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ h+24(FP), BX
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	FMASKS
	VPBROADCASTQ 0(BX), Z3
	VPBROADCASTQ 8(BX), Z4
	VPBROADCASTQ 16(BX), Z5
	VPXORQ       Z4, Z3, Z12
	VPXORQ       Z5, Z4, Z13
	VPXORQ       Z5, Z3, Z14

floop:
	FLOADE8(SI)
	FMULACC(DI)
	LEAQ 384(DI), R8
	FLOADE8(DX)
	FMULACC(R8)
	ADDQ $192, SI
	ADDQ $192, DX
	ADDQ $768, DI
	DECQ CX
	JNZ  floop
	VZEROUPPER
	RET

// flushAccAVX2 is flushAccE512 for the avx2 level, one E element at a time in xmm
// registers (PCLMULQDQ): each element's six Karatsuba products are formed from its
// limbs loaded as [v0, v1], [v1, v2] and [v2, 0] (so that the pairwise sums come
// from two XORs) against the scalar's limbs packed likewise, and its three
// unreduced limbs are XORed into its slot's words (flush.go's layout: slot e of a
// group at word 16i + uaccWord's lane offset for limb i, B's 48 words after A's).

// FELEM adds the unreduced product of the E element at words p0, p8, p16 (byte
// offsets) from preg and the scalar (X8 = [h0, h1], X9 = [h2, -], X10 = [h0+h1,
// h1+h2], X11 = [h0+h2, -]) into the 16-byte limbs at byte offsets m0, m1, m2 from
// DI. Clobbers X0–X7.
#define FELEM(p0, p8, p16, preg, m0, m1, m2) \
	VMOVDQU    p0(preg), X0 \
	VMOVDQU    p8(preg), X1 \
	VMOVQ      p16(preg), X2 \
	VPXOR      X1, X0, X1 \
	VPXOR      X2, X0, X3 \
	VPCLMULQDQ $0x00, X8, X0, X4 \
	VPCLMULQDQ $0x11, X8, X0, X5 \
	VPCLMULQDQ $0x00, X9, X2, X6 \
	VPCLMULQDQ $0x00, X10, X1, X7 \
	VPCLMULQDQ $0x11, X10, X1, X1 \
	VPCLMULQDQ $0x00, X11, X3, X3 \
	VPXOR      X5, X4, X5 \
	VPXOR      X1, X6, X6 \
	VPXOR      X6, X5, X6 \
	VPXOR      X3, X5, X5 \
	VPXOR      X1, X7, X7 \
	VPXOR      X4, X7, X7 \
	VPXOR      m0(DI), X6, X6 \
	VMOVDQU    X6, m0(DI) \
	VPXOR      m1(DI), X7, X7 \
	VMOVDQU    X7, m1(DI) \
	VPXOR      m2(DI), X5, X5 \
	VMOVDQU    X5, m2(DI)

// func flushAccAVX2(acc *uint64, a, b *field.E, h *field.E, n int)
TEXT ·flushAccAVX2(SB), NOSPLIT, $0-40
	MOVQ    acc+0(FP), DI
	MOVQ    a+8(FP), SI
	MOVQ    b+16(FP), DX
	MOVQ    h+24(FP), BX
	MOVQ    n+32(FP), CX
	SHRQ    $3, CX
	VMOVDQU 0(BX), X8
	VMOVQ   16(BX), X9
	VMOVDQU 8(BX), X10
	VPXOR   X8, X10, X10
	VPXOR   X9, X8, X11

aloop:
	FELEM(0, 8, 16, SI, 0, 128, 256)
	FELEM(24, 32, 40, SI, 80, 208, 336)
	FELEM(48, 56, 64, SI, 48, 176, 304)
	FELEM(72, 80, 88, SI, 64, 192, 320)
	FELEM(96, 104, 112, SI, 32, 160, 288)
	FELEM(120, 128, 136, SI, 112, 240, 368)
	FELEM(144, 152, 160, SI, 16, 144, 272)
	FELEM(168, 176, 184, SI, 96, 224, 352)
	FELEM(0, 8, 16, DX, 384, 512, 640)
	FELEM(24, 32, 40, DX, 464, 592, 720)
	FELEM(48, 56, 64, DX, 432, 560, 688)
	FELEM(72, 80, 88, DX, 448, 576, 704)
	FELEM(96, 104, 112, DX, 416, 544, 672)
	FELEM(120, 128, 136, DX, 496, 624, 752)
	FELEM(144, 152, 160, DX, 400, 528, 656)
	FELEM(168, 176, 184, DX, 480, 608, 736)
	ADDQ $192, SI
	ADDQ $192, DX
	ADDQ $768, DI
	DECQ CX
	JNZ  aloop
	RET

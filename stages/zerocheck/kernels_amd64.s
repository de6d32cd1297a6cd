//go:build !purego

#include "textflag.h"

// One table row per byte of the word: XOR the two 32-byte halves of
// tab[i][byte i] into Y0, Y1. DX is scratch; the word is consumed from W.
#define ROW(W, i) \
	MOVBQZX W, DX; \
	SHLQ $6, DX; \
	VPXOR (i*16384)(SI)(DX*1), Y0, Y0; \
	VPXOR (i*16384+32)(SI)(DX*1), Y1, Y1; \
	SHRQ $8, W

#define WORD(W, off) \
	VPXOR Y0, Y0, Y0; \
	VPXOR Y1, Y1, Y1; \
	ROW(W, 0); ROW(W, 1); ROW(W, 2); ROW(W, 3); \
	ROW(W, 4); ROW(W, 5); ROW(W, 6); ROW(W, 7); \
	VMOVDQU Y0, (off)(DI); \
	VMOVDQU Y1, (off+32)(DI)

// func extend3AVX2(tab *[8][256][8]uint64, a, b, c uint64, out *[3][8]uint64)
// tab and out need no alignment; tab holds 8·256 rows of 64 bytes.
TEXT ·extend3AVX2(SB), NOSPLIT, $0-40
	MOVQ tab+0(FP), SI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), CX
	MOVQ out+32(FP), DI
	WORD(AX, 0)
	WORD(BX, 64)
	WORD(CX, 128)
	VZEROUPPER
	RET

// Store the low 24 bytes of Y0 at (DI).
#define STORE24Y0 \
	VMOVDQU X0, (DI); \
	VEXTRACTI128 $1, Y0, X1; \
	MOVQ X1, 16(DI)

// EWORDA: XOR the 32-byte rows tab[i][byte i of W] (tables of 8·256 rows of 32 bytes,
// base in R) into A (even i) and B (odd i). Each byte offset is taken from W on its own
// (no shift chain through W); DX is scratch.
#define EWORDA(R, W, A, B) \
	MOVQ W, DX; SHLQ $5, DX; ANDL $0x1FE0, DX; VPXOR (0*8192)(R)(DX*1), A, A; \
	MOVQ W, DX; SHRQ $3, DX; ANDL $0x1FE0, DX; VPXOR (1*8192)(R)(DX*1), B, B; \
	MOVQ W, DX; SHRQ $11, DX; ANDL $0x1FE0, DX; VPXOR (2*8192)(R)(DX*1), A, A; \
	MOVQ W, DX; SHRQ $19, DX; ANDL $0x1FE0, DX; VPXOR (3*8192)(R)(DX*1), B, B; \
	MOVQ W, DX; SHRQ $27, DX; ANDL $0x1FE0, DX; VPXOR (4*8192)(R)(DX*1), A, A; \
	MOVQ W, DX; SHRQ $35, DX; ANDL $0x1FE0, DX; VPXOR (5*8192)(R)(DX*1), B, B; \
	MOVQ W, DX; SHRQ $43, DX; ANDL $0x1FE0, DX; VPXOR (6*8192)(R)(DX*1), A, A; \
	MOVQ W, DX; SHRQ $51, DX; ANDL $0x1FE0, DX; VPXOR (7*8192)(R)(DX*1), B, B

// ST24 stores the low 24 bytes of Y (low half XY) at P, with XT as a temporary.
#define ST24(Y, XY, XT, P) \
	VMOVDQU XY, (P); \
	VEXTRACTI128 $1, Y, XT; \
	MOVQ XT, 16(P)

// func evalSplitAVX2(tab *[8][256][4]uint64, src *uint64, odd, sum *uint64, n int)
// For l < n, with t(w) = Σ_k tab[k][byte k of w]: odd_l = t(src[2l+1]) and, unless sum
// is nil, sum_l = t(src[2l] ^ src[2l+1]) (E elements of 24 bytes). n ≥ 0; no alignment
// needed.
TEXT ·evalSplitAVX2(SB), NOSPLIT, $0-40
	MOVQ tab+0(FP), SI
	MOVQ src+8(FP), BX
	MOVQ odd+16(FP), DI
	MOVQ sum+24(FP), R11
	MOVQ n+32(FP), CX
	TESTQ CX, CX
	JEQ  sdone
	TESTQ R11, R11
	JEQ  oloop
sloop:
	MOVQ 8(BX), AX
	MOVQ (BX), R9
	XORQ AX, R9
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	EWORDA(SI, AX, Y0, Y1)
	EWORDA(SI, R9, Y2, Y3)
	VPXOR Y1, Y0, Y0
	VPXOR Y3, Y2, Y2
	ST24(Y0, X0, X4, DI)
	ST24(Y2, X2, X5, R11)
	ADDQ $16, BX
	ADDQ $24, DI
	ADDQ $24, R11
	DECQ CX
	JNE  sloop
	JMP  sdone
oloop:
	MOVQ 8(BX), AX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	EWORDA(SI, AX, Y0, Y1)
	VPXOR Y1, Y0, Y0
	ST24(Y0, X0, X4, DI)
	ADDQ $16, BX
	ADDQ $24, DI
	DECQ CX
	JNE  oloop
sdone:
	VZEROUPPER
	RET

// func mediumAVX2(tab *[16][256][4]uint64, bytes *[16][64]byte, out *field.E)
// out_j = Σ_k tab[k][bytes[k][j]] (first three words of each row) for j < 64; the
// 64 E elements at out are overwritten. No alignment needed.
#define MROW(k) \
	MOVBQZX (k*64)(BX), DX; \
	SHLQ $5, DX; \
	VPXOR (k*8192)(SI)(DX*1), Y0, Y0

TEXT ·mediumAVX2(SB), NOSPLIT, $0-24
	MOVQ tab+0(FP), SI
	MOVQ bytes+8(FP), BX
	MOVQ out+16(FP), DI
	MOVQ $64, CX
mloop:
	VPXOR Y0, Y0, Y0
	MROW(0); MROW(1); MROW(2); MROW(3); MROW(4); MROW(5); MROW(6); MROW(7)
	MROW(8); MROW(9); MROW(10); MROW(11); MROW(12); MROW(13); MROW(14); MROW(15)
	STORE24Y0
	INCQ BX
	ADDQ $24, DI
	DECQ CX
	JNE  mloop
	VZEROUPPER
	RET

// func evalHalvesAVX2(tab0, tab1 *[8][256][4]uint64, src *uint64, even, odd, sum *uint64, n int)
// For l < n, with T_m = Σ_k tab0[k][byte k of src[2m]] + tab1[k][byte k of src[2m+1]]:
// even_l = T_{2l}, odd_l = T_{2l+1}, and sum_l = T_{2l} + T_{2l+1} unless sum is nil
// (E elements of 24 bytes). n ≥ 0; no alignment needed.
TEXT ·evalHalvesAVX2(SB), NOSPLIT, $0-56
	MOVQ tab0+0(FP), SI
	MOVQ tab1+8(FP), R8
	MOVQ src+16(FP), BX
	MOVQ even+24(FP), DI
	MOVQ odd+32(FP), R10
	MOVQ sum+40(FP), R11
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JEQ  hdone
hloop:
	MOVQ (BX), AX
	MOVQ 8(BX), R9
	MOVQ 16(BX), R12
	MOVQ 24(BX), R13
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	EWORDA(SI, AX, Y0, Y1)
	EWORDA(R8, R9, Y0, Y1)
	EWORDA(SI, R12, Y2, Y3)
	EWORDA(R8, R13, Y2, Y3)
	VPXOR Y1, Y0, Y0
	VPXOR Y3, Y2, Y2
	ST24(Y0, X0, X4, DI)
	ST24(Y2, X2, X5, R10)
	TESTQ R11, R11
	JEQ  hnosum
	VPXOR Y2, Y0, Y0
	ST24(Y0, X0, X4, R11)
	ADDQ $24, R11
hnosum:
	ADDQ $32, BX
	ADDQ $24, DI
	ADDQ $24, R10
	DECQ CX
	JNE  hloop
hdone:
	VZEROUPPER
	RET

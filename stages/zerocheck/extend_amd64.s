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

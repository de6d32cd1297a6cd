//go:build !purego

#include "textflag.h"

// func xorAVX2(dst, a, b *uint64, n int)
// dst[i] = a[i] ^ b[i] for i < n; n is a positive multiple of 16 (four ymm words
// of four per iteration); unaligned pointers are fine.
TEXT ·xorAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $4, CX

xorloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VPXOR   0(DX), Y0, Y0
	VPXOR   32(DX), Y1, Y1
	VPXOR   64(DX), Y2, Y2
	VPXOR   96(DX), Y3, Y3
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    $128, DI
	DECQ    CX
	JNZ     xorloop
	VZEROUPPER
	RET

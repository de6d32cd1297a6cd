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

// func xorAVX512(dst, a, b *uint64, n int)
// xorAVX2 with zmm registers: n is a positive multiple of 32 (four zmm of eight
// words per iteration).
TEXT ·xorAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $5, CX

xorloop512:
	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VPXORQ    0(DX), Z0, Z0
	VPXORQ    64(DX), Z1, Z1
	VPXORQ    128(DX), Z2, Z2
	VPXORQ    192(DX), Z3, Z3
	VMOVDQU64 Z0, 0(DI)
	VMOVDQU64 Z1, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	ADDQ      $256, SI
	ADDQ      $256, DX
	ADDQ      $256, DI
	DECQ      CX
	JNZ       xorloop512
	VZEROUPPER
	RET

//go:build !purego

#include "textflag.h"

// SWAP exchanges the J-bit off-diagonal blocks between rows A (the lower row
// index) and B under mask M, with T as scratch: t = ((A >> J) ^ B) & M,
// B ^= t, A ^= t << J (transposeLevel's step on four row pairs at once).
#define SWAP(A, B, T, M, J) \
	VPSRLQ J, A, T \
	VPXOR  B, T, T \
	VPAND  M, T, T \
	VPXOR  T, B, B \
	VPSLLQ J, T, T \
	VPXOR  T, A, A

// LOW2 applies the index-bit-1 and bit-0 swaps (rows 2 and 1 apart) to the eight
// rows A (rows 0..3) and B (rows 4..7), with X, Y, T scratch: rows 2 apart are
// paired by 128-bit lane moves, rows 1 apart by quadword unpacks.
#define LOW2(A, B) \
	VPERM2I128  $0x20, B, A, Y4 \
	VPERM2I128  $0x31, B, A, Y5 \
	SWAP(Y4, Y5, Y6, Y12, $2) \
	VPERM2I128  $0x20, Y5, Y4, A \
	VPERM2I128  $0x31, Y5, Y4, B \
	VPUNPCKLQDQ B, A, Y4 \
	VPUNPCKHQDQ B, A, Y5 \
	SWAP(Y4, Y5, Y6, Y13, $1) \
	VPUNPCKLQDQ Y5, Y4, A \
	VPUNPCKHQDQ Y5, Y4, B

// func transpose64AVX2(m *[64]uint64, n int)
TEXT ·transpose64AVX2(SB), NOSPLIT, $0-16
	MOVQ m+0(FP), AX
	MOVQ n+8(FP), CX
	MOVQ $0x00000000FFFFFFFF, BX
	MOVQ BX, X8
	VPBROADCASTQ X8, Y8
	MOVQ $0x0000FFFF0000FFFF, BX
	MOVQ BX, X9
	VPBROADCASTQ X9, Y9
	MOVQ $0x00FF00FF00FF00FF, BX
	MOVQ BX, X10
	VPBROADCASTQ X10, Y10
	MOVQ $0x0F0F0F0F0F0F0F0F, BX
	MOVQ BX, X11
	VPBROADCASTQ X11, Y11
	MOVQ $0x3333333333333333, BX
	MOVQ BX, X12
	VPBROADCASTQ X12, Y12
	MOVQ $0x5555555555555555, BX
	MOVQ BX, X13
	VPBROADCASTQ X13, Y13
	TESTQ CX, CX
	JZ done

matrix:
	// Pass 1: index bits 5 and 4 (rows 32 and 16 apart), four row quadruples
	// 16 rows apart at a time.
	MOVQ AX, DX
	MOVQ $4, SI
pass1:
	VMOVDQU 0(DX), Y0
	VMOVDQU 128(DX), Y1
	VMOVDQU 256(DX), Y2
	VMOVDQU 384(DX), Y3
	SWAP(Y0, Y2, Y6, Y8, $32)
	SWAP(Y1, Y3, Y6, Y8, $32)
	SWAP(Y0, Y1, Y6, Y9, $16)
	SWAP(Y2, Y3, Y6, Y9, $16)
	VMOVDQU Y0, 0(DX)
	VMOVDQU Y1, 128(DX)
	VMOVDQU Y2, 256(DX)
	VMOVDQU Y3, 384(DX)
	ADDQ $32, DX
	DECQ SI
	JNZ pass1

	// Pass 2: index bits 3..0 within each block of 16 rows.
	MOVQ AX, DX
	MOVQ $4, SI
pass2:
	VMOVDQU 0(DX), Y0
	VMOVDQU 32(DX), Y1
	VMOVDQU 64(DX), Y2
	VMOVDQU 96(DX), Y3
	SWAP(Y0, Y2, Y6, Y10, $8)
	SWAP(Y1, Y3, Y6, Y10, $8)
	SWAP(Y0, Y1, Y6, Y11, $4)
	SWAP(Y2, Y3, Y6, Y11, $4)
	LOW2(Y0, Y1)
	LOW2(Y2, Y3)
	VMOVDQU Y0, 0(DX)
	VMOVDQU Y1, 32(DX)
	VMOVDQU Y2, 64(DX)
	VMOVDQU Y3, 96(DX)
	ADDQ $128, DX
	DECQ SI
	JNZ pass2

	ADDQ $512, AX
	DECQ CX
	JNZ matrix

done:
	VZEROUPPER
	RET

//go:build !purego

#include "textflag.h"
#include "transpose_amd64.h"

// LOW2 applies the index-bit-1 and bit-0 swaps (rows 2 and 1 apart) to the eight
// rows A (rows 0..3) and B (rows 4..7), with Y4, Y5, Y6 scratch: rows 2 apart
// are paired by 128-bit lane moves, rows 1 apart by quadword unpacks.
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

// BCASTY sets every qword of Y (X its low half) to the constant c; clobbers BX.
#define BCASTY(c, X, Y) \
	MOVQ         c, BX \
	MOVQ         BX, X \
	VPBROADCASTQ X, Y

// SWAP4 swaps two index bits across the four rows in each lane of Y0..Y3: bit
// J1 (mask M1) between Y0, Y2 and Y1, Y3, then bit J2 (mask M2) between Y0, Y1
// and Y2, Y3. Clobbers Y6.
#define SWAP4(M1, J1, M2, J2) \
	SWAP(Y0, Y2, Y6, M1, J1) \
	SWAP(Y1, Y3, Y6, M1, J1) \
	SWAP(Y0, Y1, Y6, M2, J2) \
	SWAP(Y2, Y3, Y6, M2, J2)

// func transpose64AVX2(m *[64]uint64, n int)
TEXT ·transpose64AVX2(SB), NOSPLIT, $0-16
	MOVQ m+0(FP), AX
	MOVQ n+8(FP), CX
	BCASTY($0x00000000FFFFFFFF, X8, Y8)
	BCASTY($0x0000FFFF0000FFFF, X9, Y9)
	BCASTY($0x00FF00FF00FF00FF, X10, Y10)
	BCASTY($0x0F0F0F0F0F0F0F0F, X11, Y11)
	BCASTY($0x3333333333333333, X12, Y12)
	BCASTY($0x5555555555555555, X13, Y13)
	TESTQ CX, CX
	JZ done

matrix:
	// Pass 1: index bits 5 and 4 (rows 32 and 16 apart), four row quadruples
	// 16 rows apart at a time.
	MOVQ AX, DX
	MOVQ $4, SI
pass1:
	LOAD4(VMOVDQU, DX, 0, 128, Y0, Y1, Y2, Y3)
	SWAP4(Y8, $32, Y9, $16)
	STORE4(VMOVDQU, DX, 0, 128, Y0, Y1, Y2, Y3)
	ADDQ $32, DX
	DECQ SI
	JNZ pass1

	// Pass 2: index bits 3..0 within each block of 16 rows.
	MOVQ AX, DX
	MOVQ $4, SI
pass2:
	LOAD4(VMOVDQU, DX, 0, 32, Y0, Y1, Y2, Y3)
	SWAP4(Y10, $8, Y11, $4)
	LOW2(Y0, Y1)
	LOW2(Y2, Y3)
	STORE4(VMOVDQU, DX, 0, 32, Y0, Y1, Y2, Y3)
	ADDQ $128, DX
	DECQ SI
	JNZ pass2

	ADDQ $512, AX
	DECQ CX
	JNZ matrix

done:
	VZEROUPPER
	RET

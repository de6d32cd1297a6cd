//go:build !purego

#include "textflag.h"
#include "transpose_amd64.h"

// Index tables of the two byte permutations (see transpose_amd64.go).
DATA transposeIdx1<>+0(SB)/8, $0x0008101820283038
DATA transposeIdx1<>+8(SB)/8, $0x0109111921293139
DATA transposeIdx1<>+16(SB)/8, $0x020a121a222a323a
DATA transposeIdx1<>+24(SB)/8, $0x030b131b232b333b
DATA transposeIdx1<>+32(SB)/8, $0x040c141c242c343c
DATA transposeIdx1<>+40(SB)/8, $0x050d151d252d353d
DATA transposeIdx1<>+48(SB)/8, $0x060e161e262e363e
DATA transposeIdx1<>+56(SB)/8, $0x070f171f272f373f
GLOBL transposeIdx1<>(SB), RODATA|NOPTR, $64
DATA transposeIdx2<>+0(SB)/8, $0x3830282018100800
DATA transposeIdx2<>+8(SB)/8, $0x3931292119110901
DATA transposeIdx2<>+16(SB)/8, $0x3a322a221a120a02
DATA transposeIdx2<>+24(SB)/8, $0x3b332b231b130b03
DATA transposeIdx2<>+32(SB)/8, $0x3c342c241c140c04
DATA transposeIdx2<>+40(SB)/8, $0x3d352d251d150d05
DATA transposeIdx2<>+48(SB)/8, $0x3e362e261e160e06
DATA transposeIdx2<>+56(SB)/8, $0x3f372f271f170f07
GLOBL transposeIdx2<>(SB), RODATA|NOPTR, $64

// BCASTZ sets every qword of Z to the constant c; clobbers BX.
#define BCASTZ(c, Z) \
	MOVQ         c, BX \
	VPBROADCASTQ BX, Z

// BITS8 swaps the row index bits 0..2 with the column index bits 0..2 of the
// eight rows in Z: a qword ↔ byte permutation (VPERMB with the table in Z23), an
// 8×8 bit transpose of every qword (GF2P8AFFINEQB with the data as the matrix and
// Z25 as the operand) and the inverse permutation (Z24). Writes Z.
#define BITS8(Z) \
	VPERMB         Z, Z23, Z \
	VGF2P8AFFINEQB $0, Z, Z25, Z \
	VPERMB         Z, Z24, Z

// func transpose64GFNI(m *[64]uint64, n int)
TEXT ·transpose64GFNI(SB), NOSPLIT, $0-16
	MOVQ m+0(FP), AX
	MOVQ n+8(FP), CX
	BCASTZ($0x00000000FFFFFFFF, Z20)
	BCASTZ($0x0000FFFF0000FFFF, Z21)
	BCASTZ($0x00FF00FF00FF00FF, Z22)
	BCASTZ($0x8040201008040201, Z25)
	VMOVDQU64 transposeIdx1<>(SB), Z23
	VMOVDQU64 transposeIdx2<>(SB), Z24
	TESTQ CX, CX
	JZ done
loop:
	LOAD4(VMOVDQU64, AX, 0, 64, Z0, Z1, Z2, Z3)
	LOAD4(VMOVDQU64, AX, 256, 64, Z4, Z5, Z6, Z7)
	// Row bits 3..5 with column bits 3..5: rows 8 apart live in different registers.
	SWAPZ(Z0, Z4, Z8, Z20, $32)
	SWAPZ(Z1, Z5, Z8, Z20, $32)
	SWAPZ(Z2, Z6, Z8, Z20, $32)
	SWAPZ(Z3, Z7, Z8, Z20, $32)
	SWAPZ(Z0, Z2, Z8, Z21, $16)
	SWAPZ(Z1, Z3, Z8, Z21, $16)
	SWAPZ(Z4, Z6, Z8, Z21, $16)
	SWAPZ(Z5, Z7, Z8, Z21, $16)
	SWAPZ(Z0, Z1, Z8, Z22, $8)
	SWAPZ(Z2, Z3, Z8, Z22, $8)
	SWAPZ(Z4, Z5, Z8, Z22, $8)
	SWAPZ(Z6, Z7, Z8, Z22, $8)
	// Row bits 0..2 with column bits 0..2.
	BITS8(Z0)
	BITS8(Z1)
	BITS8(Z2)
	BITS8(Z3)
	BITS8(Z4)
	BITS8(Z5)
	BITS8(Z6)
	BITS8(Z7)
	STORE4(VMOVDQU64, AX, 0, 64, Z0, Z1, Z2, Z3)
	STORE4(VMOVDQU64, AX, 256, 64, Z4, Z5, Z6, Z7)
	ADDQ $512, AX
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

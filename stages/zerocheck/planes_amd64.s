//go:build !purego

#include "textflag.h"

// Byte shuffle inside each 128-bit lane holding planes (p, p+1) of one medium index:
// output word bi = (byte bi of plane p, byte bi of plane p+1).
DATA pairctl<>+0(SB)/8, $0x0b030a0209010800
DATA pairctl<>+8(SB)/8, $0x0f070e060d050c04
DATA pairctl<>+16(SB)/8, $0x0b030a0209010800
DATA pairctl<>+24(SB)/8, $0x0f070e060d050c04
GLOBL pairctl<>(SB), RODATA|NOPTR, $32

// TR8: transpose8 (skip.go) on the four qwords of X; T is a temporary, M7, M14, M28
// hold the three masks.
#define TR8(X, T) \
	VPSRLQ $7, X, T; \
	VPXOR X, T, T; \
	VPAND M7, T, T; \
	VPXOR T, X, X; \
	VPSLLQ $7, T, T; \
	VPXOR T, X, X; \
	VPSRLQ $14, X, T; \
	VPXOR X, T, T; \
	VPAND M14, T, T; \
	VPXOR T, X, X; \
	VPSLLQ $14, T, T; \
	VPXOR T, X, X; \
	VPSRLQ $28, X, T; \
	VPXOR X, T, T; \
	VPAND M28, T, T; \
	VPXOR T, X, X; \
	VPSLLQ $28, T, T; \
	VPXOR T, X, X

#define M7 Y13
#define M14 Y14
#define M28 Y15

// func planesBytesAVX2(planes *[16][8]uint64, out *[16][64]byte)
// out[k][j] = Σ_p (bit j of planes[k][p]) << p for the 16 medium indices k (the
// portable planesToBytes on each). No alignment needed.
TEXT ·planesBytesAVX2(SB), NOSPLIT, $0-16
	MOVQ planes+0(FP), SI
	MOVQ out+8(FP), DI
	MOVQ $0x00AA00AA00AA00AA, AX
	MOVQ AX, X13
	VPBROADCASTQ X13, M7
	MOVQ $0x0000CCCC0000CCCC, AX
	MOVQ AX, X14
	VPBROADCASTQ X14, M14
	MOVQ $0x00000000F0F0F0F0, AX
	MOVQ AX, X15
	VPBROADCASTQ X15, M28
	VMOVDQU pairctl<>(SB), Y12
	MOVQ $16, CX
loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPSHUFB Y12, Y0, Y0          // [A | B]: (P0,P1), (P2,P3) byte pairs
	VPSHUFB Y12, Y1, Y1          // [C | D]: (P4,P5), (P6,P7)
	VPERM2I128 $0x20, Y1, Y0, Y2 // [A | C]
	VPERM2I128 $0x31, Y1, Y0, Y3 // [B | D]
	VPUNPCKLWD Y3, Y2, Y4        // [AB0..AB3 | CD0..CD3]
	VPUNPCKHWD Y3, Y2, Y5        // [AB4..AB7 | CD4..CD7]
	VPERM2I128 $0x20, Y5, Y4, Y6 // [AB0..AB3 | AB4..AB7]
	VPERM2I128 $0x31, Y5, Y4, Y7 // [CD0..CD3 | CD4..CD7]
	VPUNPCKLDQ Y7, Y6, Y8        // qwords of bytes 0, 1 | 4, 5
	VPUNPCKHDQ Y7, Y6, Y9        // qwords of bytes 2, 3 | 6, 7
	TR8(Y8, Y10)
	TR8(Y9, Y11)
	VPERM2I128 $0x20, Y9, Y8, Y0
	VPERM2I128 $0x31, Y9, Y8, Y1
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE  loop
	VZEROUPPER
	RET

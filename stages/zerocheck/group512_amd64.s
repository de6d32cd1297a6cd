//go:build !purego

#include "textflag.h"

// groupBytesGFNI: skipDomain.groupPlanes for the AVX512GFNI level. The coset values
// of a word are 64 GF(2^8) bytes in one zmm (byte-form extension tables, bytes
// reversed inside each qword: see extBytesTable), the product â·b̂ is one VGF2P8MULB
// (GFNI's field is GF(2^8) mod t^8 + t^4 + t^3 + t + 1, the planes' field), and the
// small eq weights are eight broadcast bytes. Each medium index's 64-byte sum is turned
// into its eight planes at the end: VGF2P8AFFINEQB transposes each qword's 8×8 bits,
// VPSHUFB and VPERMW transpose the 8×8 bytes.

// Bytes 2p, 2p+1 of each 128-bit lane ← byte p of its low and high qword.
DATA pairb<>+0(SB)/8, $0x0b030a0209010800
DATA pairb<>+8(SB)/8, $0x0f070e060d050c04
GLOBL pairb<>(SB), RODATA|NOPTR, $16

// Word 4p+m ← word 8m+p (qword p gathers word p of each 128-bit lane m).
DATA permw<>+0(SB)/8, $0x0018001000080000
DATA permw<>+8(SB)/8, $0x0019001100090001
DATA permw<>+16(SB)/8, $0x001a0012000a0002
DATA permw<>+24(SB)/8, $0x001b0013000b0003
DATA permw<>+32(SB)/8, $0x001c0014000c0004
DATA permw<>+40(SB)/8, $0x001d0015000d0005
DATA permw<>+48(SB)/8, $0x001e0016000e0006
DATA permw<>+56(SB)/8, $0x001f0017000f0007
GLOBL permw<>(SB), RODATA|NOPTR, $64

// ROWX: XOR the 64-byte row tab[i][byte i of W] into Z (ROW0X loads it); DX scratch.
#define ROW0X(W, Z) \
	MOVQ W, DX; SHLQ $6, DX; ANDL $0x3FC0, DX; \
	VMOVDQU64 (SI)(DX*1), Z
#define ROWX(W, i, sh, Z) \
	MOVQ W, DX; SHRQ $sh, DX; ANDL $0x3FC0, DX; \
	VPXORQ (i*16384)(SI)(DX*1), Z, Z

// EXTB: the 64 coset bytes of the word at off(SRC) into Z; clobbers AX, DX.
#define EXTB(SRC, off, Z) \
	MOVQ off(SRC), AX; \
	ROW0X(AX, Z); ROWX(AX, 1, 2, Z); ROWX(AX, 2, 10, Z); ROWX(AX, 3, 18, Z); \
	ROWX(AX, 4, 26, Z); ROWX(AX, 5, 34, Z); ROWX(AX, 6, 42, Z); ROWX(AX, 7, 50, Z)

// WORDI: add norm_i·(â·b̂ + ĉ) of word i of the current medium index into Z16.
#define WORDI(i, N) \
	EXTB(R8, 8*i, Z0); \
	EXTB(R9, 8*i, Z1); \
	EXTB(R10, 8*i, Z2); \
	VGF2P8MULB Z1, Z0, Z0; \
	VPXORQ     Z2, Z0, Z0; \
	VGF2P8MULB N, Z0, Z0; \
	VPXORQ     Z0, Z16, Z16

// func groupBytesGFNI(tab *[8][256][64]byte, a, b, c *field.K, norm *[8]byte, out *[16][8]uint64)
// a, b and c point at the group's 128 words (16 medium indices of 8); tab is the
// byte-form extension table; out receives the 16 plane sets. No alignment needed.
TEXT ·groupBytesGFNI(SB), NOSPLIT, $0-48
	MOVQ tab+0(FP), SI
	MOVQ a+8(FP), R8
	MOVQ b+16(FP), R9
	MOVQ c+24(FP), R10
	MOVQ norm+32(FP), BX
	MOVQ out+40(FP), DI
	VPBROADCASTB 0(BX), Z24
	VPBROADCASTB 1(BX), Z25
	VPBROADCASTB 2(BX), Z26
	VPBROADCASTB 3(BX), Z27
	VPBROADCASTB 4(BX), Z28
	VPBROADCASTB 5(BX), Z29
	VPBROADCASTB 6(BX), Z30
	VPBROADCASTB 7(BX), Z31
	// Z20: the unit bytes 1, 2, 4, …, 128 in every qword (VGF2P8AFFINEQB's source for a
	// transpose); Z21: pairb in every lane; Z22: permw.
	MOVQ $0x8040201008040201, AX
	VPBROADCASTQ AX, Z20
	VBROADCASTI32X4 pairb<>(SB), Z21
	VMOVDQU64 permw<>(SB), Z22
	MOVQ $16, CX

gbloop:
	VPXORQ Z16, Z16, Z16
	WORDI(0, Z24)
	WORDI(1, Z25)
	WORDI(2, Z26)
	WORDI(3, Z27)
	WORDI(4, Z28)
	WORDI(5, Z29)
	WORDI(6, Z30)
	WORDI(7, Z31)
	// Qword g of Z16 holds coset bytes 8g+7 … 8g (reversed). Transposing its bits gives
	// byte p = bits 8g … 8g+7 of plane p; then transpose the 8×8 bytes.
	VGF2P8AFFINEQB $0, Z16, Z20, Z17
	VPSHUFB        Z21, Z17, Z17
	VPERMW         Z17, Z22, Z17
	VMOVDQU64      Z17, (DI)
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, DI
	DECQ CX
	JNE  gbloop
	VZEROUPPER
	RET

// func planesBytesGFNI(planes *[16][8]uint64, out *[16][64]byte)
// planesToBytes on each of the 16 plane sets: the 8×8 byte transpose (qword g ← byte
// g of each plane), VGF2P8AFFINEQB with the planes' bytes as matrices and the unit
// bytes as sources (each qword's 8×8 bit transpose, bits of each byte reversed), then
// VGF2P8AFFINEQB with the unit bytes as the matrix (the bit reversal). No alignment
// needed.
TEXT ·planesBytesGFNI(SB), NOSPLIT, $0-16
	MOVQ planes+0(FP), SI
	MOVQ out+8(FP), DI
	MOVQ $0x8040201008040201, AX
	VPBROADCASTQ AX, Z20
	VBROADCASTI32X4 pairb<>(SB), Z21
	VMOVDQU64 permw<>(SB), Z22
	MOVQ $16, CX

pbloop:
	VMOVDQU64      (SI), Z0
	VPSHUFB        Z21, Z0, Z0
	VPERMW         Z0, Z22, Z0
	VGF2P8AFFINEQB $0, Z0, Z20, Z1
	VGF2P8AFFINEQB $0, Z20, Z1, Z1
	VMOVDQU64      Z1, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE  pbloop
	VZEROUPPER
	RET

//go:build amd64 && !purego

#include "textflag.h"

// VPSHUFB masks rotating every 32-bit word right by 16 and by 8 bits.
DATA rot16<>+0x00(SB)/8, $0x0504070601000302
DATA rot16<>+0x08(SB)/8, $0x0D0C0F0E09080B0A
DATA rot16<>+0x10(SB)/8, $0x0504070601000302
DATA rot16<>+0x18(SB)/8, $0x0D0C0F0E09080B0A
GLOBL rot16<>(SB), (NOPTR+RODATA), $32

DATA rot8<>+0x00(SB)/8, $0x0407060500030201
DATA rot8<>+0x08(SB)/8, $0x0C0F0E0D080B0A09
DATA rot8<>+0x10(SB)/8, $0x0407060500030201
DATA rot8<>+0x18(SB)/8, $0x0C0F0E0D080B0A09
GLOBL rot8<>(SB), (NOPTR+RODATA), $32

// The BLAKE2s IV (RFC 7693 §2.6).
DATA iv<>+0x00(SB)/4, $0x6a09e667
DATA iv<>+0x04(SB)/4, $0xbb67ae85
DATA iv<>+0x08(SB)/4, $0x3c6ef372
DATA iv<>+0x0c(SB)/4, $0xa54ff53a
DATA iv<>+0x10(SB)/4, $0x510e527f
DATA iv<>+0x14(SB)/4, $0x9b05688c
DATA iv<>+0x18(SB)/4, $0x1f83d9ab
DATA iv<>+0x1c(SB)/4, $0x5be0cd19
GLOBL iv<>(SB), (NOPTR+RODATA), $32

// The initial chaining value of unkeyed BLAKE2s-256: IV with word 0 xored with 0x01010020.
DATA hinit<>+0x00(SB)/4, $0x6b08e647
DATA hinit<>+0x04(SB)/4, $0xbb67ae85
DATA hinit<>+0x08(SB)/4, $0x3c6ef372
DATA hinit<>+0x0c(SB)/4, $0xa54ff53a
DATA hinit<>+0x10(SB)/4, $0x510e527f
DATA hinit<>+0x14(SB)/4, $0x9b05688c
DATA hinit<>+0x18(SB)/4, $0x1f83d9ab
DATA hinit<>+0x1c(SB)/4, $0x5be0cd19
GLOBL hinit<>(SB), (NOPTR+RODATA), $32

// Stack frame, addressed through R11 = SP rounded up to 32 bytes so that no access splits a
// cache line: the 16 transposed message words of the current block (32 bytes each), one
// spill slot, and the 8 transposed chaining-value words.
#define M0 0(R11)
#define M1 32(R11)
#define M2 64(R11)
#define M3 96(R11)
#define M4 128(R11)
#define M5 160(R11)
#define M6 192(R11)
#define M7 224(R11)
#define M8 256(R11)
#define M9 288(R11)
#define M10 320(R11)
#define M11 352(R11)
#define M12 384(R11)
#define M13 416(R11)
#define M14 448(R11)
#define M15 480(R11)
#define SPILL 512(R11)
#define H0 544(R11)
#define H1 576(R11)
#define H2 608(R11)
#define H3 640(R11)
#define H4 672(R11)
#define H5 704(R11)
#define H6 736(R11)
#define H7 768(R11)

// TRANSPOSE8 transposes the 8×8 matrix of 32-bit words in Y0..Y7 (row r in Yr) into
// Y8..Y15 (row r in Y(8+r)), clobbering Y0..Y7.
#define TRANSPOSE8 \
	VPUNPCKLDQ Y1, Y0, Y8; VPUNPCKHDQ Y1, Y0, Y9; VPUNPCKLDQ Y3, Y2, Y10; VPUNPCKHDQ Y3, Y2, Y11; \
	VPUNPCKLDQ Y5, Y4, Y12; VPUNPCKHDQ Y5, Y4, Y13; VPUNPCKLDQ Y7, Y6, Y14; VPUNPCKHDQ Y7, Y6, Y15; \
	VPUNPCKLQDQ Y10, Y8, Y0; VPUNPCKHQDQ Y10, Y8, Y1; VPUNPCKLQDQ Y11, Y9, Y2; VPUNPCKHQDQ Y11, Y9, Y3; \
	VPUNPCKLQDQ Y14, Y12, Y4; VPUNPCKHQDQ Y14, Y12, Y5; VPUNPCKLQDQ Y15, Y13, Y6; VPUNPCKHQDQ Y15, Y13, Y7; \
	VPERM2I128 $0x20, Y4, Y0, Y8; VPERM2I128 $0x31, Y4, Y0, Y12; \
	VPERM2I128 $0x20, Y5, Y1, Y9; VPERM2I128 $0x31, Y5, Y1, Y13; \
	VPERM2I128 $0x20, Y6, Y2, Y10; VPERM2I128 $0x31, Y6, Y2, Y14; \
	VPERM2I128 $0x20, Y7, Y3, Y11; VPERM2I128 $0x31, Y7, Y3, Y15

// LOADT loads 32 bytes at offset off of each of the 8 lanes (lane i at R8 + i·DX, with
// R9 = R8 + 3·DX and R10 = R8 + 6·DX) and transposes them so that Y8..Y15 hold message words
// off/4 .. off/4+7 of the 8 lanes (lane i in 32-bit element i), storing them to s0..s7.
#define LOADT(off, s0, s1, s2, s3, s4, s5, s6, s7) \
	VMOVDQU off(R8), Y0; VMOVDQU off(R8)(DX*1), Y1; VMOVDQU off(R8)(DX*2), Y2; VMOVDQU off(R9), Y3; \
	VMOVDQU off(R9)(DX*1), Y4; VMOVDQU off(R9)(DX*2), Y5; VMOVDQU off(R10), Y6; VMOVDQU off(R10)(DX*1), Y7; \
	TRANSPOSE8; \
	VMOVDQU Y8, s0; VMOVDQU Y9, s1; VMOVDQU Y10, s2; VMOVDQU Y11, s3; \
	VMOVDQU Y12, s4; VMOVDQU Y13, s5; VMOVDQU Y14, s6; VMOVDQU Y15, s7

// ROTR rotates each 32-bit word of b right by n, using t as scratch.
#define ROTR(n, m, b, t) VPSRLD $n, b, t; VPSLLD $m, b, b; VPOR t, b, b

// HALF is one half of four G functions side by side (columns or diagonals): a += b + m;
// d = (d ^ a) >>> r1; c += d; b = (b ^ c) >>> r2, with r1 a byte shuffle and r2 = n (32-n = m).
// c0 is spilled to free a scratch register for the shifts.
#define HALF(a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3, m0, m1, m2, m3, shuf, n, m) \
	VPADDD m0, a0, a0; VPADDD m1, a1, a1; VPADDD m2, a2, a2; VPADDD m3, a3, a3; \
	VPADDD b0, a0, a0; VPADDD b1, a1, a1; VPADDD b2, a2, a2; VPADDD b3, a3, a3; \
	VPXOR a0, d0, d0; VPXOR a1, d1, d1; VPXOR a2, d2, d2; VPXOR a3, d3, d3; \
	VPSHUFB shuf, d0, d0; VPSHUFB shuf, d1, d1; VPSHUFB shuf, d2, d2; VPSHUFB shuf, d3, d3; \
	VPADDD d0, c0, c0; VPADDD d1, c1, c1; VPADDD d2, c2, c2; VPADDD d3, c3, c3; \
	VPXOR c0, b0, b0; VPXOR c1, b1, b1; VPXOR c2, b2, b2; VPXOR c3, b3, b3; \
	VMOVDQU c0, SPILL; \
	ROTR(n, m, b0, c0); ROTR(n, m, b1, c0); ROTR(n, m, b2, c0); ROTR(n, m, b3, c0); \
	VMOVDQU SPILL, c0

// ROUND is one BLAKE2s round; s0..s15 are the message words in the round's σ order.
// State: Y0..Y3 = v0..v3, Y4..Y7 = v4..v7, Y8..Y11 = v8..v11, Y12..Y15 = v12..v15.
#define ROUND(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15) \
	HALF(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15, s0, s2, s4, s6, rot16<>(SB), 12, 20); \
	HALF(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15, s1, s3, s5, s7, rot8<>(SB), 7, 25); \
	HALF(Y0, Y1, Y2, Y3, Y5, Y6, Y7, Y4, Y10, Y11, Y8, Y9, Y15, Y12, Y13, Y14, s8, s10, s12, s14, rot16<>(SB), 12, 20); \
	HALF(Y0, Y1, Y2, Y3, Y5, Y6, Y7, Y4, Y10, Y11, Y8, Y9, Y15, Y12, Y13, Y14, s9, s11, s13, s15, rot8<>(SB), 7, 25)

// func hash8(dst *[8]Digest, h *[8][8]uint32, src *byte, stride, nblocks uintptr, t uint64, f0, fresh uint32)
//
// Compresses nblocks ≥ 1 consecutive 64-byte blocks of each of 8 independent messages.
// Lane i's first block starts at src + i*stride; all 8·nblocks blocks must be readable (no
// alignment needed). While compressing block b it prefetches block b of lanes 16..23 (at
// src + (16+i)*stride + 64·b), the group two calls ahead in a SumMany or NodeMany sweep, so
// rows streaming from memory arrive in time; prefetches never fault, so they may point past
// the end of the data. Block b is compressed with counter t + 64·b, and f0 is the final flag of
// the last block (0 on the others). The chaining values start from the unkeyed BLAKE2s-256
// initial value when fresh ≠ 0, else from h (transposed: h[j][i] = word j of lane i). At the
// end they go to dst as 8 little-endian digests when dst ≠ nil, else back to h. nblocks = 0
// does nothing. Requires AVX2.
TEXT ·hash8(SB), 0, $832-56
	MOVQ h+8(FP), AX
	MOVQ src+16(FP), R8
	MOVQ stride+24(FP), DX
	MOVQ nblocks+32(FP), CX
	MOVQ t+40(FP), BX
	TESTQ CX, CX
	JZ done
	LEAQ (R8)(DX*2), R9
	ADDQ DX, R9
	LEAQ (R9)(DX*2), R10
	ADDQ DX, R10
	LEAQ 31(SP), R11
	ANDQ $~31, R11

	// Prefetch pointers: R12 = R8 + 16·DX, R13 = R12 + 3·DX, SI = R12 + 6·DX.
	LEAQ (R8)(DX*8), R12
	LEAQ (R12)(DX*8), R12
	LEAQ (R12)(DX*2), R13
	ADDQ DX, R13
	LEAQ (R13)(DX*2), SI
	ADDQ DX, SI

	MOVL fresh+52(FP), DI
	TESTL DI, DI
	JZ loadh
	VPBROADCASTD hinit<>+0x00(SB), Y0
	VPBROADCASTD hinit<>+0x04(SB), Y1
	VPBROADCASTD hinit<>+0x08(SB), Y2
	VPBROADCASTD hinit<>+0x0c(SB), Y3
	VPBROADCASTD hinit<>+0x10(SB), Y4
	VPBROADCASTD hinit<>+0x14(SB), Y5
	VPBROADCASTD hinit<>+0x18(SB), Y6
	VPBROADCASTD hinit<>+0x1c(SB), Y7
	JMP saveh

loadh:
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VMOVDQU 128(AX), Y4
	VMOVDQU 160(AX), Y5
	VMOVDQU 192(AX), Y6
	VMOVDQU 224(AX), Y7

saveh:
	VMOVDQU Y0, H0
	VMOVDQU Y1, H1
	VMOVDQU Y2, H2
	VMOVDQU Y3, H3
	VMOVDQU Y4, H4
	VMOVDQU Y5, H5
	VMOVDQU Y6, H6
	VMOVDQU Y7, H7

loop:
	PREFETCHT0 (R12)
	PREFETCHT0 (R12)(DX*1)
	PREFETCHT0 (R12)(DX*2)
	PREFETCHT0 (R13)
	PREFETCHT0 (R13)(DX*1)
	PREFETCHT0 (R13)(DX*2)
	PREFETCHT0 (SI)
	PREFETCHT0 (SI)(DX*1)
	LOADT(0, M0, M1, M2, M3, M4, M5, M6, M7)
	LOADT(32, M8, M9, M10, M11, M12, M13, M14, M15)

	VMOVDQU H0, Y0
	VMOVDQU H1, Y1
	VMOVDQU H2, Y2
	VMOVDQU H3, Y3
	VMOVDQU H4, Y4
	VMOVDQU H5, Y5
	VMOVDQU H6, Y6
	VMOVDQU H7, Y7
	VPBROADCASTD iv<>+0x00(SB), Y8
	VPBROADCASTD iv<>+0x04(SB), Y9
	VPBROADCASTD iv<>+0x08(SB), Y10
	VPBROADCASTD iv<>+0x0c(SB), Y11

	// v12, v13 = IV4 ^ t_lo, IV5 ^ t_hi; v14 = IV6 ^ f (f = f0 on the last block); v15 = IV7.
	VMOVQ BX, X12
	VPBROADCASTD X12, Y12
	MOVQ BX, DI
	SHRQ $32, DI
	VMOVQ DI, X13
	VPBROADCASTD X13, Y13
	XORL DI, DI
	CMPQ CX, $1
	JNE notlast
	MOVL f0+48(FP), DI

notlast:
	VMOVQ DI, X14
	VPBROADCASTD X14, Y14
	VPBROADCASTD iv<>+0x10(SB), Y15
	VPXOR Y15, Y12, Y12
	VPBROADCASTD iv<>+0x14(SB), Y15
	VPXOR Y15, Y13, Y13
	VPBROADCASTD iv<>+0x18(SB), Y15
	VPXOR Y15, Y14, Y14
	VPBROADCASTD iv<>+0x1c(SB), Y15

	ROUND(M0, M1, M2, M3, M4, M5, M6, M7, M8, M9, M10, M11, M12, M13, M14, M15)
	ROUND(M14, M10, M4, M8, M9, M15, M13, M6, M1, M12, M0, M2, M11, M7, M5, M3)
	ROUND(M11, M8, M12, M0, M5, M2, M15, M13, M10, M14, M3, M6, M7, M1, M9, M4)
	ROUND(M7, M9, M3, M1, M13, M12, M11, M14, M2, M6, M5, M10, M4, M0, M15, M8)
	ROUND(M9, M0, M5, M7, M2, M4, M10, M15, M14, M1, M11, M12, M6, M8, M3, M13)
	ROUND(M2, M12, M6, M10, M0, M11, M8, M3, M4, M13, M7, M5, M15, M14, M1, M9)
	ROUND(M12, M5, M1, M15, M14, M13, M4, M10, M0, M7, M6, M3, M9, M2, M8, M11)
	ROUND(M13, M11, M7, M14, M12, M1, M3, M9, M5, M0, M15, M4, M8, M6, M2, M10)
	ROUND(M6, M15, M14, M9, M11, M3, M0, M8, M12, M2, M13, M7, M1, M4, M10, M5)
	ROUND(M10, M2, M8, M4, M7, M6, M1, M5, M15, M11, M9, M14, M3, M12, M13, M0)

	// h ^= v[0:8] ^ v[8:16].
	VPXOR Y8, Y0, Y0
	VPXOR Y9, Y1, Y1
	VPXOR Y10, Y2, Y2
	VPXOR Y11, Y3, Y3
	VPXOR Y12, Y4, Y4
	VPXOR Y13, Y5, Y5
	VPXOR Y14, Y6, Y6
	VPXOR Y15, Y7, Y7
	VPXOR H0, Y0, Y0
	VPXOR H1, Y1, Y1
	VPXOR H2, Y2, Y2
	VPXOR H3, Y3, Y3
	VPXOR H4, Y4, Y4
	VPXOR H5, Y5, Y5
	VPXOR H6, Y6, Y6
	VPXOR H7, Y7, Y7
	VMOVDQU Y0, H0
	VMOVDQU Y1, H1
	VMOVDQU Y2, H2
	VMOVDQU Y3, H3
	VMOVDQU Y4, H4
	VMOVDQU Y5, H5
	VMOVDQU Y6, H6
	VMOVDQU Y7, H7

	ADDQ $64, BX
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R12
	ADDQ $64, R13
	ADDQ $64, SI
	DECQ CX
	JNZ loop

	// Y0..Y7 hold the chaining values, word-major.
	MOVQ dst+0(FP), DI
	TESTQ DI, DI
	JZ storeh
	TRANSPOSE8
	VMOVDQU Y8, 0(DI)
	VMOVDQU Y9, 32(DI)
	VMOVDQU Y10, 64(DI)
	VMOVDQU Y11, 96(DI)
	VMOVDQU Y12, 128(DI)
	VMOVDQU Y13, 160(DI)
	VMOVDQU Y14, 192(DI)
	VMOVDQU Y15, 224(DI)
	JMP done

storeh:
	VMOVDQU Y0, 0(AX)
	VMOVDQU Y1, 32(AX)
	VMOVDQU Y2, 64(AX)
	VMOVDQU Y3, 96(AX)
	VMOVDQU Y4, 128(AX)
	VMOVDQU Y5, 160(AX)
	VMOVDQU Y6, 192(AX)
	VMOVDQU Y7, 224(AX)

done:
	VZEROUPPER
	RET

// Single-message BLAKE2s with 128-bit AVX: the rows (v0..v3), (v4..v7), (v8..v11), (v12..v15)
// live in X0..X3; diagonal steps rotate rows 1..3 with VPSHUFD.

// LOADM gathers four message words at byte offsets o0..o3 of the block at SI into x.
#define LOADM(x, o0, o1, o2, o3) \
	VMOVD o0(SI), x; VPINSRD $1, o1(SI), x, x; VPINSRD $2, o2(SI), x, x; VPINSRD $3, o3(SI), x, x

// G4 is one half of four G functions on the rows: a += b + m; d = (d ^ a) >>> r1 (byte
// shuffle shuf); c += d; b = (b ^ c) >>> n (n + k = 32).
#define G4(m, shuf, n, k) \
	VPADDD m, X0, X0; VPADDD X1, X0, X0; VPXOR X0, X3, X3; VPSHUFB shuf, X3, X3; \
	VPADDD X3, X2, X2; VPXOR X2, X1, X1; VPSRLD $n, X1, X8; VPSLLD $k, X1, X1; VPOR X8, X1, X1

// ROUND1 is one round; the 16 byte offsets are the message words in σ order, regrouped as
// (σ0 σ2 σ4 σ6) (σ1 σ3 σ5 σ7) (σ8 σ10 σ12 σ14) (σ9 σ11 σ13 σ15).
#define ROUND1(a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3) \
	LOADM(X4, a0, a1, a2, a3); LOADM(X5, b0, b1, b2, b3); \
	LOADM(X6, c0, c1, c2, c3); LOADM(X7, d0, d1, d2, d3); \
	G4(X4, X9, 12, 20); G4(X5, X10, 7, 25); \
	VPSHUFD $0x39, X1, X1; VPSHUFD $0x4E, X2, X2; VPSHUFD $0x93, X3, X3; \
	G4(X6, X9, 12, 20); G4(X7, X10, 7, 25); \
	VPSHUFD $0x93, X1, X1; VPSHUFD $0x4E, X2, X2; VPSHUFD $0x39, X3, X3

// func compress1(h *[8]uint32, src *byte, nblocks uintptr, t uint64, f0, f1 uint32)
//
// Compresses nblocks consecutive 64-byte blocks at src (no alignment needed) into the chaining
// value h. Block b is compressed with counter t + 64·b; f0 and f1 are the flags of the last
// block (0 on the others). nblocks = 0 does nothing. Requires AVX.
TEXT ·compress1(SB), NOSPLIT, $0-40
	MOVQ h+0(FP), AX
	MOVQ src+8(FP), SI
	MOVQ nblocks+16(FP), CX
	MOVQ t+24(FP), BX
	TESTQ CX, CX
	JZ done
	VMOVDQU rot16<>(SB), X9
	VMOVDQU rot8<>(SB), X10
	VMOVDQU 0(AX), X11
	VMOVDQU 16(AX), X12

loop:
	VMOVDQA X11, X0
	VMOVDQA X12, X1
	VMOVDQU iv<>+0(SB), X2
	VMOVQ BX, X3
	XORL DX, DX
	XORL DI, DI
	CMPQ CX, $1
	JNE notlast
	MOVL f0+32(FP), DX
	MOVL f1+36(FP), DI

notlast:
	VPINSRD $2, DX, X3, X3
	VPINSRD $3, DI, X3, X3
	VPXOR iv<>+16(SB), X3, X3

	ROUND1(0, 8, 16, 24, 4, 12, 20, 28, 32, 40, 48, 56, 36, 44, 52, 60)
	ROUND1(56, 16, 36, 52, 40, 32, 60, 24, 4, 0, 44, 20, 48, 8, 28, 12)
	ROUND1(44, 48, 20, 60, 32, 0, 8, 52, 40, 12, 28, 36, 56, 24, 4, 16)
	ROUND1(28, 12, 52, 44, 36, 4, 48, 56, 8, 20, 16, 60, 24, 40, 0, 32)
	ROUND1(36, 20, 8, 40, 0, 28, 16, 60, 56, 44, 24, 12, 4, 48, 32, 52)
	ROUND1(8, 24, 0, 32, 48, 40, 44, 12, 16, 28, 60, 4, 52, 20, 56, 36)
	ROUND1(48, 4, 56, 16, 20, 60, 52, 40, 0, 24, 36, 32, 28, 12, 8, 44)
	ROUND1(52, 28, 48, 12, 44, 56, 4, 36, 20, 60, 32, 8, 0, 16, 24, 40)
	ROUND1(24, 56, 44, 0, 60, 36, 12, 32, 48, 52, 4, 40, 8, 28, 16, 20)
	ROUND1(40, 32, 28, 4, 8, 16, 24, 20, 60, 36, 12, 52, 44, 56, 48, 0)

	VPXOR X2, X0, X0
	VPXOR X3, X1, X1
	VPXOR X0, X11, X11
	VPXOR X1, X12, X12
	ADDQ $64, SI
	ADDQ $64, BX
	DECQ CX
	JNZ loop

	VMOVDQU X11, 0(AX)
	VMOVDQU X12, 16(AX)

done:
	RET

//go:build amd64 && !purego

#include "textflag.h"

// The BLAKE2s IV (RFC 7693 §2.6) and the unkeyed BLAKE2s-256 initial chaining value (IV with
// word 0 xored with 0x01010020), broadcast into every lane.
DATA iv16<>+0x00(SB)/4, $0x6a09e667
DATA iv16<>+0x04(SB)/4, $0xbb67ae85
DATA iv16<>+0x08(SB)/4, $0x3c6ef372
DATA iv16<>+0x0c(SB)/4, $0xa54ff53a
DATA iv16<>+0x10(SB)/4, $0x510e527f
DATA iv16<>+0x14(SB)/4, $0x9b05688c
DATA iv16<>+0x18(SB)/4, $0x1f83d9ab
DATA iv16<>+0x1c(SB)/4, $0x5be0cd19
GLOBL iv16<>(SB), (NOPTR+RODATA), $32

DATA hinit16<>+0x00(SB)/4, $0x6b08e647
DATA hinit16<>+0x04(SB)/4, $0xbb67ae85
DATA hinit16<>+0x08(SB)/4, $0x3c6ef372
DATA hinit16<>+0x0c(SB)/4, $0xa54ff53a
DATA hinit16<>+0x10(SB)/4, $0x510e527f
DATA hinit16<>+0x14(SB)/4, $0x9b05688c
DATA hinit16<>+0x18(SB)/4, $0x1f83d9ab
DATA hinit16<>+0x1c(SB)/4, $0x5be0cd19
GLOBL hinit16<>(SB), (NOPTR+RODATA), $32

// The 16-lane AVX-512 BLAKE2s kernel: lane i's state word j is 32-bit element i of a zmm
// register. The state v0..v15 lives in Z0..Z15 and the current block's message words m0..m15,
// transposed, in Z16..Z31, so a round needs no scratch register: rotations are VPRORD.

// TRANSPOSE16 transposes the 16×16 matrix of 32-bit words in Z16..Z31 (row r in Z(16+r)) in
// place, clobbering Z0..Z15: 32-bit, then 64-bit interleaves within 128-bit lanes, then two
// 4×4 transposes of 128-bit lanes.
#define TRANSPOSE16 \
	VPUNPCKLDQ Z17, Z16, Z0; VPUNPCKHDQ Z17, Z16, Z1; \
	VPUNPCKLDQ Z19, Z18, Z2; VPUNPCKHDQ Z19, Z18, Z3; \
	VPUNPCKLDQ Z21, Z20, Z4; VPUNPCKHDQ Z21, Z20, Z5; \
	VPUNPCKLDQ Z23, Z22, Z6; VPUNPCKHDQ Z23, Z22, Z7; \
	VPUNPCKLDQ Z25, Z24, Z8; VPUNPCKHDQ Z25, Z24, Z9; \
	VPUNPCKLDQ Z27, Z26, Z10; VPUNPCKHDQ Z27, Z26, Z11; \
	VPUNPCKLDQ Z29, Z28, Z12; VPUNPCKHDQ Z29, Z28, Z13; \
	VPUNPCKLDQ Z31, Z30, Z14; VPUNPCKHDQ Z31, Z30, Z15; \
	VPUNPCKLQDQ Z2, Z0, Z16; VPUNPCKHQDQ Z2, Z0, Z17; VPUNPCKLQDQ Z3, Z1, Z18; VPUNPCKHQDQ Z3, Z1, Z19; \
	VPUNPCKLQDQ Z6, Z4, Z20; VPUNPCKHQDQ Z6, Z4, Z21; VPUNPCKLQDQ Z7, Z5, Z22; VPUNPCKHQDQ Z7, Z5, Z23; \
	VPUNPCKLQDQ Z10, Z8, Z24; VPUNPCKHQDQ Z10, Z8, Z25; VPUNPCKLQDQ Z11, Z9, Z26; VPUNPCKHQDQ Z11, Z9, Z27; \
	VPUNPCKLQDQ Z14, Z12, Z28; VPUNPCKHQDQ Z14, Z12, Z29; VPUNPCKLQDQ Z15, Z13, Z30; VPUNPCKHQDQ Z15, Z13, Z31; \
	VSHUFI32X4 $0x44, Z20, Z16, Z0; VSHUFI32X4 $0xEE, Z20, Z16, Z1; VSHUFI32X4 $0x44, Z28, Z24, Z2; VSHUFI32X4 $0xEE, Z28, Z24, Z3; \
	VSHUFI32X4 $0x44, Z21, Z17, Z4; VSHUFI32X4 $0xEE, Z21, Z17, Z5; VSHUFI32X4 $0x44, Z29, Z25, Z6; VSHUFI32X4 $0xEE, Z29, Z25, Z7; \
	VSHUFI32X4 $0x44, Z22, Z18, Z8; VSHUFI32X4 $0xEE, Z22, Z18, Z9; VSHUFI32X4 $0x44, Z30, Z26, Z10; VSHUFI32X4 $0xEE, Z30, Z26, Z11; \
	VSHUFI32X4 $0x44, Z23, Z19, Z12; VSHUFI32X4 $0xEE, Z23, Z19, Z13; VSHUFI32X4 $0x44, Z31, Z27, Z14; VSHUFI32X4 $0xEE, Z31, Z27, Z15; \
	VSHUFI32X4 $0x88, Z2, Z0, Z16; VSHUFI32X4 $0xDD, Z2, Z0, Z20; VSHUFI32X4 $0x88, Z3, Z1, Z24; VSHUFI32X4 $0xDD, Z3, Z1, Z28; \
	VSHUFI32X4 $0x88, Z6, Z4, Z17; VSHUFI32X4 $0xDD, Z6, Z4, Z21; VSHUFI32X4 $0x88, Z7, Z5, Z25; VSHUFI32X4 $0xDD, Z7, Z5, Z29; \
	VSHUFI32X4 $0x88, Z10, Z8, Z18; VSHUFI32X4 $0xDD, Z10, Z8, Z22; VSHUFI32X4 $0x88, Z11, Z9, Z26; VSHUFI32X4 $0xDD, Z11, Z9, Z30; \
	VSHUFI32X4 $0x88, Z14, Z12, Z19; VSHUFI32X4 $0xDD, Z14, Z12, Z23; VSHUFI32X4 $0x88, Z15, Z13, Z27; VSHUFI32X4 $0xDD, Z15, Z13, Z31

// HALF16 is one half of four G functions side by side (columns or diagonals): a += b + m;
// d = (d ^ a) >>> r1; c += d; b = (b ^ c) >>> r2.
#define HALF16(a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3, m0, m1, m2, m3, r1, r2) \
	VPADDD m0, a0, a0; VPADDD m1, a1, a1; VPADDD m2, a2, a2; VPADDD m3, a3, a3; \
	VPADDD b0, a0, a0; VPADDD b1, a1, a1; VPADDD b2, a2, a2; VPADDD b3, a3, a3; \
	VPXORD a0, d0, d0; VPXORD a1, d1, d1; VPXORD a2, d2, d2; VPXORD a3, d3, d3; \
	VPRORD $r1, d0, d0; VPRORD $r1, d1, d1; VPRORD $r1, d2, d2; VPRORD $r1, d3, d3; \
	VPADDD d0, c0, c0; VPADDD d1, c1, c1; VPADDD d2, c2, c2; VPADDD d3, c3, c3; \
	VPXORD c0, b0, b0; VPXORD c1, b1, b1; VPXORD c2, b2, b2; VPXORD c3, b3, b3; \
	VPRORD $r2, b0, b0; VPRORD $r2, b1, b1; VPRORD $r2, b2, b2; VPRORD $r2, b3, b3

// ROUND16 is one BLAKE2s round; s0..s15 are the message registers in the round's σ order.
#define ROUND16(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15) \
	HALF16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, s0, s2, s4, s6, 16, 12); \
	HALF16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, s1, s3, s5, s7, 8, 7); \
	HALF16(Z0, Z1, Z2, Z3, Z5, Z6, Z7, Z4, Z10, Z11, Z8, Z9, Z15, Z12, Z13, Z14, s8, s10, s12, s14, 16, 12); \
	HALF16(Z0, Z1, Z2, Z3, Z5, Z6, Z7, Z4, Z10, Z11, Z8, Z9, Z15, Z12, Z13, Z14, s9, s11, s13, s15, 8, 7)

// func hash16(dst *[16]Digest, h *[8][16]uint32, src *byte, stride, nblocks uintptr, t uint64, f0, fresh uint32)
//
// Compresses nblocks consecutive 64-byte blocks of each of 16 independent messages. Lane i's
// first block starts at src + i*stride; all 16·nblocks blocks must be readable (no alignment
// needed). While compressing block b it prefetches block b of lanes 32..47 (at
// src + (32+i)*stride + 64·b), the group two calls ahead in a SumMany or NodeMany sweep;
// prefetches never fault, so they may point past the end of the data. Block b is compressed
// with counter t + 64·b, and f0 is the final flag of the last block (0 on the others). The
// chaining values start from the unkeyed BLAKE2s-256 initial value when fresh ≠ 0, else from h
// (transposed: h[j][i] = word j of lane i). At the end they go to dst as 16 little-endian
// digests when dst ≠ nil, else back to h. nblocks = 0 does nothing. Requires AVX-512F.
TEXT ·hash16(SB), 0, $576-56
	MOVQ  h+8(FP), AX
	MOVQ  src+16(FP), R8
	MOVQ  stride+24(FP), DX
	MOVQ  nblocks+32(FP), CX
	MOVQ  t+40(FP), BX
	TESTQ CX, CX
	JZ    done16
	// R11: the chaining values on the stack, 64-byte aligned; R12: the prefetch base.
	LEAQ  63(SP), R11
	ANDQ  $~63, R11
	MOVQ  DX, R12
	SHLQ  $5, R12
	ADDQ  R8, R12

	MOVL  fresh+52(FP), DI
	TESTL DI, DI
	JZ    loadh16
	VPBROADCASTD hinit16<>+0x00(SB), Z0
	VPBROADCASTD hinit16<>+0x04(SB), Z1
	VPBROADCASTD hinit16<>+0x08(SB), Z2
	VPBROADCASTD hinit16<>+0x0c(SB), Z3
	VPBROADCASTD hinit16<>+0x10(SB), Z4
	VPBROADCASTD hinit16<>+0x14(SB), Z5
	VPBROADCASTD hinit16<>+0x18(SB), Z6
	VPBROADCASTD hinit16<>+0x1c(SB), Z7
	JMP          saveh16

loadh16:
	VMOVDQU32 0(AX), Z0
	VMOVDQU32 64(AX), Z1
	VMOVDQU32 128(AX), Z2
	VMOVDQU32 192(AX), Z3
	VMOVDQU32 256(AX), Z4
	VMOVDQU32 320(AX), Z5
	VMOVDQU32 384(AX), Z6
	VMOVDQU32 448(AX), Z7

saveh16:
	VMOVDQA32 Z0, 0(R11)
	VMOVDQA32 Z1, 64(R11)
	VMOVDQA32 Z2, 128(R11)
	VMOVDQA32 Z3, 192(R11)
	VMOVDQA32 Z4, 256(R11)
	VMOVDQA32 Z5, 320(R11)
	VMOVDQA32 Z6, 384(R11)
	VMOVDQA32 Z7, 448(R11)

loop16:
	MOVQ R8, SI
	MOVQ R12, DI
	VMOVDQU32  (SI), Z16
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z17
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z18
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z19
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z20
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z21
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z22
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z23
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z24
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z25
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z26
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z27
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z28
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z29
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z30
	PREFETCHT0 (DI)
	ADDQ       DX, SI
	ADDQ       DX, DI
	VMOVDQU32  (SI), Z31
	PREFETCHT0 (DI)
	TRANSPOSE16

	VMOVDQA32 0(R11), Z0
	VMOVDQA32 64(R11), Z1
	VMOVDQA32 128(R11), Z2
	VMOVDQA32 192(R11), Z3
	VMOVDQA32 256(R11), Z4
	VMOVDQA32 320(R11), Z5
	VMOVDQA32 384(R11), Z6
	VMOVDQA32 448(R11), Z7
	VPBROADCASTD iv16<>+0x00(SB), Z8
	VPBROADCASTD iv16<>+0x04(SB), Z9
	VPBROADCASTD iv16<>+0x08(SB), Z10
	VPBROADCASTD iv16<>+0x0c(SB), Z11

	// v12, v13 = IV4 ^ t_lo, IV5 ^ t_hi; v14 = IV6 ^ f (f = f0 on the last block); v15 = IV7.
	VPBROADCASTD BX, Z12
	MOVQ         BX, DI
	SHRQ         $32, DI
	VPBROADCASTD DI, Z13
	XORL         DI, DI
	CMPQ         CX, $1
	JNE          notlast16
	MOVL         f0+48(FP), DI

notlast16:
	VPBROADCASTD DI, Z14
	VPXORD.BCST  iv16<>+0x10(SB), Z12, Z12
	VPXORD.BCST  iv16<>+0x14(SB), Z13, Z13
	VPXORD.BCST  iv16<>+0x18(SB), Z14, Z14
	VPBROADCASTD iv16<>+0x1c(SB), Z15

	ROUND16(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)
	ROUND16(Z30, Z26, Z20, Z24, Z25, Z31, Z29, Z22, Z17, Z28, Z16, Z18, Z27, Z23, Z21, Z19)
	ROUND16(Z27, Z24, Z28, Z16, Z21, Z18, Z31, Z29, Z26, Z30, Z19, Z22, Z23, Z17, Z25, Z20)
	ROUND16(Z23, Z25, Z19, Z17, Z29, Z28, Z27, Z30, Z18, Z22, Z21, Z26, Z20, Z16, Z31, Z24)
	ROUND16(Z25, Z16, Z21, Z23, Z18, Z20, Z26, Z31, Z30, Z17, Z27, Z28, Z22, Z24, Z19, Z29)
	ROUND16(Z18, Z28, Z22, Z26, Z16, Z27, Z24, Z19, Z20, Z29, Z23, Z21, Z31, Z30, Z17, Z25)
	ROUND16(Z28, Z21, Z17, Z31, Z30, Z29, Z20, Z26, Z16, Z23, Z22, Z19, Z25, Z18, Z24, Z27)
	ROUND16(Z29, Z27, Z23, Z30, Z28, Z17, Z19, Z25, Z21, Z16, Z31, Z20, Z24, Z22, Z18, Z26)
	ROUND16(Z22, Z31, Z30, Z25, Z27, Z19, Z16, Z24, Z28, Z18, Z29, Z23, Z17, Z20, Z26, Z21)
	ROUND16(Z26, Z18, Z24, Z20, Z23, Z22, Z17, Z21, Z31, Z27, Z25, Z30, Z19, Z28, Z29, Z16)

	// h ^= v[0:8] ^ v[8:16].
	VPTERNLOGD $0x96, 0(R11), Z8, Z0
	VPTERNLOGD $0x96, 64(R11), Z9, Z1
	VPTERNLOGD $0x96, 128(R11), Z10, Z2
	VPTERNLOGD $0x96, 192(R11), Z11, Z3
	VPTERNLOGD $0x96, 256(R11), Z12, Z4
	VPTERNLOGD $0x96, 320(R11), Z13, Z5
	VPTERNLOGD $0x96, 384(R11), Z14, Z6
	VPTERNLOGD $0x96, 448(R11), Z15, Z7
	VMOVDQA32  Z0, 0(R11)
	VMOVDQA32  Z1, 64(R11)
	VMOVDQA32  Z2, 128(R11)
	VMOVDQA32  Z3, 192(R11)
	VMOVDQA32  Z4, 256(R11)
	VMOVDQA32  Z5, 320(R11)
	VMOVDQA32  Z6, 384(R11)
	VMOVDQA32  Z7, 448(R11)

	ADDQ $64, BX
	ADDQ $64, R8
	ADDQ $64, R12
	DECQ CX
	JNZ  loop16

	// Z0..Z7 hold the chaining values, word-major.
	MOVQ  dst+0(FP), DI
	TESTQ DI, DI
	JZ    storeh16
	VMOVDQA32 Z0, Z16
	VMOVDQA32 Z1, Z17
	VMOVDQA32 Z2, Z18
	VMOVDQA32 Z3, Z19
	VMOVDQA32 Z4, Z20
	VMOVDQA32 Z5, Z21
	VMOVDQA32 Z6, Z22
	VMOVDQA32 Z7, Z23
	TRANSPOSE16
	VMOVDQU32 Y16, 0(DI)
	VMOVDQU32 Y17, 32(DI)
	VMOVDQU32 Y18, 64(DI)
	VMOVDQU32 Y19, 96(DI)
	VMOVDQU32 Y20, 128(DI)
	VMOVDQU32 Y21, 160(DI)
	VMOVDQU32 Y22, 192(DI)
	VMOVDQU32 Y23, 224(DI)
	VMOVDQU32 Y24, 256(DI)
	VMOVDQU32 Y25, 288(DI)
	VMOVDQU32 Y26, 320(DI)
	VMOVDQU32 Y27, 352(DI)
	VMOVDQU32 Y28, 384(DI)
	VMOVDQU32 Y29, 416(DI)
	VMOVDQU32 Y30, 448(DI)
	VMOVDQU32 Y31, 480(DI)
	JMP       done16

storeh16:
	VMOVDQU32 Z0, 0(AX)
	VMOVDQU32 Z1, 64(AX)
	VMOVDQU32 Z2, 128(AX)
	VMOVDQU32 Z3, 192(AX)
	VMOVDQU32 Z4, 256(AX)
	VMOVDQU32 Z5, 320(AX)
	VMOVDQU32 Z6, 384(AX)
	VMOVDQU32 Z7, 448(AX)

done16:
	VZEROUPPER
	RET

//go:build !purego

#include "textflag.h"

// Byte-table evaluations t(w) = Σ_s (bit s of w)·basis_s for the AVX512GFNI level,
// eight words at a time. The words' bytes are transposed (qword i ← byte i of each
// word), each qword i is broadcast, and VGF2P8AFFINEQB with the matrices mat[i][q]
// (lane L: the 8×8 bit map from byte i of a word to byte L of limb q of its value, see
// gfniMatrices) gives byte L of limb q for all eight words; the XOR over i is the sum.
// Transposing the three accumulators back gives limb registers (lane m = word m).

DATA epairb<>+0(SB)/8, $0x0b030a0209010800
DATA epairb<>+8(SB)/8, $0x0f070e060d050c04
GLOBL epairb<>(SB), RODATA|NOPTR, $16

DATA epermw<>+0(SB)/8, $0x0018001000080000
DATA epermw<>+8(SB)/8, $0x0019001100090001
DATA epermw<>+16(SB)/8, $0x001a0012000a0002
DATA epermw<>+24(SB)/8, $0x001b0013000b0003
DATA epermw<>+32(SB)/8, $0x001c0014000c0004
DATA epermw<>+40(SB)/8, $0x001d0015000d0005
DATA epermw<>+48(SB)/8, $0x001e0016000e0006
DATA epermw<>+56(SB)/8, $0x001f0017000f0007
GLOBL epermw<>(SB), RODATA|NOPTR, $64

// Lane l ← element 3l mod 8 (the order STOREE8 takes).
DATA eidxK<>+0(SB)/8, $0
DATA eidxK<>+8(SB)/8, $3
DATA eidxK<>+16(SB)/8, $6
DATA eidxK<>+24(SB)/8, $1
DATA eidxK<>+32(SB)/8, $4
DATA eidxK<>+40(SB)/8, $7
DATA eidxK<>+48(SB)/8, $2
DATA eidxK<>+56(SB)/8, $5
GLOBL eidxK<>(SB), RODATA|NOPTR, $64

// Qword lanes of the even and odd words of two zmm (table 0, table 1).
DATA eveq<>+0(SB)/8, $0
DATA eveq<>+8(SB)/8, $2
DATA eveq<>+16(SB)/8, $4
DATA eveq<>+24(SB)/8, $6
DATA eveq<>+32(SB)/8, $8
DATA eveq<>+40(SB)/8, $10
DATA eveq<>+48(SB)/8, $12
DATA eveq<>+56(SB)/8, $14
GLOBL eveq<>(SB), RODATA|NOPTR, $64

DATA eodq<>+0(SB)/8, $1
DATA eodq<>+8(SB)/8, $3
DATA eodq<>+16(SB)/8, $5
DATA eodq<>+24(SB)/8, $7
DATA eodq<>+32(SB)/8, $9
DATA eodq<>+40(SB)/8, $11
DATA eodq<>+48(SB)/8, $13
DATA eodq<>+56(SB)/8, $15
GLOBL eodq<>(SB), RODATA|NOPTR, $64

// ehidx<>+64r: qwords r, 4+r, 8+r, 12+r of a zmm pair, twice.
DATA ehidx<>+0(SB)/8, $0
DATA ehidx<>+8(SB)/8, $4
DATA ehidx<>+16(SB)/8, $8
DATA ehidx<>+24(SB)/8, $12
DATA ehidx<>+32(SB)/8, $0
DATA ehidx<>+40(SB)/8, $4
DATA ehidx<>+48(SB)/8, $8
DATA ehidx<>+56(SB)/8, $12
DATA ehidx<>+64(SB)/8, $1
DATA ehidx<>+72(SB)/8, $5
DATA ehidx<>+80(SB)/8, $9
DATA ehidx<>+88(SB)/8, $13
DATA ehidx<>+96(SB)/8, $1
DATA ehidx<>+104(SB)/8, $5
DATA ehidx<>+112(SB)/8, $9
DATA ehidx<>+120(SB)/8, $13
DATA ehidx<>+128(SB)/8, $2
DATA ehidx<>+136(SB)/8, $6
DATA ehidx<>+144(SB)/8, $10
DATA ehidx<>+152(SB)/8, $14
DATA ehidx<>+160(SB)/8, $2
DATA ehidx<>+168(SB)/8, $6
DATA ehidx<>+176(SB)/8, $10
DATA ehidx<>+184(SB)/8, $14
DATA ehidx<>+192(SB)/8, $3
DATA ehidx<>+200(SB)/8, $7
DATA ehidx<>+208(SB)/8, $11
DATA ehidx<>+216(SB)/8, $15
DATA ehidx<>+224(SB)/8, $3
DATA ehidx<>+232(SB)/8, $7
DATA ehidx<>+240(SB)/8, $11
DATA ehidx<>+248(SB)/8, $15
GLOBL ehidx<>(SB), RODATA|NOPTR, $256

// setup: Z21 pairb in every lane, Z22 permw, Z23 eidxK, Z24–Z31 the qword indices
// 0–7 broadcast; K1, K2, K3 the lane masks of STOREE8. Clobbers AX.
#define SETUP \
	VBROADCASTI32X4 epairb<>(SB), Z21; \
	VMOVDQU64 epermw<>(SB), Z22; \
	VMOVDQU64 eidxK<>(SB), Z23; \
	MOVQ $0, AX; VPBROADCASTQ AX, Z24; \
	MOVQ $1, AX; VPBROADCASTQ AX, Z25; \
	MOVQ $2, AX; VPBROADCASTQ AX, Z26; \
	MOVQ $3, AX; VPBROADCASTQ AX, Z27; \
	MOVQ $4, AX; VPBROADCASTQ AX, Z28; \
	MOVQ $5, AX; VPBROADCASTQ AX, Z29; \
	MOVQ $6, AX; VPBROADCASTQ AX, Z30; \
	MOVQ $7, AX; VPBROADCASTQ AX, Z31; \
	MOVQ $0x92, AX; KMOVW AX, K1; \
	MOVQ $0x24, AX; KMOVW AX, K2; \
	MOVQ $0x49, AX; KMOVW AX, K3

// TRB: 8×8 byte transpose of X into Y (qword p byte g ← qword g byte p).
#define TRB(X, Y) \
	VPSHUFB Z21, X, Y; \
	VPERMW  Y, Z22, Y

// EVI2 adds the images of byte positions i and i+1 (broadcast indices I, J, matrices
// at off(R) and off+192(R)) into O0, O1, O2. Clobbers Z16, Z18–Z20.
#define EVI2(I, J, off, R, O0, O1, O2) \
	VPERMQ Z17, I, Z18; \
	VPERMQ Z17, J, Z16; \
	VGF2P8AFFINEQB $0, (off)(R), Z18, Z19; \
	VGF2P8AFFINEQB $0, (off+192)(R), Z16, Z20; \
	VPTERNLOGQ $0x96, Z19, Z20, O0; \
	VGF2P8AFFINEQB $0, (off+64)(R), Z18, Z19; \
	VGF2P8AFFINEQB $0, (off+256)(R), Z16, Z20; \
	VPTERNLOGQ $0x96, Z19, Z20, O1; \
	VGF2P8AFFINEQB $0, (off+128)(R), Z18, Z19; \
	VGF2P8AFFINEQB $0, (off+320)(R), Z16, Z20; \
	VPTERNLOGQ $0x96, Z19, Z20, O2

// EVAL adds t(word m of W), in transposed form, into O0, O1, O2 (matrices at R).
// Clobbers Z16–Z20.
#define EVAL(W, R, O0, O1, O2) \
	TRB(W, Z17); \
	EVI2(Z24, Z25, 0, R, O0, O1, O2); \
	EVI2(Z26, Z27, 384, R, O0, O1, O2); \
	EVI2(Z28, Z29, 768, R, O0, O1, O2); \
	EVI2(Z30, Z31, 1152, R, O0, O1, O2)

// STORET stores the transposed accumulators O0, O1, O2 (clobbered) as eight E
// elements (word order) at p; clobbers Z17 and Z20.
#define STORET(p, O0, O1, O2) \
	TRB(O0, Z17); VPERMQ Z17, Z23, O0; \
	TRB(O1, Z17); VPERMQ Z17, Z23, O1; \
	TRB(O2, Z17); VPERMQ Z17, Z23, O2; \
	VALIGNQ   $7, O1, O1, O1; \
	VALIGNQ   $6, O2, O2, O2; \
	VPBLENDMQ O1, O0, K1, Z20; \
	VPBLENDMQ O2, Z20, K2, Z20; \
	VMOVDQU64 Z20, 0(p); \
	VPBLENDMQ O1, O0, K2, Z20; \
	VPBLENDMQ O2, Z20, K3, Z20; \
	VMOVDQU64 Z20, 64(p); \
	VPBLENDMQ O1, O0, K3, Z20; \
	VPBLENDMQ O2, Z20, K1, Z20; \
	VMOVDQU64 Z20, 128(p)

#define ZERO3(A, B, C) \
	VPXORQ A, A, A; VPXORQ B, B, B; VPXORQ C, C, C

// func evalSplitGFNI(mat *[8][3][8]uint64, src *field.K, odd, sum *field.E, n int)
// For l < n: odd_l = t(src[2l+1]) and, unless sum is nil, sum_l = t(src[2l] ^ src[2l+1]).
// n is a positive multiple of 8; no alignment needed.
TEXT ·evalSplitGFNI(SB), NOSPLIT, $0-40
	MOVQ mat+0(FP), SI
	MOVQ src+8(FP), BX
	MOVQ odd+16(FP), DI
	MOVQ sum+24(FP), R11
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	SETUP

esloop:
	VMOVDQU64 0(BX), Z0
	VMOVDQU64 64(BX), Z1
	VMOVDQU64 eveq<>(SB), Z2
	VPERMI2Q  Z1, Z0, Z2 // even words
	VMOVDQU64 eodq<>(SB), Z3
	VPERMI2Q  Z1, Z0, Z3 // odd words
	ZERO3(Z8, Z9, Z10)
	EVAL(Z3, SI, Z8, Z9, Z10)
	STORET(DI, Z8, Z9, Z10)
	TESTQ R11, R11
	JEQ   esnosum
	VPXORQ Z2, Z3, Z3
	ZERO3(Z8, Z9, Z10)
	EVAL(Z3, SI, Z8, Z9, Z10)
	STORET(R11, Z8, Z9, Z10)
	ADDQ $192, R11

esnosum:
	ADDQ $128, BX
	ADDQ $192, DI
	DECQ CX
	JNE  esloop
	VZEROUPPER
	RET

// func evalHalvesGFNI(mat0, mat1 *[8][3][8]uint64, src *field.K, even, odd, sum *field.E, n int)
// For l < n, with T_m = t0(src[2m]) + t1(src[2m+1]): even_l = T_{2l}, odd_l = T_{2l+1},
// and sum_l = T_{2l} + T_{2l+1} unless sum is nil. n is a positive multiple of 8; no
// alignment needed.
TEXT ·evalHalvesGFNI(SB), NOSPLIT, $0-56
	MOVQ mat0+0(FP), SI
	MOVQ mat1+8(FP), R8
	MOVQ src+16(FP), BX
	MOVQ even+24(FP), DI
	MOVQ odd+32(FP), R10
	MOVQ sum+40(FP), R11
	MOVQ n+48(FP), CX
	SHRQ $3, CX
	SETUP

ehloop:
	// Z4–Z7: words src[4l + r] for r = 0..3, lane l.
	VMOVDQU64 0(BX), Z0
	VMOVDQU64 64(BX), Z1
	VMOVDQU64 128(BX), Z2
	VMOVDQU64 192(BX), Z3
	// Lanes 0..3 from Z0:Z1 (qwords r, 4+r, 8+r, 12+r), lanes 4..7 from Z2:Z3.
#define QUAD(r, W) \
	VMOVDQU64 ehidx<>+(64*r)(SB), W; \
	VPERMI2Q  Z1, Z0, W; \
	VMOVDQU64 ehidx<>+(64*r)(SB), Z17; \
	VPERMI2Q  Z3, Z2, Z17; \
	VINSERTI64X4 $1, Y17, W, W
	QUAD(0, Z4)
	QUAD(1, Z5)
	QUAD(2, Z6)
	QUAD(3, Z7)
	ZERO3(Z8, Z9, Z10)
	ZERO3(Z11, Z12, Z13)
	EVAL(Z4, SI, Z8, Z9, Z10)
	EVAL(Z5, R8, Z8, Z9, Z10)
	EVAL(Z6, SI, Z11, Z12, Z13)
	EVAL(Z7, R8, Z11, Z12, Z13)
	TESTQ R11, R11
	JEQ   ehnosum
	VPXORQ Z8, Z11, Z14
	VPXORQ Z9, Z12, Z15
	VPXORQ Z10, Z13, Z16
	STORET(R11, Z14, Z15, Z16)
	ADDQ $192, R11

ehnosum:
	STORET(DI, Z8, Z9, Z10)
	STORET(R10, Z11, Z12, Z13)
	ADDQ $256, BX
	ADDQ $192, DI
	ADDQ $192, R10
	DECQ CX
	JNE  ehloop
	VZEROUPPER
	RET

// EVM2 adds the images of medium indices k and k+1 (their bytes for the eight
// outputs are the qword at off(BX) and off+64(BX), matrices at moff(SI)) into Z8–Z10.
// Clobbers Z16, Z18–Z20.
#define EVM2(off, moff) \
	VPBROADCASTQ off(BX), Z18; \
	VPBROADCASTQ (off+64)(BX), Z16; \
	VGF2P8AFFINEQB $0, (moff)(SI), Z18, Z19; \
	VGF2P8AFFINEQB $0, (moff+192)(SI), Z16, Z20; \
	VPTERNLOGQ $0x96, Z19, Z20, Z8; \
	VGF2P8AFFINEQB $0, (moff+64)(SI), Z18, Z19; \
	VGF2P8AFFINEQB $0, (moff+256)(SI), Z16, Z20; \
	VPTERNLOGQ $0x96, Z19, Z20, Z9; \
	VGF2P8AFFINEQB $0, (moff+128)(SI), Z18, Z19; \
	VGF2P8AFFINEQB $0, (moff+320)(SI), Z16, Z20; \
	VPTERNLOGQ $0x96, Z19, Z20, Z10

// func mediumGFNI(mat *[2][8][3][8]uint64, bytes *[16][64]byte, out *field.E)
// out_j = Σ_k medium[k][bytes[k][j]] for j < 64, with mat the gfniMatrices of the
// medium tables (k < 8, then k ≥ 8); the 64 E elements at out are overwritten. No
// alignment needed.
TEXT ·mediumGFNI(SB), NOSPLIT, $0-24
	MOVQ mat+0(FP), SI
	MOVQ bytes+8(FP), BX
	MOVQ out+16(FP), DI
	SETUP
	MOVQ $8, CX

emloop:
	ZERO3(Z8, Z9, Z10)
	EVM2(0, 0)
	EVM2(128, 384)
	EVM2(256, 768)
	EVM2(384, 1152)
	EVM2(512, 1536)
	EVM2(640, 1920)
	EVM2(768, 2304)
	EVM2(896, 2688)
	STORET(DI, Z8, Z9, Z10)
	ADDQ $8, BX
	ADDQ $192, DI
	DECQ CX
	JNE  emloop
	VZEROUPPER
	RET

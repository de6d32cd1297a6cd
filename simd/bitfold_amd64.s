//go:build !purego

#include "textflag.h"

// Bit folds with GFNI (see bitfold.go for the layouts). VGF2P8AFFINEQB maps each
// byte x of its source through the 8x8 bit matrix of its qword lane: byte 7-i of
// the matrix selects the bits whose parity is bit i of the result.

// bitFoldTileBytes is BitFoldTile groups of 64 bytes: one word's x bytes.
#define bitFoldTileBytes 4096

// bitFoldRows: byte 8k+b takes byte k of row 7-b (lane k gathers byte k of every
// row, rows reversed for the bit transpose).
DATA bitFoldRows<>+0(SB)/8, $0x0008101820283038
DATA bitFoldRows<>+8(SB)/8, $0x0109111921293139
DATA bitFoldRows<>+16(SB)/8, $0x020a121a222a323a
DATA bitFoldRows<>+24(SB)/8, $0x030b131b232b333b
DATA bitFoldRows<>+32(SB)/8, $0x040c141c242c343c
DATA bitFoldRows<>+40(SB)/8, $0x050d151d252d353d
DATA bitFoldRows<>+48(SB)/8, $0x060e161e262e363e
DATA bitFoldRows<>+56(SB)/8, $0x070f171f272f373f
GLOBL bitFoldRows<>(SB), RODATA|NOPTR, $64

// bitFoldBytes: the 8x8 byte transpose inside a register (byte 8p+b takes byte 8b+p).
DATA bitFoldBytes<>+0(SB)/8, $0x3830282018100800
DATA bitFoldBytes<>+8(SB)/8, $0x3931292119110901
DATA bitFoldBytes<>+16(SB)/8, $0x3a322a221a120a02
DATA bitFoldBytes<>+24(SB)/8, $0x3b332b231b130b03
DATA bitFoldBytes<>+32(SB)/8, $0x3c342c241c140c04
DATA bitFoldBytes<>+40(SB)/8, $0x3d352d251d150d05
DATA bitFoldBytes<>+48(SB)/8, $0x3e362e261e160e06
DATA bitFoldBytes<>+56(SB)/8, $0x3f372f271f170f07
GLOBL bitFoldBytes<>(SB), RODATA|NOPTR, $64

// bitFoldSwap1: VPERMT2Q indices swapping bit 1 of the register index with bit 1 of
// the lane index (for the lower, then the upper register of a pair).
DATA bitFoldSwap1<>+0(SB)/8, $0x0000000000000000
DATA bitFoldSwap1<>+8(SB)/8, $0x0000000000000001
DATA bitFoldSwap1<>+16(SB)/8, $0x0000000000000008
DATA bitFoldSwap1<>+24(SB)/8, $0x0000000000000009
DATA bitFoldSwap1<>+32(SB)/8, $0x0000000000000004
DATA bitFoldSwap1<>+40(SB)/8, $0x0000000000000005
DATA bitFoldSwap1<>+48(SB)/8, $0x000000000000000c
DATA bitFoldSwap1<>+56(SB)/8, $0x000000000000000d
DATA bitFoldSwap1<>+64(SB)/8, $0x000000000000000a
DATA bitFoldSwap1<>+72(SB)/8, $0x000000000000000b
DATA bitFoldSwap1<>+80(SB)/8, $0x0000000000000002
DATA bitFoldSwap1<>+88(SB)/8, $0x0000000000000003
DATA bitFoldSwap1<>+96(SB)/8, $0x000000000000000e
DATA bitFoldSwap1<>+104(SB)/8, $0x000000000000000f
DATA bitFoldSwap1<>+112(SB)/8, $0x0000000000000006
DATA bitFoldSwap1<>+120(SB)/8, $0x0000000000000007
GLOBL bitFoldSwap1<>(SB), RODATA|NOPTR, $128

// bitFoldLimbs: VPERMT2Q indices interleaving the limbs L0, L1, L2 of 8 elements
// into their 24 words: for each of the 3 output registers, the L0/L1 step, then the
// L2 step.
DATA bitFoldLimbs<>+0(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+8(SB)/8, $0x0000000000000008
DATA bitFoldLimbs<>+16(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+24(SB)/8, $0x0000000000000001
DATA bitFoldLimbs<>+32(SB)/8, $0x0000000000000009
DATA bitFoldLimbs<>+40(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+48(SB)/8, $0x0000000000000002
DATA bitFoldLimbs<>+56(SB)/8, $0x000000000000000a
DATA bitFoldLimbs<>+64(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+72(SB)/8, $0x0000000000000001
DATA bitFoldLimbs<>+80(SB)/8, $0x0000000000000008
DATA bitFoldLimbs<>+88(SB)/8, $0x0000000000000003
DATA bitFoldLimbs<>+96(SB)/8, $0x0000000000000004
DATA bitFoldLimbs<>+104(SB)/8, $0x0000000000000009
DATA bitFoldLimbs<>+112(SB)/8, $0x0000000000000006
DATA bitFoldLimbs<>+120(SB)/8, $0x0000000000000007
DATA bitFoldLimbs<>+128(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+136(SB)/8, $0x0000000000000003
DATA bitFoldLimbs<>+144(SB)/8, $0x000000000000000b
DATA bitFoldLimbs<>+152(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+160(SB)/8, $0x0000000000000004
DATA bitFoldLimbs<>+168(SB)/8, $0x000000000000000c
DATA bitFoldLimbs<>+176(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+184(SB)/8, $0x0000000000000005
DATA bitFoldLimbs<>+192(SB)/8, $0x000000000000000a
DATA bitFoldLimbs<>+200(SB)/8, $0x0000000000000001
DATA bitFoldLimbs<>+208(SB)/8, $0x0000000000000002
DATA bitFoldLimbs<>+216(SB)/8, $0x000000000000000b
DATA bitFoldLimbs<>+224(SB)/8, $0x0000000000000004
DATA bitFoldLimbs<>+232(SB)/8, $0x0000000000000005
DATA bitFoldLimbs<>+240(SB)/8, $0x000000000000000c
DATA bitFoldLimbs<>+248(SB)/8, $0x0000000000000007
DATA bitFoldLimbs<>+256(SB)/8, $0x000000000000000d
DATA bitFoldLimbs<>+264(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+272(SB)/8, $0x0000000000000006
DATA bitFoldLimbs<>+280(SB)/8, $0x000000000000000e
DATA bitFoldLimbs<>+288(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+296(SB)/8, $0x0000000000000007
DATA bitFoldLimbs<>+304(SB)/8, $0x000000000000000f
DATA bitFoldLimbs<>+312(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+320(SB)/8, $0x0000000000000000
DATA bitFoldLimbs<>+328(SB)/8, $0x000000000000000d
DATA bitFoldLimbs<>+336(SB)/8, $0x0000000000000002
DATA bitFoldLimbs<>+344(SB)/8, $0x0000000000000003
DATA bitFoldLimbs<>+352(SB)/8, $0x000000000000000e
DATA bitFoldLimbs<>+360(SB)/8, $0x0000000000000005
DATA bitFoldLimbs<>+368(SB)/8, $0x0000000000000006
DATA bitFoldLimbs<>+376(SB)/8, $0x000000000000000f
GLOBL bitFoldLimbs<>(SB), RODATA|NOPTR, $384

// bitFoldSplit: the inverse, limb l of 8 elements from their 24 words X0, X1, X2:
// for each limb, the X0/X1 step, then the X2 step.
DATA bitFoldSplit<>+0(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+8(SB)/8, $0x0000000000000003
DATA bitFoldSplit<>+16(SB)/8, $0x0000000000000006
DATA bitFoldSplit<>+24(SB)/8, $0x0000000000000009
DATA bitFoldSplit<>+32(SB)/8, $0x000000000000000c
DATA bitFoldSplit<>+40(SB)/8, $0x000000000000000f
DATA bitFoldSplit<>+48(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+56(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+64(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+72(SB)/8, $0x0000000000000001
DATA bitFoldSplit<>+80(SB)/8, $0x0000000000000002
DATA bitFoldSplit<>+88(SB)/8, $0x0000000000000003
DATA bitFoldSplit<>+96(SB)/8, $0x0000000000000004
DATA bitFoldSplit<>+104(SB)/8, $0x0000000000000005
DATA bitFoldSplit<>+112(SB)/8, $0x000000000000000a
DATA bitFoldSplit<>+120(SB)/8, $0x000000000000000d
DATA bitFoldSplit<>+128(SB)/8, $0x0000000000000001
DATA bitFoldSplit<>+136(SB)/8, $0x0000000000000004
DATA bitFoldSplit<>+144(SB)/8, $0x0000000000000007
DATA bitFoldSplit<>+152(SB)/8, $0x000000000000000a
DATA bitFoldSplit<>+160(SB)/8, $0x000000000000000d
DATA bitFoldSplit<>+168(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+176(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+184(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+192(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+200(SB)/8, $0x0000000000000001
DATA bitFoldSplit<>+208(SB)/8, $0x0000000000000002
DATA bitFoldSplit<>+216(SB)/8, $0x0000000000000003
DATA bitFoldSplit<>+224(SB)/8, $0x0000000000000004
DATA bitFoldSplit<>+232(SB)/8, $0x0000000000000008
DATA bitFoldSplit<>+240(SB)/8, $0x000000000000000b
DATA bitFoldSplit<>+248(SB)/8, $0x000000000000000e
DATA bitFoldSplit<>+256(SB)/8, $0x0000000000000002
DATA bitFoldSplit<>+264(SB)/8, $0x0000000000000005
DATA bitFoldSplit<>+272(SB)/8, $0x0000000000000008
DATA bitFoldSplit<>+280(SB)/8, $0x000000000000000b
DATA bitFoldSplit<>+288(SB)/8, $0x000000000000000e
DATA bitFoldSplit<>+296(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+304(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+312(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+320(SB)/8, $0x0000000000000000
DATA bitFoldSplit<>+328(SB)/8, $0x0000000000000001
DATA bitFoldSplit<>+336(SB)/8, $0x0000000000000002
DATA bitFoldSplit<>+344(SB)/8, $0x0000000000000003
DATA bitFoldSplit<>+352(SB)/8, $0x0000000000000004
DATA bitFoldSplit<>+360(SB)/8, $0x0000000000000009
DATA bitFoldSplit<>+368(SB)/8, $0x000000000000000c
DATA bitFoldSplit<>+376(SB)/8, $0x000000000000000f
GLOBL bitFoldSplit<>(SB), RODATA|NOPTR, $384

// bitFoldPairs: VPERMT2Q indices interleaving two registers' lanes a0 b0 a1 b1 …
// (the lower four lanes of each, then the upper four).
DATA bitFoldPairs<>+0(SB)/8, $0x0000000000000000
DATA bitFoldPairs<>+8(SB)/8, $0x0000000000000008
DATA bitFoldPairs<>+16(SB)/8, $0x0000000000000001
DATA bitFoldPairs<>+24(SB)/8, $0x0000000000000009
DATA bitFoldPairs<>+32(SB)/8, $0x0000000000000002
DATA bitFoldPairs<>+40(SB)/8, $0x000000000000000a
DATA bitFoldPairs<>+48(SB)/8, $0x0000000000000003
DATA bitFoldPairs<>+56(SB)/8, $0x000000000000000b
DATA bitFoldPairs<>+64(SB)/8, $0x0000000000000004
DATA bitFoldPairs<>+72(SB)/8, $0x000000000000000c
DATA bitFoldPairs<>+80(SB)/8, $0x0000000000000005
DATA bitFoldPairs<>+88(SB)/8, $0x000000000000000d
DATA bitFoldPairs<>+96(SB)/8, $0x0000000000000006
DATA bitFoldPairs<>+104(SB)/8, $0x000000000000000e
DATA bitFoldPairs<>+112(SB)/8, $0x0000000000000007
DATA bitFoldPairs<>+120(SB)/8, $0x000000000000000f
GLOBL bitFoldPairs<>(SB), RODATA|NOPTR, $128

// TRANSPOSE8 transposes the 8x8 qword matrix in Z0..Z7 (register r, lane i) into
// (register i, lane r), left in Z8, Z9, Z2, Z3, Z12, Z13, Z6, Z7; Z16, Z17 hold
// bitFoldSwap1. Clobbers Z0..Z15.
#define TRANSPOSE8 \
	VPUNPCKLQDQ Z1, Z0, Z8 \
	VPUNPCKHQDQ Z1, Z0, Z9 \
	VPUNPCKLQDQ Z3, Z2, Z10 \
	VPUNPCKHQDQ Z3, Z2, Z11 \
	VPUNPCKLQDQ Z5, Z4, Z12 \
	VPUNPCKHQDQ Z5, Z4, Z13 \
	VPUNPCKLQDQ Z7, Z6, Z14 \
	VPUNPCKHQDQ Z7, Z6, Z15 \
	VMOVDQA64 Z8, Z0 \
	VPERMT2Q Z10, Z16, Z0 \
	VPERMT2Q Z8, Z17, Z10 \
	VMOVDQA64 Z9, Z1 \
	VPERMT2Q Z11, Z16, Z1 \
	VPERMT2Q Z9, Z17, Z11 \
	VMOVDQA64 Z12, Z4 \
	VPERMT2Q Z14, Z16, Z4 \
	VPERMT2Q Z12, Z17, Z14 \
	VMOVDQA64 Z13, Z5 \
	VPERMT2Q Z15, Z16, Z5 \
	VPERMT2Q Z13, Z17, Z15 \
	VSHUFI64X2 $0x44, Z4, Z0, Z8 \
	VSHUFI64X2 $0xEE, Z4, Z0, Z12 \
	VSHUFI64X2 $0x44, Z5, Z1, Z9 \
	VSHUFI64X2 $0xEE, Z5, Z1, Z13 \
	VSHUFI64X2 $0x44, Z14, Z10, Z2 \
	VSHUFI64X2 $0xEE, Z14, Z10, Z6 \
	VSHUFI64X2 $0x44, Z15, Z11, Z3 \
	VSHUFI64X2 $0xEE, Z15, Z11, Z7

// LIMBS writes the 24 words of 8 elements, limbs l0, l1, l2 (lane p: element p),
// to 0, 64, 128 off d; Z25..Z30 hold bitFoldLimbs. Clobbers Z3..Z5.
#define LIMBS(l0, l1, l2, d) \
	VMOVDQA64 l0, Z3 \
	VPERMT2Q l1, Z25, Z3 \
	VPERMT2Q l2, Z26, Z3 \
	VMOVDQA64 l0, Z4 \
	VPERMT2Q l1, Z27, Z4 \
	VPERMT2Q l2, Z28, Z4 \
	VMOVDQA64 l0, Z5 \
	VPERMT2Q l1, Z29, Z5 \
	VPERMT2Q l2, Z30, Z5 \
	VMOVDQU64 Z3, d \
	VMOVDQU64 Z4, 64+d \
	VMOVDQU64 Z5, 128+d

// PAIR adds column block k (8 columns) of the two groups whose x bytes are at DI and
// DI+64, weighted by their matrices at SI and SI+192, into limb accumulators a0..a2.
#define PAIR(k, a0, a1, a2) \
	VPBROADCASTQ (8*k)(DI), Z24 \
	VPBROADCASTQ (64+8*k)(DI), Z25 \
	VGF2P8AFFINEQB $0, 0(SI), Z24, Z26 \
	VGF2P8AFFINEQB $0, 192(SI), Z25, Z27 \
	VPTERNLOGQ $0x96, Z27, Z26, a0 \
	VGF2P8AFFINEQB $0, 64(SI), Z24, Z26 \
	VGF2P8AFFINEQB $0, 256(SI), Z25, Z27 \
	VPTERNLOGQ $0x96, Z27, Z26, a1 \
	VGF2P8AFFINEQB $0, 128(SI), Z24, Z26 \
	VGF2P8AFFINEQB $0, 320(SI), Z25, Z27 \
	VPTERNLOGQ $0x96, Z27, Z26, a2

// ONE is PAIR for a single group.
#define ONE(k, a0, a1, a2) \
	VPBROADCASTQ (8*k)(DI), Z24 \
	VGF2P8AFFINEQB $0, 0(SI), Z24, Z26 \
	VPXORQ Z26, a0, a0 \
	VGF2P8AFFINEQB $0, 64(SI), Z24, Z26 \
	VPXORQ Z26, a1, a1 \
	VGF2P8AFFINEQB $0, 128(SI), Z24, Z26 \
	VPXORQ Z26, a2, a2

// CONSTS loads bitFoldSwap1 into Z16, Z17.
#define CONSTS \
	VMOVDQU64 bitFoldSwap1<>(SB), Z16 \
	VMOVDQU64 bitFoldSwap1<>+64(SB), Z17

// XBYTES turns word j's register r (lane e: row e's word) into its x bytes at
// j·bitFoldTileBytes off DI: each byte position's rows gathered into a qword
// (Z28: bitFoldRows), its bits transposed (Z29: the unit bytes).
#define XBYTES(r, j) \
	VPERMB r, Z28, r \
	VGF2P8AFFINEQB $0, r, Z29, r \
	VMOVDQU64 r, (j*bitFoldTileBytes)(DI)

// func BitFoldRows(tb *byte, q *uint64, stride, nw, groups int)
TEXT ·BitFoldRows(SB), NOSPLIT, $0-40
	MOVQ tb+0(FP), DI
	MOVQ q+8(FP), AX
	MOVQ stride+16(FP), BX
	MOVQ nw+24(FP), CX
	MOVQ groups+32(FP), DX
	// K1: the nw words each row load reads.
	MOVQ $1, R8
	SHLQ CX, R8
	DECQ R8
	KMOVQ R8, K1
	LEAQ (BX)(BX*2), R9  // 3·stride
	LEAQ (BX)(BX*4), R10 // 5·stride
	LEAQ (R9)(BX*4), R11 // 7·stride
	MOVQ BX, R12
	SHLQ $3, R12         // 8·stride
	CONSTS
	VMOVDQU64 bitFoldRows<>(SB), Z28
	MOVQ $0x8040201008040201, R8
	VPBROADCASTQ R8, Z29
rows:
	// The next 8 words of these rows: the caller's next block (rows 2 KiB or more
	// apart defeat the hardware's stride prefetch).
	PREFETCHT0 64(AX)
	PREFETCHT0 64(AX)(BX*1)
	PREFETCHT0 64(AX)(BX*2)
	PREFETCHT0 64(AX)(R9*1)
	PREFETCHT0 64(AX)(BX*4)
	PREFETCHT0 64(AX)(R10*1)
	PREFETCHT0 64(AX)(R9*2)
	PREFETCHT0 64(AX)(R11*1)
	VMOVDQU64.Z (AX), K1, Z0
	VMOVDQU64.Z (AX)(BX*1), K1, Z1
	VMOVDQU64.Z (AX)(BX*2), K1, Z2
	VMOVDQU64.Z (AX)(R9*1), K1, Z3
	VMOVDQU64.Z (AX)(BX*4), K1, Z4
	VMOVDQU64.Z (AX)(R10*1), K1, Z5
	VMOVDQU64.Z (AX)(R9*2), K1, Z6
	VMOVDQU64.Z (AX)(R11*1), K1, Z7
	TRANSPOSE8
	// Word j's x bytes (byte c: x_c).
	XBYTES(Z8, 0)
	XBYTES(Z9, 1)
	XBYTES(Z2, 2)
	XBYTES(Z3, 3)
	XBYTES(Z12, 4)
	XBYTES(Z13, 5)
	XBYTES(Z6, 6)
	XBYTES(Z7, 7)
	ADDQ R12, AX
	ADDQ $64, DI
	DECQ DX
	JNZ rows
	VZEROUPPER
	RET

// func BitFoldApply(acc, tb *byte, nw, groups int, mats *uint64)
TEXT ·BitFoldApply(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), R8
	MOVQ tb+8(FP), R14
	MOVQ nw+16(FP), CX
	MOVQ groups+24(FP), DX
word:
	MOVQ R14, DI
	MOVQ mats+32(FP), SI
	VMOVDQU64 0(R8), Z0
	VMOVDQU64 64(R8), Z1
	VMOVDQU64 128(R8), Z2
	VMOVDQU64 192(R8), Z3
	VMOVDQU64 256(R8), Z4
	VMOVDQU64 320(R8), Z5
	VMOVDQU64 384(R8), Z6
	VMOVDQU64 448(R8), Z7
	VMOVDQU64 512(R8), Z8
	VMOVDQU64 576(R8), Z9
	VMOVDQU64 640(R8), Z10
	VMOVDQU64 704(R8), Z11
	VMOVDQU64 768(R8), Z12
	VMOVDQU64 832(R8), Z13
	VMOVDQU64 896(R8), Z14
	VMOVDQU64 960(R8), Z15
	VMOVDQU64 1024(R8), Z16
	VMOVDQU64 1088(R8), Z17
	VMOVDQU64 1152(R8), Z18
	VMOVDQU64 1216(R8), Z19
	VMOVDQU64 1280(R8), Z20
	VMOVDQU64 1344(R8), Z21
	VMOVDQU64 1408(R8), Z22
	VMOVDQU64 1472(R8), Z23
	MOVQ DX, R13
	SHRQ $1, R13
	JZ single
pairs:
	PAIR(0, Z0, Z1, Z2)
	PAIR(1, Z3, Z4, Z5)
	PAIR(2, Z6, Z7, Z8)
	PAIR(3, Z9, Z10, Z11)
	PAIR(4, Z12, Z13, Z14)
	PAIR(5, Z15, Z16, Z17)
	PAIR(6, Z18, Z19, Z20)
	PAIR(7, Z21, Z22, Z23)
	ADDQ $128, DI
	ADDQ $384, SI
	DECQ R13
	JNZ pairs
single:
	TESTQ $1, DX
	JZ store
	ONE(0, Z0, Z1, Z2)
	ONE(1, Z3, Z4, Z5)
	ONE(2, Z6, Z7, Z8)
	ONE(3, Z9, Z10, Z11)
	ONE(4, Z12, Z13, Z14)
	ONE(5, Z15, Z16, Z17)
	ONE(6, Z18, Z19, Z20)
	ONE(7, Z21, Z22, Z23)
store:
	VMOVDQU64 Z0, 0(R8)
	VMOVDQU64 Z1, 64(R8)
	VMOVDQU64 Z2, 128(R8)
	VMOVDQU64 Z3, 192(R8)
	VMOVDQU64 Z4, 256(R8)
	VMOVDQU64 Z5, 320(R8)
	VMOVDQU64 Z6, 384(R8)
	VMOVDQU64 Z7, 448(R8)
	VMOVDQU64 Z8, 512(R8)
	VMOVDQU64 Z9, 576(R8)
	VMOVDQU64 Z10, 640(R8)
	VMOVDQU64 Z11, 704(R8)
	VMOVDQU64 Z12, 768(R8)
	VMOVDQU64 Z13, 832(R8)
	VMOVDQU64 Z14, 896(R8)
	VMOVDQU64 Z15, 960(R8)
	VMOVDQU64 Z16, 1024(R8)
	VMOVDQU64 Z17, 1088(R8)
	VMOVDQU64 Z18, 1152(R8)
	VMOVDQU64 Z19, 1216(R8)
	VMOVDQU64 Z20, 1280(R8)
	VMOVDQU64 Z21, 1344(R8)
	VMOVDQU64 Z22, 1408(R8)
	VMOVDQU64 Z23, 1472(R8)
	ADDQ $1536, R8
	ADDQ $bitFoldTileBytes, R14
	DECQ CX
	JNZ word
	VZEROUPPER
	RET

// func BitFoldOut(dst *uint64, acc *byte, nw int)
TEXT ·BitFoldOut(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ nw+16(FP), CX
	SHLQ $3, CX // blocks of 8 columns
	VMOVDQU64 bitFoldBytes<>(SB), Z24
	VMOVDQU64 bitFoldLimbs<>+0(SB), Z25
	VMOVDQU64 bitFoldLimbs<>+64(SB), Z26
	VMOVDQU64 bitFoldLimbs<>+128(SB), Z27
	VMOVDQU64 bitFoldLimbs<>+192(SB), Z28
	VMOVDQU64 bitFoldLimbs<>+256(SB), Z29
	VMOVDQU64 bitFoldLimbs<>+320(SB), Z30
out:
	VPERMB 0(SI), Z24, Z0
	VPERMB 64(SI), Z24, Z1
	VPERMB 128(SI), Z24, Z2
	LIMBS(Z0, Z1, Z2, 0(DI))
	ADDQ $192, SI
	ADDQ $192, DI
	DECQ CX
	JNZ out
	VZEROUPPER
	RET

// func BitFoldOutPairs(dst *uint64, acc0, acc1 *byte)
TEXT ·BitFoldOutPairs(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ acc0+8(FP), SI
	MOVQ acc1+16(FP), DX
	MOVQ $8, CX
	VMOVDQU64 bitFoldBytes<>(SB), Z24
	VMOVDQU64 bitFoldLimbs<>+0(SB), Z25
	VMOVDQU64 bitFoldLimbs<>+64(SB), Z26
	VMOVDQU64 bitFoldLimbs<>+128(SB), Z27
	VMOVDQU64 bitFoldLimbs<>+192(SB), Z28
	VMOVDQU64 bitFoldLimbs<>+256(SB), Z29
	VMOVDQU64 bitFoldLimbs<>+320(SB), Z30
	VMOVDQU64 bitFoldPairs<>(SB), Z22
	VMOVDQU64 bitFoldPairs<>+64(SB), Z23
pairsout:
	// Limb l of columns 8k+p (lane p) for the two folds: Z0..Z2 and Z6..Z8.
	VPERMB 0(SI), Z24, Z0
	VPERMB 64(SI), Z24, Z1
	VPERMB 128(SI), Z24, Z2
	VPERMB 0(DX), Z24, Z6
	VPERMB 64(DX), Z24, Z7
	VPERMB 128(DX), Z24, Z8
	VMOVDQA64 Z0, Z9
	VPERMT2Q Z6, Z22, Z9
	VMOVDQA64 Z0, Z12
	VPERMT2Q Z6, Z23, Z12
	VMOVDQA64 Z1, Z10
	VPERMT2Q Z7, Z22, Z10
	VMOVDQA64 Z1, Z13
	VPERMT2Q Z7, Z23, Z13
	VMOVDQA64 Z2, Z11
	VPERMT2Q Z8, Z22, Z11
	VMOVDQA64 Z2, Z14
	VPERMT2Q Z8, Z23, Z14
	LIMBS(Z9, Z10, Z11, 0(DI))
	LIMBS(Z12, Z13, Z14, 192(DI))
	ADDQ $192, SI
	ADDQ $192, DX
	ADDQ $384, DI
	DECQ CX
	JNZ pairsout
	VZEROUPPER
	RET

// func BytePlanes(tb *byte, src *uint64)
TEXT ·BytePlanes(SB), NOSPLIT, $0-16
	MOVQ tb+0(FP), DI
	MOVQ src+8(FP), SI
	CONSTS
	VMOVDQU64 bitFoldBytes<>(SB), Z24
	VMOVDQU64 bitFoldSplit<>+0(SB), Z25
	VMOVDQU64 bitFoldSplit<>+64(SB), Z26
	VMOVDQU64 bitFoldSplit<>+128(SB), Z27
	VMOVDQU64 bitFoldSplit<>+192(SB), Z28
	VMOVDQU64 bitFoldSplit<>+256(SB), Z29
	VMOVDQU64 bitFoldSplit<>+320(SB), Z30
	// Each block of 8 elements: its limbs (lane p: element 8k+p), bytes
	// transposed (lane b: byte b of each), kept at tb + 512·l + 64·k.
	MOVQ $8, CX
	MOVQ DI, R8
split:
	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQA64 Z0, Z3
	VPERMT2Q Z1, Z25, Z3
	VPERMT2Q Z2, Z26, Z3
	VPERMB Z3, Z24, Z3
	VMOVDQU64 Z3, 0(R8)
	VMOVDQA64 Z0, Z4
	VPERMT2Q Z1, Z27, Z4
	VPERMT2Q Z2, Z28, Z4
	VPERMB Z4, Z24, Z4
	VMOVDQU64 Z4, 512(R8)
	VMOVDQA64 Z0, Z5
	VPERMT2Q Z1, Z29, Z5
	VPERMT2Q Z2, Z30, Z5
	VPERMB Z5, Z24, Z5
	VMOVDQU64 Z5, 1024(R8)
	ADDQ $192, SI
	ADDQ $64, R8
	DECQ CX
	JNZ split
	// Each limb's 8 blocks: (block k, lane b) to (byte b, lane k), plane 8l+b.
	MOVQ $3, CX
planes:
	VMOVDQU64 0(DI), Z0
	VMOVDQU64 64(DI), Z1
	VMOVDQU64 128(DI), Z2
	VMOVDQU64 192(DI), Z3
	VMOVDQU64 256(DI), Z4
	VMOVDQU64 320(DI), Z5
	VMOVDQU64 384(DI), Z6
	VMOVDQU64 448(DI), Z7
	TRANSPOSE8
	VMOVDQU64 Z8, 0(DI)
	VMOVDQU64 Z9, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	VMOVDQU64 Z12, 256(DI)
	VMOVDQU64 Z13, 320(DI)
	VMOVDQU64 Z6, 384(DI)
	VMOVDQU64 Z7, 448(DI)
	ADDQ $512, DI
	DECQ CX
	JNZ planes
	VZEROUPPER
	RET

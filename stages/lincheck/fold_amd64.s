//go:build !purego

#include "textflag.h"

// TRANSPOSE8 turns the low words of X0..X7 (rows e) into Y0 (bytes 0..3 of each
// row) and Y2 (bytes 4..7): byte 8b+e of the pair is byte b of row e.
#define TRANSPOSE8 \
	VPUNPCKLBW X1, X0, X8 \
	VPUNPCKLBW X3, X2, X9 \
	VPUNPCKLBW X5, X4, X10 \
	VPUNPCKLBW X7, X6, X11 \
	VPUNPCKLWD X9, X8, X12 \
	VPUNPCKHWD X9, X8, X13 \
	VPUNPCKLWD X11, X10, X14 \
	VPUNPCKHWD X11, X10, X15 \
	VPUNPCKLDQ X14, X12, X0 \
	VPUNPCKHDQ X14, X12, X1 \
	VPUNPCKLDQ X15, X13, X2 \
	VPUNPCKHDQ X15, X13, X3 \
	VINSERTI128 $1, X1, Y0, Y0 \
	VINSERTI128 $1, X3, Y2, Y2

// MASKS stores, for p = 0..7, the top bits of the bytes of y shifted up by 7-p
// (bit p of every byte) as a 32-bit mask at buf offset o_p.
#define MASKS(y, o0, o1, o2, o3, o4, o5, o6, o7) \
	VPSLLW $7, y, Y4 \
	VPMOVMSKB Y4, R9 \
	MOVL R9, o0(AX) \
	VPSLLW $6, y, Y4 \
	VPMOVMSKB Y4, R9 \
	MOVL R9, o1(AX) \
	VPSLLW $5, y, Y4 \
	VPMOVMSKB Y4, R9 \
	MOVL R9, o2(AX) \
	VPSLLW $4, y, Y4 \
	VPMOVMSKB Y4, R9 \
	MOVL R9, o3(AX) \
	VPSLLW $3, y, Y4 \
	VPMOVMSKB Y4, R9 \
	MOVL R9, o4(AX) \
	VPSLLW $2, y, Y4 \
	VPMOVMSKB Y4, R9 \
	MOVL R9, o5(AX) \
	VPSLLW $1, y, Y4 \
	VPMOVMSKB Y4, R9 \
	MOVL R9, o6(AX) \
	VPMOVMSKB y, R9 \
	MOVL R9, o7(AX)

// COLUMN adds tab[0][buf[o0]] + … + tab[3][buf[o3]] into the element at d(DI)
// (d2 = d + 16 addresses its third limb).
#define COLUMN(o0, o1, o2, o3, d, d2) \
	MOVBQZX o0(AX), R9 \
	LEAQ (R9)(R9*2), R9 \
	VMOVDQU 0(SI)(R9*8), Y0 \
	MOVBQZX o1(AX), R10 \
	LEAQ (R10)(R10*2), R10 \
	VPXOR 6144(SI)(R10*8), Y0, Y0 \
	MOVBQZX o2(AX), R11 \
	LEAQ (R11)(R11*2), R11 \
	VPXOR 12288(SI)(R11*8), Y0, Y0 \
	MOVBQZX o3(AX), R12 \
	LEAQ (R12)(R12*2), R12 \
	VPXOR 18432(SI)(R12*8), Y0, Y0 \
	VPXOR d(DI), X0, X1 \
	VMOVDQU X1, d(DI) \
	VEXTRACTI128 $1, Y0, X2 \
	VMOVQ X2, R13 \
	XORQ R13, d2(DI)

// func foldTileAVX2(out *field.E, q *field.K, stride, count int, tab *foldTables, buf *[256]byte)
//
// For count words j (q advancing one word, out 64 elements per word) and the
// four 8-slot groups of a tile (slot rows at q + r·stride bytes, r < 32), adds
// Σ_k tab[k][mask_k(i)] into out[64·j + i], mask_k(i) holding bit i of the 8
// words of group k. A word whose 32 slot words are all zero is skipped. The
// masks go through buf: entry (k, h, p, b) at 64k + 32h + 4p + b is the mask of
// column 8(4h+b) + p. Tables are read with 32-byte loads of 24-byte entries
// (foldTables carries the padding); pointers need no alignment.
TEXT ·foldTileAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ q+8(FP), BX
	MOVQ stride+16(FP), DX
	MOVQ count+24(FP), CX
	MOVQ tab+32(FP), SI
	MOVQ buf+40(FP), AX
word:
	// Zero test over the 32 slot words.
	MOVQ BX, R8
	XORQ R10, R10
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	ADDQ DX, R8
	ORQ (R8), R10
	TESTQ R10, R10
	JZ next
	MOVQ BX, R8
	// group 0: byte transpose, then one movemask per bit
	VMOVQ (R8), X0
	ADDQ DX, R8
	VMOVQ (R8), X1
	ADDQ DX, R8
	VMOVQ (R8), X2
	ADDQ DX, R8
	VMOVQ (R8), X3
	ADDQ DX, R8
	VMOVQ (R8), X4
	ADDQ DX, R8
	VMOVQ (R8), X5
	ADDQ DX, R8
	VMOVQ (R8), X6
	ADDQ DX, R8
	VMOVQ (R8), X7
	ADDQ DX, R8
	TRANSPOSE8
	MASKS(Y0, 0, 4, 8, 12, 16, 20, 24, 28)
	MASKS(Y2, 32, 36, 40, 44, 48, 52, 56, 60)
	// group 1: byte transpose, then one movemask per bit
	VMOVQ (R8), X0
	ADDQ DX, R8
	VMOVQ (R8), X1
	ADDQ DX, R8
	VMOVQ (R8), X2
	ADDQ DX, R8
	VMOVQ (R8), X3
	ADDQ DX, R8
	VMOVQ (R8), X4
	ADDQ DX, R8
	VMOVQ (R8), X5
	ADDQ DX, R8
	VMOVQ (R8), X6
	ADDQ DX, R8
	VMOVQ (R8), X7
	ADDQ DX, R8
	TRANSPOSE8
	MASKS(Y0, 64, 68, 72, 76, 80, 84, 88, 92)
	MASKS(Y2, 96, 100, 104, 108, 112, 116, 120, 124)
	// group 2: byte transpose, then one movemask per bit
	VMOVQ (R8), X0
	ADDQ DX, R8
	VMOVQ (R8), X1
	ADDQ DX, R8
	VMOVQ (R8), X2
	ADDQ DX, R8
	VMOVQ (R8), X3
	ADDQ DX, R8
	VMOVQ (R8), X4
	ADDQ DX, R8
	VMOVQ (R8), X5
	ADDQ DX, R8
	VMOVQ (R8), X6
	ADDQ DX, R8
	VMOVQ (R8), X7
	ADDQ DX, R8
	TRANSPOSE8
	MASKS(Y0, 128, 132, 136, 140, 144, 148, 152, 156)
	MASKS(Y2, 160, 164, 168, 172, 176, 180, 184, 188)
	// group 3: byte transpose, then one movemask per bit
	VMOVQ (R8), X0
	ADDQ DX, R8
	VMOVQ (R8), X1
	ADDQ DX, R8
	VMOVQ (R8), X2
	ADDQ DX, R8
	VMOVQ (R8), X3
	ADDQ DX, R8
	VMOVQ (R8), X4
	ADDQ DX, R8
	VMOVQ (R8), X5
	ADDQ DX, R8
	VMOVQ (R8), X6
	ADDQ DX, R8
	VMOVQ (R8), X7
	TRANSPOSE8
	MASKS(Y0, 192, 196, 200, 204, 208, 212, 216, 220)
	MASKS(Y2, 224, 228, 232, 236, 240, 244, 248, 252)
	// 64 columns: four lookups each, one update of out
	COLUMN(0, 64, 128, 192, 0, 16)
	COLUMN(4, 68, 132, 196, 24, 40)
	COLUMN(8, 72, 136, 200, 48, 64)
	COLUMN(12, 76, 140, 204, 72, 88)
	COLUMN(16, 80, 144, 208, 96, 112)
	COLUMN(20, 84, 148, 212, 120, 136)
	COLUMN(24, 88, 152, 216, 144, 160)
	COLUMN(28, 92, 156, 220, 168, 184)
	COLUMN(1, 65, 129, 193, 192, 208)
	COLUMN(5, 69, 133, 197, 216, 232)
	COLUMN(9, 73, 137, 201, 240, 256)
	COLUMN(13, 77, 141, 205, 264, 280)
	COLUMN(17, 81, 145, 209, 288, 304)
	COLUMN(21, 85, 149, 213, 312, 328)
	COLUMN(25, 89, 153, 217, 336, 352)
	COLUMN(29, 93, 157, 221, 360, 376)
	COLUMN(2, 66, 130, 194, 384, 400)
	COLUMN(6, 70, 134, 198, 408, 424)
	COLUMN(10, 74, 138, 202, 432, 448)
	COLUMN(14, 78, 142, 206, 456, 472)
	COLUMN(18, 82, 146, 210, 480, 496)
	COLUMN(22, 86, 150, 214, 504, 520)
	COLUMN(26, 90, 154, 218, 528, 544)
	COLUMN(30, 94, 158, 222, 552, 568)
	COLUMN(3, 67, 131, 195, 576, 592)
	COLUMN(7, 71, 135, 199, 600, 616)
	COLUMN(11, 75, 139, 203, 624, 640)
	COLUMN(15, 79, 143, 207, 648, 664)
	COLUMN(19, 83, 147, 211, 672, 688)
	COLUMN(23, 87, 151, 215, 696, 712)
	COLUMN(27, 91, 155, 219, 720, 736)
	COLUMN(31, 95, 159, 223, 744, 760)
	COLUMN(32, 96, 160, 224, 768, 784)
	COLUMN(36, 100, 164, 228, 792, 808)
	COLUMN(40, 104, 168, 232, 816, 832)
	COLUMN(44, 108, 172, 236, 840, 856)
	COLUMN(48, 112, 176, 240, 864, 880)
	COLUMN(52, 116, 180, 244, 888, 904)
	COLUMN(56, 120, 184, 248, 912, 928)
	COLUMN(60, 124, 188, 252, 936, 952)
	COLUMN(33, 97, 161, 225, 960, 976)
	COLUMN(37, 101, 165, 229, 984, 1000)
	COLUMN(41, 105, 169, 233, 1008, 1024)
	COLUMN(45, 109, 173, 237, 1032, 1048)
	COLUMN(49, 113, 177, 241, 1056, 1072)
	COLUMN(53, 117, 181, 245, 1080, 1096)
	COLUMN(57, 121, 185, 249, 1104, 1120)
	COLUMN(61, 125, 189, 253, 1128, 1144)
	COLUMN(34, 98, 162, 226, 1152, 1168)
	COLUMN(38, 102, 166, 230, 1176, 1192)
	COLUMN(42, 106, 170, 234, 1200, 1216)
	COLUMN(46, 110, 174, 238, 1224, 1240)
	COLUMN(50, 114, 178, 242, 1248, 1264)
	COLUMN(54, 118, 182, 246, 1272, 1288)
	COLUMN(58, 122, 186, 250, 1296, 1312)
	COLUMN(62, 126, 190, 254, 1320, 1336)
	COLUMN(35, 99, 163, 227, 1344, 1360)
	COLUMN(39, 103, 167, 231, 1368, 1384)
	COLUMN(43, 107, 171, 235, 1392, 1408)
	COLUMN(47, 111, 175, 239, 1416, 1432)
	COLUMN(51, 115, 179, 243, 1440, 1456)
	COLUMN(55, 119, 183, 247, 1464, 1480)
	COLUMN(59, 123, 187, 251, 1488, 1504)
	COLUMN(63, 127, 191, 255, 1512, 1528)
next:
	ADDQ $8, BX
	ADDQ $1536, DI
	DECQ CX
	JNZ word
	VZEROUPPER
	RET

//go:build !purego

#include "textflag.h"
#include "walk_amd64.h"

// The bilinear walk's kernel (bilinearGo's twin). Every step decodes its
// instruction (op bits 0..1, dst bits 2..25, column bits 26..49 or registers x
// bits 26..44 and y bits 45..63; a register is 32 bytes, so the register offsets
// are the fields shifted left by 5) and:
//   opXor: r[dst] = r[x] ^ r[y] (one 256-bit load, XOR and store)
//   opCol: r[dst] = cols[col - cbase], or low[col] (state offsets 104, 112)
//          outside [cbase, cbase+cn), or cols2[col - cbase2] (offsets 120..136)
//          outside both, or exit 1 outside all three
//   opRow: rowsA[i] = r[x], rowsB[i] = r[y], rtag[i] = dst for i = dst - rbase,
//          and rcnt (state offset 96, kept in R15) += 1; outside [rbase,
//          rbase+rn) the same into the back window rowsA2, rowsB2, rtag2 at
//          dst - rbase2 (offsets 144..176) and rcnt2 (offset 184, in memory)
//          += 1; exit 2 outside both
// Column and row windows hold 24-byte E values, slot i at byte 24i. A column
// load reads 32 bytes, so each column window is followed by 8 readable bytes,
// which land in the register's padding.
//
// Registers: BX the state, SI the step, CX the end of the code, DI the register
// file, R12 cbase, R13 the column window, R14 cn, R8 the instruction, R9 dst, R10
// x or the window index, R11 y, R15 the row count, AX and DX scratch.

// DISPATCH ends every step's handler (threaded code: each handler's branches
// learn what follows its own op): it stops at the end of the code, loads the
// next instruction into R8 and jumps to its op's handler (walk_amd64.h).
#define DISPATCH \
	CMPQ SI, CX \
	JEQ  done \
	WALK_FETCH(1024) \
	OP_JUMP(xor, row, col)

// ROW_WINDOW is opRow's handler for one row window, whose fields in the state are
// at offsets base and n (its first row and length), tag, a and b (the tag, A and B
// pointers): at i = R9 - base it stores the tag R9 and the E values of r[x] and
// r[y], adds 1 to cnt, advances SI and dispatches; it jumps to miss, with nothing
// stored, when R9 is outside [base, base+n). Clobbers AX, DX, R10, R11, X0, X1.
#define ROW_WINDOW(base, n, tag, a, b, cnt, miss) \
	MOVQ R9, DX \
	SUBQ base(BX), DX \
	CMPQ DX, n(BX) \
	JCC  miss \
	MOVQ tag(BX), AX \
	MOVL R9, (AX)(DX*4) \
	INCQ cnt \
	INS_XY(5) \
	LEAQ (DX)(DX*2), DX \
	MOVQ a(BX), AX \
	E24_COPY((DI)(R10*1), (AX)(DX*8)) \
	MOVQ b(BX), AX \
	E24_COPY((DI)(R11*1), (AX)(DX*8)) \
	ADDQ $8, SI \
	DISPATCH

// COL_WINDOW loads column R10 (already made relative to a window's base) from the
// window whose length and pointer are at state offsets n and p, and stores it by
// way of colstore; it jumps to miss when R10 is not below the length. Clobbers AX,
// R10, Y0.
#define COL_WINDOW(n, p, miss) \
	CMPQ    R10, n(BX) \
	JCC     miss \
	LEAQ    (R10)(R10*2), R10 \
	MOVQ    p(BX), AX \
	VMOVDQU (AX)(R10*8), Y0 \
	JMP     colstore

// func bilinearAVX2(st *bilinearState) int
TEXT ·bilinearAVX2(SB), NOSPLIT, $0-16
	MOVQ st+0(FP), BX
	MOVQ 0(BX), SI
	MOVQ 8(BX), CX
	LEAQ (SI)(CX*8), CX
	MOVQ 16(BX), AX
	LEAQ (SI)(AX*8), SI
	MOVQ 24(BX), DI
	MOVQ 32(BX), R13
	MOVQ 40(BX), R12
	MOVQ 48(BX), R14
	MOVQ 96(BX), R15
	DISPATCH

xor:
	INS_XY(5)
	INS_DST(5)
	REG_XOR(Y0)
	ADDQ $8, SI
	DISPATCH

col:
	INS_COL(0)
	SUBQ    R12, R10
	CMPQ    R10, R14
	JCC     colmiss
	LEAQ    (R10)(R10*2), R10
	VMOVDQU (R13)(R10*8), Y0

colstore:
	INS_DST(5)
	VMOVDQU Y0, (DI)(R9*1)
	ADDQ    $8, SI
	DISPATCH

row:
	INS_ROW
	ROW_WINDOW(80, 88, 72, 56, 64, R15, rowmiss)

colmiss:
	ADDQ R12, R10
	COL_WINDOW(112, 104, colback)

colback:
	SUBQ 128(BX), R10
	COL_WINDOW(136, 120, colexit)

colexit:
	MOVQ $1, AX
	JMP  exit

rowmiss:
	ROW_WINDOW(168, 176, 160, 144, 152, 184(BX), rowexit)

rowexit:
	MOVQ $2, AX
	JMP  exit

done:
	XORQ AX, AX

exit:
	MOVQ R15, 96(BX)
	SUBQ 0(BX), SI
	SHRQ $3, SI
	MOVQ SI, 16(BX)
	VZEROUPPER
	MOVQ AX, ret+8(FP)
	RET

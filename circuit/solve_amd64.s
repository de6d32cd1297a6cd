//go:build !purego

#include "textflag.h"

// The walk of SolveMany for g = 4 (ymm) and g = 2 (xmm) bit-sliced vectors. Every
// step decodes its instruction (op bits 0..1, dst bits 2..25, column bits 26..49
// or registers x bits 26..44 and y bits 45..63) and:
//   opCol: r[dst] = (w[0][col], …, w[g-1][col])
//   opXor: r[dst] = r[x] ^ r[y]
//   opRow: w[k][dst] = r[x][k] & r[y][k], a[k][dst] = r[x][k], b[k][dst] = r[y][k]
// Register i of the file r is the g words at r + i·8g.
//
// Registers: SI code, CX steps left, DI r, R12 &w, R13 &a, BX &b, R8 the
// instruction, R9 dst, R10 x or col, R11 y, AX and DX scratch.

#define DECODE \
	PREFETCHNTA 1024(SI) \
	MOVQ (SI), R8 \
	ADDQ $8, SI \
	MOVQ R8, R9 \
	SHRQ $2, R9 \
	ANDQ $0xFFFFFF, R9 \
	MOVQ R8, AX \
	ANDQ $3, AX

#define OPERANDS \
	MOVQ R8, R10 \
	SHRQ $26, R10 \
	ANDQ $0x7FFFF, R10 \
	MOVQ R8, R11 \
	SHRQ $45, R11

// STORE writes the lane spilled at soff(SP) to row R9 of the vector whose pointer
// is at poff(P).
#define STORE(P, poff, soff) \
	MOVQ poff(P), AX \
	MOVQ soff(SP), DX \
	MOVQ DX, (AX)(R9*8)

// COL loads column R10 of the vector whose pointer is at off(R12) into lane off/8
// of register R9 (a byte offset).
#define COL(off) \
	MOVQ off(R12), AX \
	MOVQ (AX)(R10*8), DX \
	MOVQ DX, off(DI)(R9*1)

// func solveWalk4AVX2(code *instr, n int, r *uint64, w, a, b *[4]*uint64)
TEXT ·solveWalk4AVX2(SB), NOSPLIT, $96-48
	MOVQ code+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r+16(FP), DI
	MOVQ w+24(FP), R12
	MOVQ a+32(FP), R13
	MOVQ b+40(FP), BX
	TESTQ CX, CX
	JZ done4

loop4:
	DECODE
	CMPQ AX, $1
	JEQ xor4
	JGT row4
	// opCol
	MOVQ R8, R10
	SHRQ $26, R10
	ANDQ $0xFFFFFF, R10
	SHLQ $5, R9
	COL(0)
	COL(8)
	COL(16)
	COL(24)
	DECQ CX
	JNZ loop4
	JMP done4

xor4:
	OPERANDS
	SHLQ $5, R9
	SHLQ $5, R10
	SHLQ $5, R11
	VMOVDQU (DI)(R10*1), Y0
	VPXOR (DI)(R11*1), Y0, Y0
	VMOVDQU Y0, (DI)(R9*1)
	DECQ CX
	JNZ loop4
	JMP done4

row4:
	OPERANDS
	SHLQ $5, R10
	SHLQ $5, R11
	VMOVDQU (DI)(R10*1), Y0
	VMOVDQU (DI)(R11*1), Y1
	VPAND Y1, Y0, Y2
	VMOVDQU Y2, 0(SP)
	VMOVDQU Y0, 32(SP)
	VMOVDQU Y1, 64(SP)
	STORE(R12, 0, 0)
	STORE(R12, 8, 8)
	STORE(R12, 16, 16)
	STORE(R12, 24, 24)
	STORE(R13, 0, 32)
	STORE(R13, 8, 40)
	STORE(R13, 16, 48)
	STORE(R13, 24, 56)
	STORE(BX, 0, 64)
	STORE(BX, 8, 72)
	STORE(BX, 16, 80)
	STORE(BX, 24, 88)
	DECQ CX
	JNZ loop4

done4:
	VZEROUPPER
	RET

// func solveWalk2AVX2(code *instr, n int, r *uint64, w, a, b *[4]*uint64)
TEXT ·solveWalk2AVX2(SB), NOSPLIT, $96-48
	MOVQ code+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r+16(FP), DI
	MOVQ w+24(FP), R12
	MOVQ a+32(FP), R13
	MOVQ b+40(FP), BX
	TESTQ CX, CX
	JZ done2

loop2:
	DECODE
	CMPQ AX, $1
	JEQ xor2
	JGT row2
	// opCol
	MOVQ R8, R10
	SHRQ $26, R10
	ANDQ $0xFFFFFF, R10
	SHLQ $4, R9
	COL(0)
	COL(8)
	DECQ CX
	JNZ loop2
	JMP done2

xor2:
	OPERANDS
	SHLQ $4, R9
	SHLQ $4, R10
	SHLQ $4, R11
	VMOVDQU (DI)(R10*1), X0
	VPXOR (DI)(R11*1), X0, X0
	VMOVDQU X0, (DI)(R9*1)
	DECQ CX
	JNZ loop2
	JMP done2

row2:
	OPERANDS
	SHLQ $4, R10
	SHLQ $4, R11
	VMOVDQU (DI)(R10*1), X0
	VMOVDQU (DI)(R11*1), X1
	VPAND X1, X0, X2
	VMOVDQU X2, 0(SP)
	VMOVDQU X0, 32(SP)
	VMOVDQU X1, 64(SP)
	STORE(R12, 0, 0)
	STORE(R12, 8, 8)
	STORE(R13, 0, 32)
	STORE(R13, 8, 40)
	STORE(BX, 0, 64)
	STORE(BX, 8, 72)
	DECQ CX
	JNZ loop2

done2:
	VZEROUPPER
	RET

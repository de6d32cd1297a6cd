//go:build !purego

#include "textflag.h"
#include "walk_amd64.h"

// The walk of SolveMany for g = 4 (ymm), g = 2 (xmm) and g = 1 bit-sliced vectors. Every
// step decodes its instruction (op bits 0..1, dst bits 2..25, column bits 26..49
// or registers x bits 26..44 and y bits 45..63) and:
//   opCol: r[dst] = (w[0][col], …, w[g-1][col])
//   opXor: r[dst] = r[x] ^ r[y]
//   opRow: w[k][dst] = r[x][k] & r[y][k], a[k][dst] = r[x][k], b[k][dst] = r[y][k]
// Register i of the file r is the g words at r + i·8g.
//
// Both walks dispatch each step straight from the one before (threaded, as the
// bilinear walk does): DISPATCH stops at the end of the code, loads the
// instruction into R8, steps SI on and jumps to its op's handler (walk_amd64.h).
// SI is the step, CX the end of the code, DI r; R8 the instruction, R9 dst, R10 x
// or the column, R11 y, AX scratch. Column and row offsets are the fields
// shifted left by 3.
#define DISPATCH(done, xor, row, col) \
	CMPQ SI, CX \
	JEQ  done \
	WALK_FETCH(1024) \
	ADDQ $8, SI \
	OP_JUMP(xor, row, col)

// SOLVE_ARGS loads the arguments every walk shares: SI the code, CX its end, DI the
// register file.
#define SOLVE_ARGS \
	MOVQ code+0(FP), SI \
	MOVQ n+8(FP), CX \
	LEAQ (SI)(CX*8), CX \
	MOVQ r+16(FP), DI

// LOAD2 loads column R10 of the vectors at p0 and p1 into the two lanes of x.
#define LOAD2(x, p0, p1) \
	VMOVQ   (p0)(R10*1), x \
	VPINSRQ $1, (p1)(R10*1), x, x

// STORE2 stores the two lanes of x to row R9 of the vectors at p0 and p1.
#define STORE2(x, p0, p1) \
	VMOVQ   x, (p0)(R9*1) \
	VPEXTRQ $1, x, (p1)(R9*1)

// ROW_AND starts opRow: R9 = the row·8, R10 = x<<lg, R11 = y<<lg; it loads r[x]
// into A and r[y] into B, sets W = A & B and stores W's low two lanes (Wx, W's
// low half or W itself) to the row of w[0] and w[1] (R12, R13).
#define ROW_AND(lg, A, B, W, Wx) \
	INS_DST(3) \
	INS_XY(lg) \
	VMOVDQU (DI)(R10*1), A \
	VMOVDQU (DI)(R11*1), B \
	VPAND   B, A, W \
	STORE2(Wx, R12, R13)

// The g = 4 walk keeps the four w pointers in registers (R12–R15); the a and b
// pointers are read from their arrays (DX, BX) when a row stores. A register is
// 32 bytes, so register offsets are the fields shifted left by 5.
#define DISPATCH4 DISPATCH(done4, xor4, row4, col4)

// STORE4(y, x, p) stores the four lanes of y (x its low half) to row R9 of the
// vectors whose pointers are at p; clobbers AX and X3.
#define STORE4(y, x, p) \
	MOVQ         0(p), AX \
	VMOVQ        x, (AX)(R9*1) \
	MOVQ         8(p), AX \
	VPEXTRQ      $1, x, (AX)(R9*1) \
	VEXTRACTI128 $1, y, X3 \
	MOVQ         16(p), AX \
	VMOVQ        X3, (AX)(R9*1) \
	MOVQ         24(p), AX \
	VPEXTRQ      $1, X3, (AX)(R9*1)

// func solveWalk4AVX2(code *instr, n int, r *uint64, w, a, b *[4]*uint64)
TEXT ·solveWalk4AVX2(SB), NOSPLIT, $0-48
	SOLVE_ARGS
	MOVQ w+24(FP), AX
	MOVQ 0(AX), R12
	MOVQ 8(AX), R13
	MOVQ 16(AX), R14
	MOVQ 24(AX), R15
	MOVQ a+32(FP), DX
	MOVQ b+40(FP), BX
	DISPATCH4

xor4:
	INS_DST(5)
	INS_XY(5)
	REG_XOR(Y0)
	DISPATCH4

col4:
	INS_DST(5)
	INS_COL(3)
	LOAD2(X0, R12, R13)
	LOAD2(X1, R14, R15)
	VINSERTI128 $1, X1, Y0, Y0
	VMOVDQU     Y0, (DI)(R9*1)
	DISPATCH4

row4:
	ROW_AND(5, Y0, Y1, Y2, X2)
	VEXTRACTI128 $1, Y2, X3
	STORE2(X3, R14, R15)
	STORE4(Y0, X0, DX)
	STORE4(Y1, X1, BX)
	DISPATCH4

done4:
	VZEROUPPER
	RET

// The g = 2 walk keeps the six vector pointers in registers: R12, R13 w[0], w[1];
// R14, R15 a[0], a[1]; BX, DX b[0], b[1]. A register is 16 bytes, so register
// offsets are the fields shifted left by 4.
#define DISPATCH2 DISPATCH(done2, xor2, row2, col2)

// func solveWalk2AVX2(code *instr, n int, r *uint64, w, a, b *[4]*uint64)
TEXT ·solveWalk2AVX2(SB), NOSPLIT, $0-48
	SOLVE_ARGS
	MOVQ w+24(FP), AX
	MOVQ 0(AX), R12
	MOVQ 8(AX), R13
	MOVQ a+32(FP), AX
	MOVQ 0(AX), R14
	MOVQ 8(AX), R15
	MOVQ b+40(FP), AX
	MOVQ 0(AX), BX
	MOVQ 8(AX), DX
	DISPATCH2

xor2:
	INS_DST(4)
	INS_XY(4)
	REG_XOR(X0)
	DISPATCH2

col2:
	INS_DST(4)
	INS_COL(3)
	LOAD2(X0, R12, R13)
	VMOVDQU X0, (DI)(R9*1)
	DISPATCH2

row2:
	ROW_AND(4, X0, X1, X2, X2)
	STORE2(X0, R14, R15)
	STORE2(X1, BX, DX)
	DISPATCH2

done2:
	VZEROUPPER
	RET

// The g = 1 walk: a register is one word, moved in general registers (no vector
// instruction), and register offsets are the fields shifted left by 3. R12 is w[0],
// R13 a[0], R14 b[0]; AX and DX are scratch.
#define DISPATCH1 DISPATCH(done1, xor1, row1, col1)

// func solveWalk1(code *instr, n int, r *uint64, w, a, b *[4]*uint64)
TEXT ·solveWalk1(SB), NOSPLIT, $0-48
	SOLVE_ARGS
	MOVQ w+24(FP), AX
	MOVQ 0(AX), R12
	MOVQ a+32(FP), AX
	MOVQ 0(AX), R13
	MOVQ b+40(FP), AX
	MOVQ 0(AX), R14
	DISPATCH1

xor1:
	INS_DST(3)
	INS_XY(3)
	MOVQ (DI)(R10*1), AX
	XORQ (DI)(R11*1), AX
	MOVQ AX, (DI)(R9*1)
	DISPATCH1

col1:
	INS_DST(3)
	INS_COL(3)
	MOVQ (R12)(R10*1), AX
	MOVQ AX, (DI)(R9*1)
	DISPATCH1

row1:
	INS_DST(3)
	INS_XY(3)
	MOVQ (DI)(R10*1), AX
	MOVQ (DI)(R11*1), DX
	MOVQ AX, (R13)(R9*1)
	MOVQ DX, (R14)(R9*1)
	ANDQ DX, AX
	MOVQ AX, (R12)(R9*1)
	DISPATCH1

done1:
	RET

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
// The g = 4 walk dispatches each step straight from the one before (threaded, as
// the bilinear walk does) and keeps the four w pointers in registers (R12–R15);
// the a and b pointers are read from their arrays (DX, BX) when a row stores.
// SI the step, CX the end of the code, DI r; R8 the instruction, R9 dst, R10 x or
// the column, R11 y, AX scratch. A register is 32 bytes, so register offsets are
// the fields shifted left by 5 and column or row offsets by 3.
#define DISPATCH4 \
	CMPQ SI, CX \
	JEQ  done4 \
	PREFETCHNTA 1024(SI) \
	MOVQ (SI), R8 \
	ADDQ $8, SI \
	TESTB $1, R8 \
	JNE   xor4 \
	TESTB $2, R8 \
	JNE   row4 \
	JMP   col4

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
	MOVQ code+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*8), CX
	MOVQ r+16(FP), DI
	MOVQ w+24(FP), AX
	MOVQ 0(AX), R12
	MOVQ 8(AX), R13
	MOVQ 16(AX), R14
	MOVQ 24(AX), R15
	MOVQ a+32(FP), DX
	MOVQ b+40(FP), BX
	DISPATCH4

xor4:
	MOVQ    R8, R9
	SHLQ    $3, R9
	ANDQ    $0x1FFFFFE0, R9
	MOVQ    R8, R10
	SHRQ    $21, R10
	ANDQ    $0xFFFFE0, R10
	MOVQ    R8, R11
	SHRQ    $40, R11
	ANDQ    $-32, R11
	VMOVDQU (DI)(R10*1), Y0
	VPXOR   (DI)(R11*1), Y0, Y0
	VMOVDQU Y0, (DI)(R9*1)
	DISPATCH4

col4:
	MOVQ        R8, R9
	SHLQ        $3, R9
	ANDQ        $0x1FFFFFE0, R9
	MOVQ        R8, R10
	SHRQ        $23, R10
	ANDQ        $0x7FFFFF8, R10
	VMOVQ       (R12)(R10*1), X0
	VPINSRQ     $1, (R13)(R10*1), X0, X0
	VMOVQ       (R14)(R10*1), X1
	VPINSRQ     $1, (R15)(R10*1), X1, X1
	VINSERTI128 $1, X1, Y0, Y0
	VMOVDQU     Y0, (DI)(R9*1)
	DISPATCH4

row4:
	MOVQ         R8, R9
	SHLQ         $1, R9
	ANDQ         $0x7FFFFF8, R9
	MOVQ         R8, R10
	SHRQ         $21, R10
	ANDQ         $0xFFFFE0, R10
	MOVQ         R8, R11
	SHRQ         $40, R11
	ANDQ         $-32, R11
	VMOVDQU      (DI)(R10*1), Y0
	VMOVDQU      (DI)(R11*1), Y1
	VPAND        Y1, Y0, Y2
	VMOVQ        X2, (R12)(R9*1)
	VPEXTRQ      $1, X2, (R13)(R9*1)
	VEXTRACTI128 $1, Y2, X3
	VMOVQ        X3, (R14)(R9*1)
	VPEXTRQ      $1, X3, (R15)(R9*1)
	STORE4(Y0, X0, DX)
	STORE4(Y1, X1, BX)
	DISPATCH4

done4:
	VZEROUPPER
	RET

// The g = 2 walk keeps the six vector pointers in registers and dispatches each
// step straight from the one before (threaded, as the bilinear walk does): R12, R13
// w[0], w[1]; R14, R15 a[0], a[1]; BX, DX b[0], b[1]; SI the step, CX the end of
// the code, DI r; R8 the instruction, R9 dst, R10 x or the column, R11 y. A
// register is 16 bytes, so register offsets are the fields shifted left by 4 and
// column or row offsets by 3.
#define DISPATCH2 \
	CMPQ SI, CX \
	JEQ  done2 \
	PREFETCHNTA 1024(SI) \
	MOVQ (SI), R8 \
	ADDQ $8, SI \
	TESTB $1, R8 \
	JNE   xor2 \
	TESTB $2, R8 \
	JNE   row2 \
	JMP   col2

// func solveWalk2AVX2(code *instr, n int, r *uint64, w, a, b *[4]*uint64)
TEXT ·solveWalk2AVX2(SB), NOSPLIT, $0-48
	MOVQ code+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*8), CX
	MOVQ r+16(FP), DI
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
	MOVQ    R8, R9
	SHLQ    $2, R9
	ANDQ    $0xFFFFFF0, R9
	MOVQ    R8, R10
	SHRQ    $22, R10
	ANDQ    $0x7FFFF0, R10
	MOVQ    R8, R11
	SHRQ    $41, R11
	ANDQ    $-16, R11
	VMOVDQU (DI)(R10*1), X0
	VPXOR   (DI)(R11*1), X0, X0
	VMOVDQU X0, (DI)(R9*1)
	DISPATCH2

col2:
	MOVQ    R8, R9
	SHLQ    $2, R9
	ANDQ    $0xFFFFFF0, R9
	MOVQ    R8, R10
	SHRQ    $23, R10
	ANDQ    $0x7FFFFF8, R10
	VMOVQ   (R12)(R10*1), X0
	VPINSRQ $1, (R13)(R10*1), X0, X0
	VMOVDQU X0, (DI)(R9*1)
	DISPATCH2

row2:
	MOVQ    R8, R9
	SHLQ    $1, R9
	ANDQ    $0x7FFFFF8, R9
	MOVQ    R8, R10
	SHRQ    $22, R10
	ANDQ    $0x7FFFF0, R10
	MOVQ    R8, R11
	SHRQ    $41, R11
	ANDQ    $-16, R11
	VMOVDQU (DI)(R10*1), X0
	VMOVDQU (DI)(R11*1), X1
	VPAND   X1, X0, X2
	VMOVQ   X2, (R12)(R9*1)
	VPEXTRQ $1, X2, (R13)(R9*1)
	VMOVQ   X0, (R14)(R9*1)
	VPEXTRQ $1, X0, (R15)(R9*1)
	VMOVQ   X1, (BX)(R9*1)
	VPEXTRQ $1, X1, (DX)(R9*1)
	DISPATCH2

done2:
	VZEROUPPER
	RET

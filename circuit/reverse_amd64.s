//go:build !purego

#include "textflag.h"

// The transpose's backward walk (reverseGo's twin). Steps run from the last to the
// first; each decodes its instruction as the forward kernels do (op bits 0..1, dst
// bits 2..25, column bits 26..49 or registers x bits 26..44 and y bits 45..63; an
// adjoint register is 32 bytes, so register offsets are the fields shifted left by
// 5) and:
//   opCol: dst[col] += adj[d] (24 bytes), adj[d] = 0
//   opXor: t = adj[d], adj[d] = 0, adj[x] += t, adj[y] += t (in this order, so
//          that x = d is right)
//   opRow: adj[x] += ea[row] when ea is not nil, adj[y] += eb[row] when eb is not
//          nil (24 bytes each)
// dst, ea and eb hold 24-byte E values; a register's fourth word is padding that
// the kernel may fill with anything.
//
// Registers: BX the first instruction, SI the step, DI adj, R12 dst, R13 ea, R14
// eb, R8 the instruction, R9 dst or the row, R10 x or the column, R11 y, AX
// scratch, Y15 zero.

// func reverseAVX2(code *instr, n int, adj *uint64, dst, ea, eb *field.E)
TEXT ·reverseAVX2(SB), NOSPLIT, $0-48
	MOVQ code+0(FP), BX
	MOVQ n+8(FP), CX
	MOVQ adj+16(FP), DI
	MOVQ dst+24(FP), R12
	MOVQ ea+32(FP), R13
	MOVQ eb+40(FP), R14
	TESTQ CX, CX
	JZ    done
	LEAQ  -8(BX)(CX*8), SI
	VPXOR Y15, Y15, Y15

loop:
	PREFETCHNTA -1024(SI)
	MOVQ  (SI), R8
	TESTB $1, R8
	JNE   xor
	TESTB $2, R8
	JNE   row

	// opCol
	MOVQ    R8, R9
	SHLQ    $3, R9
	ANDQ    $0x1FFFFFE0, R9
	MOVQ    R8, R10
	SHRQ    $26, R10
	ANDQ    $0xFFFFFF, R10
	LEAQ    (R10)(R10*2), R10
	VMOVDQU (DI)(R9*1), X0
	MOVQ    16(DI)(R9*1), AX
	VPXOR   (R12)(R10*8), X0, X0
	VMOVDQU X0, (R12)(R10*8)
	XORQ    AX, 16(R12)(R10*8)
	VMOVDQU Y15, (DI)(R9*1)
	JMP     next

xor:
	MOVQ    R8, R9
	SHLQ    $3, R9
	ANDQ    $0x1FFFFFE0, R9
	MOVQ    R8, R10
	SHRQ    $21, R10
	ANDQ    $0xFFFFE0, R10
	MOVQ    R8, R11
	SHRQ    $40, R11
	ANDQ    $-32, R11
	VMOVDQU (DI)(R9*1), Y0
	VMOVDQU Y15, (DI)(R9*1)
	VPXOR   (DI)(R10*1), Y0, Y1
	VMOVDQU Y1, (DI)(R10*1)
	VPXOR   (DI)(R11*1), Y0, Y1
	VMOVDQU Y1, (DI)(R11*1)
	JMP     next

row:
	MOVQ  R8, R9
	SHRQ  $2, R9
	ANDQ  $0xFFFFFF, R9
	LEAQ  (R9)(R9*2), R9
	TESTQ R13, R13
	JZ    rowb
	MOVQ    R8, R10
	SHRQ    $21, R10
	ANDQ    $0xFFFFE0, R10
	VMOVDQU (R13)(R9*8), X0
	MOVQ    16(R13)(R9*8), AX
	VPXOR   (DI)(R10*1), X0, X0
	VMOVDQU X0, (DI)(R10*1)
	XORQ    AX, 16(DI)(R10*1)

rowb:
	TESTQ R14, R14
	JZ    next
	MOVQ    R8, R11
	SHRQ    $40, R11
	ANDQ    $-32, R11
	VMOVDQU (R14)(R9*8), X0
	MOVQ    16(R14)(R9*8), AX
	VPXOR   (DI)(R11*1), X0, X0
	VMOVDQU X0, (DI)(R11*1)
	XORQ    AX, 16(DI)(R11*1)

next:
	SUBQ $8, SI
	CMPQ SI, BX
	JCC  loop

done:
	VZEROUPPER
	RET

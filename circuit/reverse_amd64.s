//go:build !purego

#include "textflag.h"
#include "walk_amd64.h"

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
	WALK_FETCH(-1024)
	OP_BRANCH(xor, row)

	// opCol
	INS_DST(5)
	INS_COL(0)
	LEAQ (R10)(R10*2), R10
	E24_XOR((DI)(R9*1), (R12)(R10*8))
	VMOVDQU Y15, (DI)(R9*1)
	JMP     next

xor:
	ADJ_XOR
	JMP next

row:
	INS_ROW
	LEAQ  (R9)(R9*2), R9
	TESTQ R13, R13
	JZ    rowb
	INS_X(5)
	E24_XOR((R13)(R9*8), (DI)(R10*1))

rowb:
	TESTQ R14, R14
	JZ    next
	INS_Y(5)
	E24_XOR((R14)(R9*8), (DI)(R11*1))

next:
	SUBQ $8, SI
	CMPQ SI, BX
	JCC  loop

done:
	VZEROUPPER
	RET

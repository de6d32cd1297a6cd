//go:build !purego

#include "textflag.h"
#include "walk_amd64.h"

// The backward walk's kernel (revWalk.runGo's twin). It runs the steps [0, pc) of
// the code from step pc−1 down; every step decodes its instruction as the
// bilinear kernel does (register offsets are the fields shifted left by 5) and:
//   opXor: t = adj[dst]; adj[dst] = 0; adj[x] ^= t; adj[y] ^= t
//   opCol: dst[col] ^= adj[d] (24 bytes); adj[d] = 0
//   opRow: adj[x] ^= ea[j], adj[y] ^= eb[j] for j = row − wbase (32-byte loads:
//          each window is followed by 8 readable bytes, which land in the
//          register's padding), or exit 1 outside [wbase, wbase+wn)
// An adjoint register is 32 bytes (an E and 8 bytes of padding the kernel may fill
// with anything); column sums and row weights are 24-byte E values.
//
// Registers: BX the state, SI the step, CX the start of the code, DI the adjoints,
// R13 the column sums, R12 ea, R14 eb, R15 wbase, Y15 zero, R8 the instruction,
// R9 dst or the window index, R10 x or the column, R11 y.

// RDISPATCH ends every step's handler: it stops at the start of the code, steps
// back, loads the instruction into R8 and jumps to its op's handler
// (walk_amd64.h).
#define RDISPATCH \
	CMPQ SI, CX \
	JEQ  done \
	SUBQ $8, SI \
	WALK_FETCH(-1024) \
	OP_JUMP(xor, row, col)

// func transposeAVX2(st *revState) int
TEXT ·transposeAVX2(SB), NOSPLIT, $0-16
	MOVQ  st+0(FP), BX
	MOVQ  0(BX), CX
	MOVQ  8(BX), AX
	LEAQ  (CX)(AX*8), SI
	MOVQ  16(BX), DI
	MOVQ  24(BX), R13
	MOVQ  32(BX), R12
	MOVQ  40(BX), R14
	MOVQ  48(BX), R15
	VPXOR Y15, Y15, Y15
	RDISPATCH

xor:
	ADJ_XOR
	RDISPATCH

col:
	INS_DST(5)
	INS_COL(0)
	LEAQ         (R10)(R10*2), R10
	VMOVDQU      (DI)(R9*1), Y0
	VMOVDQU      Y15, (DI)(R9*1)
	VPXOR        (R13)(R10*8), X0, X1
	VMOVDQU      X1, (R13)(R10*8)
	VEXTRACTI128 $1, Y0, X2
	VMOVQ        16(R13)(R10*8), X3
	VPXOR        X3, X2, X2
	VMOVQ        X2, 16(R13)(R10*8)
	RDISPATCH

row:
	INS_ROW
	SUBQ    R15, R9
	CMPQ    R9, 56(BX)
	JCC     rowmiss
	LEAQ    (R9)(R9*2), R9
	INS_XY(5)
	VMOVDQU (R12)(R9*8), Y0
	VPXOR   (DI)(R10*1), Y0, Y0
	VMOVDQU Y0, (DI)(R10*1)
	VMOVDQU (R14)(R9*8), Y1
	VPXOR   (DI)(R11*1), Y1, Y1
	VMOVDQU Y1, (DI)(R11*1)
	RDISPATCH

rowmiss:
	MOVQ $1, AX
	JMP  exit

done:
	XORQ AX, AX

exit:
	SUBQ CX, SI
	SHRQ $3, SI
	MOVQ SI, 8(BX)
	VZEROUPPER
	MOVQ AX, ret+8(FP)
	RET

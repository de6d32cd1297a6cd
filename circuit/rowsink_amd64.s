//go:build !purego

#include "textflag.h"

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
// back, loads the instruction into R8 and jumps to its op's handler (opXor first).
#define RDISPATCH \
	CMPQ SI, CX \
	JEQ  done \
	SUBQ $8, SI \
	PREFETCHNTA -1024(SI) \
	MOVQ (SI), R8 \
	TESTB $1, R8 \
	JNE   xor \
	TESTB $2, R8 \
	JNE   row \
	JMP   col

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
	RDISPATCH

col:
	MOVQ         R8, R9
	SHLQ         $3, R9
	ANDQ         $0x1FFFFFE0, R9
	MOVQ         R8, R10
	SHRQ         $26, R10
	ANDQ         $0xFFFFFF, R10
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
	MOVQ    R8, R9
	SHRQ    $2, R9
	ANDQ    $0xFFFFFF, R9
	SUBQ    R15, R9
	CMPQ    R9, 56(BX)
	JCC     rowmiss
	LEAQ    (R9)(R9*2), R9
	MOVQ    R8, R10
	SHRQ    $21, R10
	ANDQ    $0xFFFFE0, R10
	MOVQ    R8, R11
	SHRQ    $40, R11
	ANDQ    $-32, R11
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

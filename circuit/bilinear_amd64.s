//go:build !purego

#include "textflag.h"

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
// next instruction into R8 and jumps to its op's handler (op bit 0 set: opXor, the
// commonest, tested first; else bit 1 set: opRow; else opCol). The code is read once
// per walk: it is prefetched ahead without displacing the register file from the
// outer caches.
#define DISPATCH \
	CMPQ SI, CX \
	JEQ  done \
	PREFETCHNTA 1024(SI) \
	MOVQ (SI), R8 \
	TESTB $1, R8 \
	JNE   xor \
	TESTB $2, R8 \
	JNE   row \
	JMP   col

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
	MOVQ    R8, R10
	SHRQ    $21, R10
	ANDQ    $0xFFFFE0, R10
	MOVQ    R8, R11
	SHRQ    $40, R11
	ANDQ    $-32, R11
	MOVQ    R8, R9
	SHLQ    $3, R9
	ANDQ    $0x1FFFFFE0, R9
	VMOVDQU (DI)(R10*1), Y0
	VPXOR   (DI)(R11*1), Y0, Y0
	VMOVDQU Y0, (DI)(R9*1)
	ADDQ    $8, SI
	DISPATCH

col:
	MOVQ    R8, R10
	SHRQ    $26, R10
	ANDQ    $0xFFFFFF, R10
	SUBQ    R12, R10
	CMPQ    R10, R14
	JCC     colmiss
	LEAQ    (R10)(R10*2), R10
	VMOVDQU (R13)(R10*8), Y0

colstore:
	MOVQ    R8, R9
	SHLQ    $3, R9
	ANDQ    $0x1FFFFFE0, R9
	VMOVDQU Y0, (DI)(R9*1)
	ADDQ    $8, SI
	DISPATCH

row:
	MOVQ    R8, R9
	SHRQ    $2, R9
	ANDQ    $0xFFFFFF, R9
	MOVQ    R9, DX
	SUBQ    80(BX), DX
	CMPQ    DX, 88(BX)
	JCC     rowmiss
	MOVQ    72(BX), AX
	MOVL    R9, (AX)(DX*4)
	INCQ    R15
	MOVQ    R8, R10
	SHRQ    $21, R10
	ANDQ    $0xFFFFE0, R10
	MOVQ    R8, R11
	SHRQ    $40, R11
	ANDQ    $-32, R11
	LEAQ    (DX)(DX*2), DX
	MOVQ    56(BX), AX
	VMOVDQU (DI)(R10*1), X0
	VMOVQ   16(DI)(R10*1), X1
	VMOVDQU X0, (AX)(DX*8)
	VMOVQ   X1, 16(AX)(DX*8)
	MOVQ    64(BX), AX
	VMOVDQU (DI)(R11*1), X0
	VMOVQ   16(DI)(R11*1), X1
	VMOVDQU X0, (AX)(DX*8)
	VMOVQ   X1, 16(AX)(DX*8)
	ADDQ    $8, SI
	DISPATCH

colmiss:
	ADDQ    R12, R10
	CMPQ    R10, 112(BX)
	JCC     colback
	LEAQ    (R10)(R10*2), R10
	MOVQ    104(BX), AX
	VMOVDQU (AX)(R10*8), Y0
	JMP     colstore

colback:
	SUBQ    128(BX), R10
	CMPQ    R10, 136(BX)
	JCC     colexit
	LEAQ    (R10)(R10*2), R10
	MOVQ    120(BX), AX
	VMOVDQU (AX)(R10*8), Y0
	JMP     colstore

colexit:
	MOVQ $1, AX
	JMP  exit

rowmiss:
	MOVQ    R9, DX
	SUBQ    168(BX), DX
	CMPQ    DX, 176(BX)
	JCC     rowexit
	MOVQ    160(BX), AX
	MOVL    R9, (AX)(DX*4)
	INCQ    184(BX)
	MOVQ    R8, R10
	SHRQ    $21, R10
	ANDQ    $0xFFFFE0, R10
	MOVQ    R8, R11
	SHRQ    $40, R11
	ANDQ    $-32, R11
	LEAQ    (DX)(DX*2), DX
	MOVQ    144(BX), AX
	VMOVDQU (DI)(R10*1), X0
	VMOVQ   16(DI)(R10*1), X1
	VMOVDQU X0, (AX)(DX*8)
	VMOVQ   X1, 16(AX)(DX*8)
	MOVQ    152(BX), AX
	VMOVDQU (DI)(R11*1), X0
	VMOVQ   16(DI)(R11*1), X1
	VMOVDQU X0, (AX)(DX*8)
	VMOVQ   X1, 16(AX)(DX*8)
	ADDQ    $8, SI
	DISPATCH

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

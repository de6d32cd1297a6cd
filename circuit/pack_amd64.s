//go:build !purego

#include "textflag.h"

// func storeLanesNT(dst *field.K, stride int, src *uint64, lanes, n int)
//
// For j < lanes, the n words at src + 512·j go to dst + 8·stride·j, 32 bytes at a
// time with non-temporal stores, then SFENCE orders them before any later store.
// SI is the source row, DI the destination run, DX the run stride in bytes, CX the
// lanes left, BX the bytes per run, AX the byte offset within it.
TEXT ·storeLanesNT(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), DX
	SHLQ $3, DX
	MOVQ src+16(FP), SI
	MOVQ lanes+24(FP), CX
	MOVQ n+32(FP), BX
	SHLQ $3, BX
	TESTQ CX, CX
	JEQ  done
	TESTQ BX, BX
	JEQ  done

lane:
	XORQ AX, AX

word:
	VMOVDQU  (SI)(AX*1), Y0
	VMOVNTDQ Y0, (DI)(AX*1)
	ADDQ     $32, AX
	CMPQ     AX, BX
	JLT      word
	ADDQ     $512, SI
	ADDQ     DX, DI
	DECQ     CX
	JNE      lane

done:
	SFENCE
	VZEROUPPER
	RET

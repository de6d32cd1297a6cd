//go:build !purego

#include "textflag.h"

// REDUCE folds the 128-bit value in x (low qword lo, high qword hi) modulo
// x^64 + x^4 + x^3 + x + 1, leaving the K result in the low qword of x.
// r holds 0x1b (x^4 + x^3 + x + 1) in its low qword; t is scratch.
#define REDUCE(x, r, t) \
	MOVOU x, t \
	PCLMULQDQ $0x01, r, t \ // t = hi·0x1b (68 bits)
	PXOR t, x \
	PCLMULQDQ $0x01, r, t \ // t = (bits 64..67 of hi·0x1b)·0x1b
	PXOR t, x

// func mulKPCLMUL(a, b uint64) uint64
// Scalar K product; needs PCLMULQDQ.
TEXT ·mulKPCLMUL(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), X0
	MOVQ b+8(FP), X1
	PCLMULQDQ $0x00, X1, X0
	MOVQ $0x1b, AX
	MOVQ AX, X2
	REDUCE(X0, X2, X3)
	MOVQ X0, ret+16(FP)
	RET

// func mulEPCLMUL(dst, a, b *[3]uint64)
// Scalar E product (Karatsuba, six PCLMULQDQ); dst may equal a or b.
TEXT ·mulEPCLMUL(SB), NOSPLIT, $0-24
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ 0(SI), X0
	MOVQ 8(SI), X1
	MOVQ 16(SI), X2
	MOVQ 0(DI), X3
	MOVQ 8(DI), X4
	MOVQ 16(DI), X5

	// q01 = (a0+a1)(b0+b1), q12 = (a1+a2)(b1+b2), q02 = (a0+a2)(b0+b2)
	MOVOU X0, X9
	PXOR  X1, X9
	MOVOU X3, X10
	PXOR  X4, X10
	PCLMULQDQ $0x00, X10, X9
	MOVOU X1, X10
	PXOR  X2, X10
	MOVOU X4, X11
	PXOR  X5, X11
	PCLMULQDQ $0x00, X11, X10
	MOVOU X0, X11
	PXOR  X2, X11
	MOVOU X3, X12
	PXOR  X5, X12
	PCLMULQDQ $0x00, X12, X11

	// p0 = a0 b0, m1 = a1 b1, p4 = a2 b2
	PCLMULQDQ $0x00, X3, X0
	PCLMULQDQ $0x00, X4, X1
	PCLMULQDQ $0x00, X5, X2

	// c1 = p0 + q01 + q12
	PXOR  X0, X9
	PXOR  X10, X9
	// c0 = p0 + m1 + p4 + q12
	PXOR  X1, X10
	PXOR  X2, X10
	PXOR  X0, X10
	// c2 = p0 + m1 + q02
	PXOR  X0, X11
	PXOR  X1, X11

	MOVQ $0x1b, AX
	MOVQ AX, X13
	REDUCE(X10, X13, X14)
	REDUCE(X9, X13, X15)
	REDUCE(X11, X13, X12)
	MOVQ dst+0(FP), DX
	MOVQ X10, 0(DX)
	MOVQ X9, 8(DX)
	MOVQ X11, 16(DX)
	RET

// func mulEKPCLMUL(dst, a *[3]uint64, k uint64)
// Scalar E·K product (three PCLMULQDQ); dst may equal a.
TEXT ·mulEKPCLMUL(SB), NOSPLIT, $0-24
	MOVQ a+8(FP), SI
	MOVQ k+16(FP), X3
	MOVQ 0(SI), X0
	MOVQ 8(SI), X1
	MOVQ 16(SI), X2
	PCLMULQDQ $0x00, X3, X0
	PCLMULQDQ $0x00, X3, X1
	PCLMULQDQ $0x00, X3, X2
	MOVQ $0x1b, AX
	MOVQ AX, X13
	REDUCE(X0, X13, X4)
	REDUCE(X1, X13, X5)
	REDUCE(X2, X13, X6)
	MOVQ dst+0(FP), DX
	MOVQ X0, 0(DX)
	MOVQ X1, 8(DX)
	MOVQ X2, 16(DX)
	RET

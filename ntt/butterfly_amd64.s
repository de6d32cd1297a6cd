//go:build amd64 && !purego

#include "textflag.h"

// MULRED multiplies the four K words in V by the broadcast twiddle in Y15 and leaves
// the reduced products (mod x^64 + x^4 + x^3 + x + 1) in R. Clobbers T0..T3.
// The even/odd carry-less products are regrouped into (lo, hi) qword vectors, then
// hi is folded twice: over = hi>>63 ^ hi>>61 ^ hi>>60, h = hi ^ over,
// R = lo ^ h ^ h<<1 ^ h<<3 ^ h<<4.
#define MULRED(V, R, T0, T1, T2, T3) \
	VPCLMULQDQ  $0x00, Y15, V, T0 \
	VPCLMULQDQ  $0x11, Y15, V, T1 \
	VPUNPCKLQDQ T1, T0, R         \
	VPUNPCKHQDQ T1, T0, T2        \
	VPSRLQ      $63, T2, T0       \
	VPSRLQ      $61, T2, T1       \
	VPSRLQ      $60, T2, T3       \
	VPXOR       T0, T1, T1        \
	VPXOR       T3, T1, T1        \
	VPXOR       T1, T2, T2        \
	VPXOR       T2, R, R          \
	VPSLLQ      $1, T2, T0        \
	VPSLLQ      $3, T2, T1        \
	VPSLLQ      $4, T2, T3        \
	VPXOR       T0, R, R          \
	VPXOR       T1, R, R          \
	VPXOR       T3, R, R

// func fwdVPCL(u, v *uint64, n int, lambda uint64)
// u[i] += lambda*v[i]; v[i] += u[i]. n > 0, n % 4 == 0.
TEXT ·fwdVPCL(SB), NOSPLIT, $0-32
	MOVQ         u+0(FP), DI
	MOVQ         v+8(FP), SI
	MOVQ         n+16(FP), CX
	VPBROADCASTQ lambda+24(FP), Y15

fwd8:
	CMPQ CX, $8
	JB   fwd4
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y8
	MULRED(Y0, Y1, Y2, Y3, Y4, Y5)
	MULRED(Y8, Y9, Y10, Y11, Y12, Y13)
	VPXOR   (DI), Y1, Y1
	VPXOR   32(DI), Y9, Y9
	VMOVDQU Y1, (DI)
	VMOVDQU Y9, 32(DI)
	VPXOR   Y0, Y1, Y1
	VPXOR   Y8, Y9, Y9
	VMOVDQU Y1, (SI)
	VMOVDQU Y9, 32(SI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	SUBQ    $8, CX
	JMP     fwd8

fwd4:
	TESTQ   CX, CX
	JZ      fwddone
	VMOVDQU (SI), Y0
	MULRED(Y0, Y1, Y2, Y3, Y4, Y5)
	VPXOR   (DI), Y1, Y1
	VMOVDQU Y1, (DI)
	VPXOR   Y0, Y1, Y1
	VMOVDQU Y1, (SI)

fwddone:
	VZEROUPPER
	RET

// func invVPCL(u, v *uint64, n int, lambda uint64)
// v[i] += u[i]; u[i] += lambda*v[i]. n > 0, n % 4 == 0.
TEXT ·invVPCL(SB), NOSPLIT, $0-32
	MOVQ         u+0(FP), DI
	MOVQ         v+8(FP), SI
	MOVQ         n+16(FP), CX
	VPBROADCASTQ lambda+24(FP), Y15

inv8:
	CMPQ CX, $8
	JB   inv4
	VMOVDQU (DI), Y6
	VMOVDQU 32(DI), Y14
	VPXOR   (SI), Y6, Y0
	VPXOR   32(SI), Y14, Y8
	VMOVDQU Y0, (SI)
	VMOVDQU Y8, 32(SI)
	MULRED(Y0, Y1, Y2, Y3, Y4, Y5)
	MULRED(Y8, Y9, Y10, Y11, Y12, Y13)
	VPXOR   Y6, Y1, Y1
	VPXOR   Y14, Y9, Y9
	VMOVDQU Y1, (DI)
	VMOVDQU Y9, 32(DI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	SUBQ    $8, CX
	JMP     inv8

inv4:
	TESTQ   CX, CX
	JZ      invdone
	VMOVDQU (DI), Y6
	VPXOR   (SI), Y6, Y0
	VMOVDQU Y0, (SI)
	MULRED(Y0, Y1, Y2, Y3, Y4, Y5)
	VPXOR   Y6, Y1, Y1
	VMOVDQU Y1, (DI)

invdone:
	VZEROUPPER
	RET

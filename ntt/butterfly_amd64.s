//go:build amd64 && !purego

#include "textflag.h"

// foldTable[t] = over·(1 + x + x^3 + x^4) for a nibble t with over = t ^ t>>1 ^ t>>3
// (bytes 0..15, repeated per lane): the top nibble t of hi contributes over = hi>>63 ^
// hi>>61 ^ hi>>60 to the folded word, and that word's own fold by x^64 = x^4 + x^3 + x + 1
// is this byte.
DATA foldTable<>+0x00(SB)/8, $0x6c77415a362d1b00
DATA foldTable<>+0x08(SB)/8, $0xc3d8eef59982b4af
DATA foldTable<>+0x10(SB)/8, $0x6c77415a362d1b00
DATA foldTable<>+0x18(SB)/8, $0xc3d8eef59982b4af
GLOBL foldTable<>(SB), RODATA|NOPTR, $32

// MULREDT multiplies the four K words in V by the broadcast twiddle in Y15 and leaves
// the reduced products (mod x^64 + x^4 + x^3 + x + 1) in R; Y14 holds foldTable.
// Clobbers T0..T2. The even/odd carry-less products are regrouped into (lo, hi) qword
// vectors; with h = hi ^ over (over = hi>>63 ^ hi>>61 ^ hi>>60) the product is
// lo ^ h·(1 + x + x^3 + x^4) truncated to 64 bits, computed as
// lo ^ foldTable[hi>>60] ^ g ^ g<<3 with g = hi ^ hi<<1.
#define MULREDT(V, R, T0, T1, T2) \
	VPCLMULQDQ  $0x00, Y15, V, T0 \
	VPCLMULQDQ  $0x11, Y15, V, T1 \
	VPUNPCKLQDQ T1, T0, R         \
	VPUNPCKHQDQ T1, T0, T2        \
	VPSRLQ      $60, T2, T0       \
	VPSHUFB     T0, Y14, T0       \
	VPSLLQ      $1, T2, T1        \
	VPXOR       T0, R, R          \
	VPXOR       T1, T2, T2        \
	VPSLLQ      $3, T2, T1        \
	VPXOR       T2, R, R          \
	VPXOR       T1, R, R

// func fwdVPCL(u, v *uint64, n int, lambda uint64)
// u[i] += lambda*v[i]; v[i] += u[i]. n > 0, n % 4 == 0.
TEXT ·fwdVPCL(SB), NOSPLIT, $0-32
	MOVQ         u+0(FP), DI
	MOVQ         v+8(FP), SI
	MOVQ         n+16(FP), CX
	VPBROADCASTQ lambda+24(FP), Y15
	VMOVDQU      foldTable<>(SB), Y14

fwd8:
	CMPQ CX, $8
	JB   fwd4
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y8
	MULREDT(Y0, Y1, Y2, Y3, Y4)
	MULREDT(Y8, Y9, Y10, Y11, Y12)
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
	MULREDT(Y0, Y1, Y2, Y3, Y4)
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
	VMOVDQU      foldTable<>(SB), Y14

inv8:
	CMPQ CX, $8
	JB   inv4
	VMOVDQU (DI), Y6
	VMOVDQU 32(DI), Y7
	VPXOR   (SI), Y6, Y0
	VPXOR   32(SI), Y7, Y8
	VMOVDQU Y0, (SI)
	VMOVDQU Y8, 32(SI)
	MULREDT(Y0, Y1, Y2, Y3, Y4)
	MULREDT(Y8, Y9, Y10, Y11, Y12)
	VPXOR   Y6, Y1, Y1
	VPXOR   Y7, Y9, Y9
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
	MULREDT(Y0, Y1, Y2, Y3, Y4)
	VPXOR   Y6, Y1, Y1
	VMOVDQU Y1, (DI)

invdone:
	VZEROUPPER
	RET

// MULRED2 is the product-and-reduce of MULREDT for the two K words in V, with shifts
// for the overflow (SSE2 + PCLMULQDQ; twiddle in both
// qwords of X15). Clobbers T0..T3.
#define MULRED2(V, R, T0, T1, T2, T3) \
	MOVOU      V, T0         \
	PCLMULQDQ  $0x00, X15, T0 \
	MOVOU      V, T1         \
	PCLMULQDQ  $0x11, X15, T1 \
	MOVOU      T0, R         \
	PUNPCKLQDQ T1, R         \
	PUNPCKHQDQ T1, T0        \
	MOVOU      T0, T2        \
	MOVOU      T0, T1        \
	MOVOU      T0, T3        \
	PSRLQ      $63, T1       \
	PSRLQ      $61, T2       \
	PSRLQ      $60, T3       \
	PXOR       T1, T2        \
	PXOR       T3, T2        \
	PXOR       T2, T0        \
	PXOR       T0, R         \
	MOVOU      T0, T1        \
	MOVOU      T0, T2        \
	PSLLQ      $1, T0        \
	PSLLQ      $3, T1        \
	PSLLQ      $4, T2        \
	PXOR       T0, R         \
	PXOR       T1, R         \
	PXOR       T2, R

// func fwdPCL(u, v *uint64, n int, lambda uint64)
// u[i] += lambda*v[i]; v[i] += u[i]. n > 0, n % 2 == 0.
TEXT ·fwdPCL(SB), NOSPLIT, $0-32
	MOVQ       u+0(FP), DI
	MOVQ       v+8(FP), SI
	MOVQ       n+16(FP), CX
	MOVQ       lambda+24(FP), X15
	PUNPCKLQDQ X15, X15

fwdpcl:
	MOVOU (SI), X0
	MULRED2(X0, X1, X2, X3, X4, X5)
	MOVOU (DI), X6
	PXOR  X6, X1
	MOVOU X1, (DI)
	PXOR  X1, X0
	MOVOU X0, (SI)
	ADDQ  $16, DI
	ADDQ  $16, SI
	SUBQ  $2, CX
	JNZ   fwdpcl
	RET

// func invPCL(u, v *uint64, n int, lambda uint64)
// v[i] += u[i]; u[i] += lambda*v[i]. n > 0, n % 2 == 0.
TEXT ·invPCL(SB), NOSPLIT, $0-32
	MOVQ       u+0(FP), DI
	MOVQ       v+8(FP), SI
	MOVQ       n+16(FP), CX
	MOVQ       lambda+24(FP), X15
	PUNPCKLQDQ X15, X15

invpcl:
	MOVOU (DI), X6
	MOVOU (SI), X0
	PXOR  X6, X0
	MOVOU X0, (SI)
	MULRED2(X0, X1, X2, X3, X4, X5)
	PXOR  X6, X1
	MOVOU X1, (DI)
	ADDQ  $16, DI
	ADDQ  $16, SI
	SUBQ  $2, CX
	JNZ   invpcl
	RET


// func transposeRev4(out *uint64, s int, src *uint64, laneStride int, nrows int)
// Transposes four lanes (lane k = src[k*laneStride ..]) of nrows words into nrows rows of
// s words at out, each row taking the four lanes in DESCENDING order (lane 3 first).
// Requires AVX2; nrows a positive multiple of 4; no alignment.
TEXT ·transposeRev4(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ s+8(FP), BX
	SHLQ $3, BX
	MOVQ src+16(FP), SI
	MOVQ laneStride+24(FP), DX
	SHLQ $3, DX
	MOVQ nrows+32(FP), CX
	LEAQ (SI)(DX*2), R8

trloop:
	VMOVDQU     (SI), Y0
	VMOVDQU     (SI)(DX*1), Y1
	VMOVDQU     (R8), Y2
	VMOVDQU     (R8)(DX*1), Y3
	VPUNPCKLQDQ Y1, Y0, Y4
	VPUNPCKHQDQ Y1, Y0, Y5
	VPUNPCKLQDQ Y3, Y2, Y6
	VPUNPCKHQDQ Y3, Y2, Y7
	VPERM2I128  $0x20, Y6, Y4, Y0
	VPERM2I128  $0x20, Y7, Y5, Y1
	VPERM2I128  $0x31, Y6, Y4, Y2
	VPERM2I128  $0x31, Y7, Y5, Y3
	VPERMQ      $0x1b, Y0, Y0
	VPERMQ      $0x1b, Y1, Y1
	VPERMQ      $0x1b, Y2, Y2
	VPERMQ      $0x1b, Y3, Y3
	VMOVDQU     Y0, (DI)
	VMOVDQU     Y1, (DI)(BX*1)
	LEAQ        (DI)(BX*2), R9
	VMOVDQU     Y2, (R9)
	VMOVDQU     Y3, (R9)(BX*1)
	ADDQ        $32, SI
	ADDQ        $32, R8
	LEAQ        (DI)(BX*4), DI
	SUBQ        $4, CX
	JNZ         trloop
	VZEROUPPER
	RET

// MULREDX is MULREDT with the broadcast twiddle in register L instead of Y15.
#define MULREDX(V, L, R, T0, T1, T2) \
	VPCLMULQDQ  $0x00, L, V, T0 \
	VPCLMULQDQ  $0x11, L, V, T1 \
	VPUNPCKLQDQ T1, T0, R       \
	VPUNPCKHQDQ T1, T0, T2      \
	VPSRLQ      $60, T2, T0     \
	VPSHUFB     T0, Y14, T0     \
	VPSLLQ      $1, T2, T1      \
	VPXOR       T0, R, R        \
	VPXOR       T1, T2, T2      \
	VPSLLQ      $3, T2, T1      \
	VPXOR       T2, R, R        \
	VPXOR       T1, R, R

// FWDX is the forward butterfly on registers: U += L·V; V += U. Clobbers T0..T3.
#define FWDX(U, V, L, T0, T1, T2, T3) \
	MULREDX(V, L, T3, T0, T1, T2) \
	VPXOR T3, U, U                \
	VPXOR U, V, V

// func fwd4VPCL(a, b, c, d *uint64, n int, t0, t1, t2 uint64)
// Two forward layers on four rows: (a, c) and (b, d) with t0, then (a, b) with t1 and
// (c, d) with t2. n > 0, n % 4 == 0.
TEXT ·fwd4VPCL(SB), NOSPLIT, $0-64
	MOVQ         a+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         c+16(FP), R8
	MOVQ         d+24(FP), R9
	MOVQ         n+32(FP), CX
	VPBROADCASTQ t0+40(FP), Y11
	VPBROADCASTQ t1+48(FP), Y12
	VPBROADCASTQ t2+56(FP), Y13
	VMOVDQU      foldTable<>(SB), Y14
	XORQ         AX, AX

fwd4loop:
	VMOVDQU (DI)(AX*8), Y0
	VMOVDQU (SI)(AX*8), Y1
	VMOVDQU (R8)(AX*8), Y2
	VMOVDQU (R9)(AX*8), Y3
	FWDX(Y0, Y2, Y11, Y4, Y5, Y6, Y7)
	FWDX(Y1, Y3, Y11, Y8, Y9, Y10, Y15)
	FWDX(Y0, Y1, Y12, Y4, Y5, Y6, Y7)
	FWDX(Y2, Y3, Y13, Y8, Y9, Y10, Y15)
	VMOVDQU Y0, (DI)(AX*8)
	VMOVDQU Y1, (SI)(AX*8)
	VMOVDQU Y2, (R8)(AX*8)
	VMOVDQU Y3, (R9)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, CX
	JB      fwd4loop
	VZEROUPPER
	RET

// func fwd4ioVPCL(o0, o1, o2, o3, i0, i1, i2, i3 *uint64, n int, t0, t1, t2 uint64)
// fwd4VPCL reading rows i0..i3 and writing rows o0..o3: each column of four words is
// loaded from every input before any output is stored, so o_k may equal i_k.
// n > 0, n % 4 == 0.
TEXT ·fwd4ioVPCL(SB), NOSPLIT, $0-96
	MOVQ         o0+0(FP), DI
	MOVQ         o1+8(FP), SI
	MOVQ         o2+16(FP), R8
	MOVQ         o3+24(FP), R9
	MOVQ         i0+32(FP), R10
	MOVQ         i1+40(FP), R11
	MOVQ         i2+48(FP), R12
	MOVQ         i3+56(FP), R13
	MOVQ         n+64(FP), CX
	VPBROADCASTQ t0+72(FP), Y11
	VPBROADCASTQ t1+80(FP), Y12
	VPBROADCASTQ t2+88(FP), Y13
	VMOVDQU      foldTable<>(SB), Y14
	XORQ         AX, AX

fwd4ioloop:
	VMOVDQU (R10)(AX*8), Y0
	VMOVDQU (R11)(AX*8), Y1
	VMOVDQU (R12)(AX*8), Y2
	VMOVDQU (R13)(AX*8), Y3
	FWDX(Y0, Y2, Y11, Y4, Y5, Y6, Y7)
	FWDX(Y1, Y3, Y11, Y8, Y9, Y10, Y15)
	FWDX(Y0, Y1, Y12, Y4, Y5, Y6, Y7)
	FWDX(Y2, Y3, Y13, Y8, Y9, Y10, Y15)
	VMOVDQU Y0, (DI)(AX*8)
	VMOVDQU Y1, (SI)(AX*8)
	VMOVDQU Y2, (R8)(AX*8)
	VMOVDQU Y3, (R9)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, CX
	JB      fwd4ioloop
	VZEROUPPER
	RET

// func fwdioVPCL(uo, vo, ui, vi *uint64, n int, lambda uint64)
// The forward butterfly reading rows ui, vi and writing rows uo, vo: each four-word
// column is loaded before it is stored, so uo may equal ui and vo vi.
// n > 0, n % 4 == 0.
TEXT ·fwdioVPCL(SB), NOSPLIT, $0-48
	MOVQ         uo+0(FP), DI
	MOVQ         vo+8(FP), SI
	MOVQ         ui+16(FP), R10
	MOVQ         vi+24(FP), R11
	MOVQ         n+32(FP), CX
	VPBROADCASTQ lambda+40(FP), Y11
	VMOVDQU      foldTable<>(SB), Y14
	XORQ         AX, AX

fwdioloop:
	VMOVDQU (R10)(AX*8), Y0
	VMOVDQU (R11)(AX*8), Y1
	FWDX(Y0, Y1, Y11, Y4, Y5, Y6, Y7)
	VMOVDQU Y0, (DI)(AX*8)
	VMOVDQU Y1, (SI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, CX
	JB      fwdioloop
	VZEROUPPER
	RET

// func fwd4BlocksVPCL(buf *uint64, s, cols, nb int, tw *uint64)
// fwd4 on words 0..cols−1 of nb consecutive blocks of four rows of s words: block k's
// rows a, b, c, d are buf[(4k+i)·s ..], its twiddles tw[3k], tw[3k+1], tw[3k+2].
// nb > 0; 0 < cols ≤ s, cols % 4 == 0.
TEXT ·fwd4BlocksVPCL(SB), NOSPLIT, $0-40
	MOVQ    buf+0(FP), DI
	MOVQ    s+8(FP), BX
	SHLQ    $3, BX
	MOVQ    cols+16(FP), R13
	SHLQ    $3, R13
	MOVQ    nb+24(FP), DX
	MOVQ    tw+32(FP), R12
	VMOVDQU foldTable<>(SB), Y14

fwd4bblock:
	VPBROADCASTQ (R12), Y11
	VPBROADCASTQ 8(R12), Y12
	VPBROADCASTQ 16(R12), Y13
	LEAQ         (DI)(BX*1), SI
	LEAQ         (DI)(BX*2), R8
	LEAQ         (SI)(BX*2), R9
	XORQ         AX, AX

fwd4bloop:
	VMOVDQU (DI)(AX*1), Y0
	VMOVDQU (SI)(AX*1), Y1
	VMOVDQU (R8)(AX*1), Y2
	VMOVDQU (R9)(AX*1), Y3
	FWDX(Y0, Y2, Y11, Y4, Y5, Y6, Y7)
	FWDX(Y1, Y3, Y11, Y8, Y9, Y10, Y15)
	FWDX(Y0, Y1, Y12, Y4, Y5, Y6, Y7)
	FWDX(Y2, Y3, Y13, Y8, Y9, Y10, Y15)
	VMOVDQU Y0, (DI)(AX*1)
	VMOVDQU Y1, (SI)(AX*1)
	VMOVDQU Y2, (R8)(AX*1)
	VMOVDQU Y3, (R9)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, R13
	JB      fwd4bloop
	LEAQ    (DI)(BX*4), DI
	ADDQ    $24, R12
	DECQ    DX
	JNZ     fwd4bblock
	VZEROUPPER
	RET

//go:build amd64 && !purego

#include "textflag.h"

// The AVX-512 butterflies: eight K words per zmm register, VPCLMULQDQ on zmm (four 128-bit
// lanes, each multiplying one qword of each operand: $0x00 the even words, $0x11 the odd
// ones), the reduction as in butterfly_amd64.s with its XORs merged by VPTERNLOGQ.

// foldTable16 is foldTable of butterfly_amd64.s (the reduction of the top nibble of hi),
// broadcast to every 128-bit lane by VBROADCASTI32X4.
DATA foldTable16<>+0x00(SB)/8, $0x6c77415a362d1b00
DATA foldTable16<>+0x08(SB)/8, $0xc3d8eef59982b4af
GLOBL foldTable16<>(SB), RODATA|NOPTR, $16

// FWDZ is the forward butterfly on registers, eight words each: U += L·V; V += U, with L the
// broadcast twiddle and Z14 the fold table. Clobbers T0..T3. The even/odd carry-less
// products are regrouped into (lo, hi) qword vectors; with g = hi ^ hi<<1 the reduced
// product is lo ^ foldTable[hi>>60] ^ g ^ g<<3.
#define FWDZ(U, V, L, T0, T1, T2, T3) \
	VPCLMULQDQ  $0x00, L, V, T0      \
	VPCLMULQDQ  $0x11, L, V, T1      \
	VPUNPCKLQDQ T1, T0, T3           \
	VPUNPCKHQDQ T1, T0, T2           \
	VPSRLQ      $60, T2, T0          \
	VPSHUFB     T0, Z14, T0          \
	VPSLLQ      $1, T2, T1           \
	VPXORQ      T1, T2, T2           \
	VPSLLQ      $3, T2, T1           \
	VPTERNLOGQ  $0x96, T2, T0, T3    \
	VPTERNLOGQ  $0x96, T1, T3, U     \
	VPXORQ      U, V, V

// INVZ is the inverse butterfly on registers: V += U; U += L·V. Clobbers T0..T3.
#define INVZ(U, V, L, T0, T1, T2, T3) \
	VPXORQ      U, V, V              \
	VPCLMULQDQ  $0x00, L, V, T0      \
	VPCLMULQDQ  $0x11, L, V, T1      \
	VPUNPCKLQDQ T1, T0, T3           \
	VPUNPCKHQDQ T1, T0, T2           \
	VPSRLQ      $60, T2, T0          \
	VPSHUFB     T0, Z14, T0          \
	VPSLLQ      $1, T2, T1           \
	VPXORQ      T1, T2, T2           \
	VPSLLQ      $3, T2, T1           \
	VPTERNLOGQ  $0x96, T2, T0, T3    \
	VPTERNLOGQ  $0x96, T1, T3, U

// func fwdZ(u, v *uint64, n int, lambda uint64)
// u[i] += lambda*v[i]; v[i] += u[i]. n > 0, n % 8 == 0.
TEXT ·fwdZ(SB), NOSPLIT, $0-32
	MOVQ            u+0(FP), DI
	MOVQ            v+8(FP), SI
	MOVQ            n+16(FP), CX
	VPBROADCASTQ    lambda+24(FP), Z15
	VBROADCASTI32X4 foldTable16<>(SB), Z14

fwdz16:
	CMPQ      CX, $16
	JB        fwdz8
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	VMOVDQU64 64(DI), Z2
	VMOVDQU64 64(SI), Z3
	FWDZ(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	FWDZ(Z2, Z3, Z15, Z8, Z9, Z10, Z11)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)
	VMOVDQU64 Z2, 64(DI)
	VMOVDQU64 Z3, 64(SI)
	ADDQ      $128, DI
	ADDQ      $128, SI
	SUBQ      $16, CX
	JMP       fwdz16

fwdz8:
	TESTQ     CX, CX
	JZ        fwdzdone
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	FWDZ(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)

fwdzdone:
	VZEROUPPER
	RET

// func invZ(u, v *uint64, n int, lambda uint64)
// v[i] += u[i]; u[i] += lambda*v[i]. n > 0, n % 8 == 0.
TEXT ·invZ(SB), NOSPLIT, $0-32
	MOVQ            u+0(FP), DI
	MOVQ            v+8(FP), SI
	MOVQ            n+16(FP), CX
	VPBROADCASTQ    lambda+24(FP), Z15
	VBROADCASTI32X4 foldTable16<>(SB), Z14

invz16:
	CMPQ      CX, $16
	JB        invz8
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	VMOVDQU64 64(DI), Z2
	VMOVDQU64 64(SI), Z3
	INVZ(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	INVZ(Z2, Z3, Z15, Z8, Z9, Z10, Z11)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)
	VMOVDQU64 Z2, 64(DI)
	VMOVDQU64 Z3, 64(SI)
	ADDQ      $128, DI
	ADDQ      $128, SI
	SUBQ      $16, CX
	JMP       invz16

invz8:
	TESTQ     CX, CX
	JZ        invzdone
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	INVZ(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)

invzdone:
	VZEROUPPER
	RET

// RADIX4Z is the radix-4 group on the rows Z0..Z3 (a, b, c, d): (a, c) and (b, d) with the
// twiddle in Z11, then (a, b) with Z12 and (c, d) with Z13. Clobbers Z4..Z10, Z15.
#define RADIX4Z \
	FWDZ(Z0, Z2, Z11, Z4, Z5, Z6, Z7)   \
	FWDZ(Z1, Z3, Z11, Z8, Z9, Z10, Z15) \
	FWDZ(Z0, Z1, Z12, Z4, Z5, Z6, Z7)   \
	FWDZ(Z2, Z3, Z13, Z8, Z9, Z10, Z15)

// func fwd4Z(a, b, c, d *uint64, n int, t0, t1, t2 uint64)
// Two forward layers on four rows: (a, c) and (b, d) with t0, then (a, b) with t1 and
// (c, d) with t2. n > 0, n % 8 == 0.
TEXT ·fwd4Z(SB), NOSPLIT, $0-64
	MOVQ            a+0(FP), DI
	MOVQ            b+8(FP), SI
	MOVQ            c+16(FP), R8
	MOVQ            d+24(FP), R9
	MOVQ            n+32(FP), CX
	VPBROADCASTQ    t0+40(FP), Z11
	VPBROADCASTQ    t1+48(FP), Z12
	VPBROADCASTQ    t2+56(FP), Z13
	VBROADCASTI32X4 foldTable16<>(SB), Z14
	XORQ            AX, AX

fwd4zloop:
	VMOVDQU64 (DI)(AX*8), Z0
	VMOVDQU64 (SI)(AX*8), Z1
	VMOVDQU64 (R8)(AX*8), Z2
	VMOVDQU64 (R9)(AX*8), Z3
	RADIX4Z
	VMOVDQU64 Z0, (DI)(AX*8)
	VMOVDQU64 Z1, (SI)(AX*8)
	VMOVDQU64 Z2, (R8)(AX*8)
	VMOVDQU64 Z3, (R9)(AX*8)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        fwd4zloop
	VZEROUPPER
	RET

// func fwd4ioZ(o0, o1, o2, o3, i0, i1, i2, i3 *uint64, n int, t0, t1, t2 uint64)
// fwd4Z reading rows i0..i3 and writing rows o0..o3: each column of eight words is loaded
// from every input before any output is stored, so o_k may equal i_k. n > 0, n % 8 == 0.
TEXT ·fwd4ioZ(SB), NOSPLIT, $0-96
	MOVQ            o0+0(FP), DI
	MOVQ            o1+8(FP), SI
	MOVQ            o2+16(FP), R8
	MOVQ            o3+24(FP), R9
	MOVQ            i0+32(FP), R10
	MOVQ            i1+40(FP), R11
	MOVQ            i2+48(FP), R12
	MOVQ            i3+56(FP), R13
	MOVQ            n+64(FP), CX
	VPBROADCASTQ    t0+72(FP), Z11
	VPBROADCASTQ    t1+80(FP), Z12
	VPBROADCASTQ    t2+88(FP), Z13
	VBROADCASTI32X4 foldTable16<>(SB), Z14
	XORQ            AX, AX

fwd4iozloop:
	VMOVDQU64 (R10)(AX*8), Z0
	VMOVDQU64 (R11)(AX*8), Z1
	VMOVDQU64 (R12)(AX*8), Z2
	VMOVDQU64 (R13)(AX*8), Z3
	RADIX4Z
	VMOVDQU64 Z0, (DI)(AX*8)
	VMOVDQU64 Z1, (SI)(AX*8)
	VMOVDQU64 Z2, (R8)(AX*8)
	VMOVDQU64 Z3, (R9)(AX*8)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        fwd4iozloop
	VZEROUPPER
	RET

// func fwdioZ(uo, vo, ui, vi *uint64, n int, lambda uint64)
// The forward butterfly reading rows ui, vi and writing rows uo, vo: each eight-word column
// is loaded before it is stored, so uo may equal ui and vo vi. n > 0, n % 8 == 0.
TEXT ·fwdioZ(SB), NOSPLIT, $0-48
	MOVQ            uo+0(FP), DI
	MOVQ            vo+8(FP), SI
	MOVQ            ui+16(FP), R10
	MOVQ            vi+24(FP), R11
	MOVQ            n+32(FP), CX
	VPBROADCASTQ    lambda+40(FP), Z11
	VBROADCASTI32X4 foldTable16<>(SB), Z14
	XORQ            AX, AX

fwdiozloop:
	VMOVDQU64 (R10)(AX*8), Z0
	VMOVDQU64 (R11)(AX*8), Z1
	FWDZ(Z0, Z1, Z11, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (DI)(AX*8)
	VMOVDQU64 Z1, (SI)(AX*8)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        fwdiozloop
	VZEROUPPER
	RET

// func fwd4BlocksZ(buf *uint64, s, cols, nb int, tw *uint64)
// fwd4 on words 0..cols−1 of nb consecutive blocks of four rows of s words: block k's rows
// a, b, c, d are buf[(4k+i)·s ..], its twiddles tw[3k], tw[3k+1], tw[3k+2].
// nb > 0; 0 < cols ≤ s, cols % 8 == 0.
TEXT ·fwd4BlocksZ(SB), NOSPLIT, $0-40
	MOVQ            buf+0(FP), DI
	MOVQ            s+8(FP), BX
	SHLQ            $3, BX
	MOVQ            cols+16(FP), R13
	SHLQ            $3, R13
	MOVQ            nb+24(FP), DX
	MOVQ            tw+32(FP), R12
	VBROADCASTI32X4 foldTable16<>(SB), Z14

fwd4bzblock:
	VPBROADCASTQ (R12), Z11
	VPBROADCASTQ 8(R12), Z12
	VPBROADCASTQ 16(R12), Z13
	LEAQ         (DI)(BX*1), SI
	LEAQ         (DI)(BX*2), R8
	LEAQ         (SI)(BX*2), R9
	XORQ         AX, AX

fwd4bzloop:
	VMOVDQU64 (DI)(AX*1), Z0
	VMOVDQU64 (SI)(AX*1), Z1
	VMOVDQU64 (R8)(AX*1), Z2
	VMOVDQU64 (R9)(AX*1), Z3
	RADIX4Z
	VMOVDQU64 Z0, (DI)(AX*1)
	VMOVDQU64 Z1, (SI)(AX*1)
	VMOVDQU64 Z2, (R8)(AX*1)
	VMOVDQU64 Z3, (R9)(AX*1)
	ADDQ      $64, AX
	CMPQ      AX, R13
	JB        fwd4bzloop
	LEAQ      (DI)(BX*4), DI
	ADDQ      $24, R12
	DECQ      DX
	JNZ       fwd4bzblock
	VZEROUPPER
	RET

// func transposeRev8(out *uint64, s int, src *uint64, laneStride int, nrows int)
// Transposes eight lanes (lane k = src[k*laneStride ..]) of nrows words into nrows rows of
// s words at out, each row taking the eight lanes in DESCENDING order (lane 7 first): an
// 8×8 transpose of qwords per eight rows, the lanes loaded in reverse into Z0..Z7.
// Requires AVX-512F; nrows a positive multiple of 8; no alignment.
TEXT ·transposeRev8(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ s+8(FP), BX
	SHLQ $3, BX
	MOVQ src+16(FP), SI
	MOVQ laneStride+24(FP), DX
	SHLQ $3, DX
	MOVQ nrows+32(FP), CX
	// Lane k at SI + k·DX: R8 = SI + 3·DX, R9 = SI + 6·DX.
	LEAQ (SI)(DX*2), R8
	ADDQ DX, R8
	LEAQ (R8)(DX*2), R9
	ADDQ DX, R9

tr8loop:
	// Row k of the output at DI + k·BX: R10 = DI + 3·BX, R11 = DI + 6·BX.
	LEAQ      (DI)(BX*2), R10
	ADDQ      BX, R10
	LEAQ      (R10)(BX*2), R11
	ADDQ      BX, R11
	VMOVDQU64 (R8)(DX*4), Z0
	VMOVDQU64 (R9), Z1
	VMOVDQU64 (R8)(DX*2), Z2
	VMOVDQU64 (SI)(DX*4), Z3
	VMOVDQU64 (R8), Z4
	VMOVDQU64 (SI)(DX*2), Z5
	VMOVDQU64 (SI)(DX*1), Z6
	VMOVDQU64 (SI), Z7
	VPUNPCKLQDQ Z1, Z0, Z8
	VPUNPCKHQDQ Z1, Z0, Z9
	VPUNPCKLQDQ Z3, Z2, Z10
	VPUNPCKHQDQ Z3, Z2, Z11
	VPUNPCKLQDQ Z5, Z4, Z12
	VPUNPCKHQDQ Z5, Z4, Z13
	VPUNPCKLQDQ Z7, Z6, Z14
	VPUNPCKHQDQ Z7, Z6, Z15
	VSHUFI64X2 $0x44, Z10, Z8, Z16
	VSHUFI64X2 $0xEE, Z10, Z8, Z17
	VSHUFI64X2 $0x44, Z14, Z12, Z18
	VSHUFI64X2 $0xEE, Z14, Z12, Z19
	VSHUFI64X2 $0x88, Z18, Z16, Z24
	VSHUFI64X2 $0xDD, Z18, Z16, Z26
	VSHUFI64X2 $0x88, Z19, Z17, Z28
	VSHUFI64X2 $0xDD, Z19, Z17, Z30
	VSHUFI64X2 $0x44, Z11, Z9, Z20
	VSHUFI64X2 $0xEE, Z11, Z9, Z21
	VSHUFI64X2 $0x44, Z15, Z13, Z22
	VSHUFI64X2 $0xEE, Z15, Z13, Z23
	VSHUFI64X2 $0x88, Z22, Z20, Z25
	VSHUFI64X2 $0xDD, Z22, Z20, Z27
	VSHUFI64X2 $0x88, Z23, Z21, Z29
	VSHUFI64X2 $0xDD, Z23, Z21, Z31
	VMOVDQU64 Z24, (DI)
	VMOVDQU64 Z25, (DI)(BX*1)
	VMOVDQU64 Z26, (DI)(BX*2)
	VMOVDQU64 Z27, (R10)
	VMOVDQU64 Z28, (DI)(BX*4)
	VMOVDQU64 Z29, (R10)(BX*2)
	VMOVDQU64 Z30, (R11)
	VMOVDQU64 Z31, (R10)(BX*4)
	ADDQ      $64, SI
	ADDQ      $64, R8
	ADDQ      $64, R9
	LEAQ      (DI)(BX*8), DI
	SUBQ      $8, CX
	JNZ       tr8loop
	VZEROUPPER
	RET

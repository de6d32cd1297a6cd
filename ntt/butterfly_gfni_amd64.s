//go:build amd64 && !purego

#include "textflag.h"

// The GFNI variants of the AVX-512 butterflies (level avx512-gfni), otherwise as in
// butterfly_avx512_amd64.s: the reduction of hi (the top 64 bits of each
// carry-less product) as three per-byte affine maps instead of shifts and the fold table:
// with r = hi rotated left by 8 bits, the reduced product is lo ^ A1(hi) ^ A2(r) with byte 0
// of A2(r) replaced by A3(r). A1 is a byte's product by p = 1 + x + x^3 + x^4 modulo x^8
// (the in-byte part of hi·p), A2 its carry past bit 7 (what the byte below, or for byte 0 the
// top byte, pushes into this one: b>>7 ^ b>>5 ^ b>>4), and A3 = A1∘A2 (the carry of hi's top
// byte past x^64, folded once more by x^64 = p; it has degree < 8, so it stops there).
DATA gfM1<>+0x00(SB)/8, $0x0103060d1b366cd8
GLOBL gfM1<>(SB), RODATA|NOPTR, $8
DATA gfM2<>+0x00(SB)/8, $0xb060c08000000000
GLOBL gfM2<>(SB), RODATA|NOPTR, $8
DATA gfM3<>+0x00(SB)/8, $0xb0d0a0f050a04080
GLOBL gfM3<>(SB), RODATA|NOPTR, $8

// GFSETUP loads the three matrices into Z16..Z18 and the byte-0 mask into K1.
#define GFSETUP \
	VPBROADCASTQ gfM1<>(SB), Z16 \
	VPBROADCASTQ gfM2<>(SB), Z17 \
	VPBROADCASTQ gfM3<>(SB), Z18 \
	MOVQ         $0x0101010101010101, AX \
	KMOVQ        AX, K1

// FWDG is FWDZ (butterfly_avx512_amd64.s) with the GFNI reduction: U += L·V; V += U.
// Needs Z16..Z18 and K1 from GFSETUP. Clobbers T0..T3.
#define FWDG(U, V, L, T0, T1, T2, T3) \
	VPCLMULQDQ     $0x00, L, V, T0      \
	VPCLMULQDQ     $0x11, L, V, T1      \
	VPUNPCKLQDQ    T1, T0, T3           \
	VPUNPCKHQDQ    T1, T0, T2           \
	VPROLQ         $8, T2, T0           \
	VGF2P8AFFINEQB $0, Z16, T2, T1      \
	VGF2P8AFFINEQB $0, Z17, T0, T2      \
	VGF2P8AFFINEQB $0, Z18, T0, K1, T2  \
	VPTERNLOGQ     $0x96, T1, T3, U     \
	VPXORQ         T2, U, U             \
	VPXORQ         U, V, V

// INVG is INVZ with the GFNI reduction: V += U; U += L·V. Clobbers T0..T3.
#define INVG(U, V, L, T0, T1, T2, T3) \
	VPXORQ         U, V, V              \
	VPCLMULQDQ     $0x00, L, V, T0      \
	VPCLMULQDQ     $0x11, L, V, T1      \
	VPUNPCKLQDQ    T1, T0, T3           \
	VPUNPCKHQDQ    T1, T0, T2           \
	VPROLQ         $8, T2, T0           \
	VGF2P8AFFINEQB $0, Z16, T2, T1      \
	VGF2P8AFFINEQB $0, Z17, T0, T2      \
	VGF2P8AFFINEQB $0, Z18, T0, K1, T2  \
	VPTERNLOGQ     $0x96, T1, T3, U     \
	VPXORQ         T2, U, U

// func fwdG(u, v *uint64, n int, lambda uint64)
// u[i] += lambda*v[i]; v[i] += u[i]. n > 0, n % 8 == 0.
TEXT ·fwdG(SB), NOSPLIT, $0-32
	MOVQ            u+0(FP), DI
	MOVQ            v+8(FP), SI
	MOVQ            n+16(FP), CX
	VPBROADCASTQ    lambda+24(FP), Z15
	GFSETUP

fwdg16:
	CMPQ      CX, $16
	JB        fwdg8
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	VMOVDQU64 64(DI), Z2
	VMOVDQU64 64(SI), Z3
	FWDG(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	FWDG(Z2, Z3, Z15, Z8, Z9, Z10, Z11)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)
	VMOVDQU64 Z2, 64(DI)
	VMOVDQU64 Z3, 64(SI)
	ADDQ      $128, DI
	ADDQ      $128, SI
	SUBQ      $16, CX
	JMP       fwdg16

fwdg8:
	TESTQ     CX, CX
	JZ        fwdgdone
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	FWDG(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)

fwdgdone:
	VZEROUPPER
	RET

// func invG(u, v *uint64, n int, lambda uint64)
// v[i] += u[i]; u[i] += lambda*v[i]. n > 0, n % 8 == 0.
TEXT ·invG(SB), NOSPLIT, $0-32
	MOVQ            u+0(FP), DI
	MOVQ            v+8(FP), SI
	MOVQ            n+16(FP), CX
	VPBROADCASTQ    lambda+24(FP), Z15
	GFSETUP

invg16:
	CMPQ      CX, $16
	JB        invg8
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	VMOVDQU64 64(DI), Z2
	VMOVDQU64 64(SI), Z3
	INVG(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	INVG(Z2, Z3, Z15, Z8, Z9, Z10, Z11)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)
	VMOVDQU64 Z2, 64(DI)
	VMOVDQU64 Z3, 64(SI)
	ADDQ      $128, DI
	ADDQ      $128, SI
	SUBQ      $16, CX
	JMP       invg16

invg8:
	TESTQ     CX, CX
	JZ        invgdone
	VMOVDQU64 (DI), Z0
	VMOVDQU64 (SI), Z1
	INVG(Z0, Z1, Z15, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (SI)

invgdone:
	VZEROUPPER
	RET

// RADIX4G is the radix-4 group on the rows Z0..Z3 (a, b, c, d): (a, c) and (b, d) with the
// twiddle in Z11, then (a, b) with Z12 and (c, d) with Z13. Clobbers Z4..Z10, Z15.
#define RADIX4G \
	FWDG(Z0, Z2, Z11, Z4, Z5, Z6, Z7)   \
	FWDG(Z1, Z3, Z11, Z8, Z9, Z10, Z15) \
	FWDG(Z0, Z1, Z12, Z4, Z5, Z6, Z7)   \
	FWDG(Z2, Z3, Z13, Z8, Z9, Z10, Z15)

// func fwd4G(a, b, c, d *uint64, n int, t0, t1, t2 uint64)
// Two forward layers on four rows: (a, c) and (b, d) with t0, then (a, b) with t1 and
// (c, d) with t2. n > 0, n % 8 == 0.
TEXT ·fwd4G(SB), NOSPLIT, $0-64
	MOVQ            a+0(FP), DI
	MOVQ            b+8(FP), SI
	MOVQ            c+16(FP), R8
	MOVQ            d+24(FP), R9
	MOVQ            n+32(FP), CX
	VPBROADCASTQ    t0+40(FP), Z11
	VPBROADCASTQ    t1+48(FP), Z12
	VPBROADCASTQ    t2+56(FP), Z13
	GFSETUP
	XORQ            AX, AX

fwd4gloop:
	VMOVDQU64 (DI)(AX*8), Z0
	VMOVDQU64 (SI)(AX*8), Z1
	VMOVDQU64 (R8)(AX*8), Z2
	VMOVDQU64 (R9)(AX*8), Z3
	RADIX4G
	VMOVDQU64 Z0, (DI)(AX*8)
	VMOVDQU64 Z1, (SI)(AX*8)
	VMOVDQU64 Z2, (R8)(AX*8)
	VMOVDQU64 Z3, (R9)(AX*8)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        fwd4gloop
	VZEROUPPER
	RET

// func fwd4ioG(o0, o1, o2, o3, i0, i1, i2, i3 *uint64, n int, t0, t1, t2 uint64)
// fwd4G reading rows i0..i3 and writing rows o0..o3: each column of eight words is loaded
// from every input before any output is stored, so o_k may equal i_k. n > 0, n % 8 == 0.
TEXT ·fwd4ioG(SB), NOSPLIT, $0-96
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
	GFSETUP
	XORQ            AX, AX

fwd4iogloop:
	VMOVDQU64 (R10)(AX*8), Z0
	VMOVDQU64 (R11)(AX*8), Z1
	VMOVDQU64 (R12)(AX*8), Z2
	VMOVDQU64 (R13)(AX*8), Z3
	RADIX4G
	VMOVDQU64 Z0, (DI)(AX*8)
	VMOVDQU64 Z1, (SI)(AX*8)
	VMOVDQU64 Z2, (R8)(AX*8)
	VMOVDQU64 Z3, (R9)(AX*8)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        fwd4iogloop
	VZEROUPPER
	RET

// func fwdioG(uo, vo, ui, vi *uint64, n int, lambda uint64)
// The forward butterfly reading rows ui, vi and writing rows uo, vo: each eight-word column
// is loaded before it is stored, so uo may equal ui and vo vi. n > 0, n % 8 == 0.
TEXT ·fwdioG(SB), NOSPLIT, $0-48
	MOVQ            uo+0(FP), DI
	MOVQ            vo+8(FP), SI
	MOVQ            ui+16(FP), R10
	MOVQ            vi+24(FP), R11
	MOVQ            n+32(FP), CX
	VPBROADCASTQ    lambda+40(FP), Z11
	GFSETUP
	XORQ            AX, AX

fwdiogloop:
	VMOVDQU64 (R10)(AX*8), Z0
	VMOVDQU64 (R11)(AX*8), Z1
	FWDG(Z0, Z1, Z11, Z4, Z5, Z6, Z7)
	VMOVDQU64 Z0, (DI)(AX*8)
	VMOVDQU64 Z1, (SI)(AX*8)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        fwdiogloop
	VZEROUPPER
	RET

// func fwd4BlocksG(buf *uint64, s, cols, nb int, tw *uint64)
// fwd4G on words 0..cols−1 of nb consecutive blocks of four rows of s words: block k's rows
// a, b, c, d are buf[(4k+i)·s ..], its twiddles tw[3k], tw[3k+1], tw[3k+2].
// nb > 0; 0 < cols ≤ s, cols % 8 == 0.
TEXT ·fwd4BlocksG(SB), NOSPLIT, $0-40
	MOVQ            buf+0(FP), DI
	MOVQ            s+8(FP), BX
	SHLQ            $3, BX
	MOVQ            cols+16(FP), R13
	SHLQ            $3, R13
	MOVQ            nb+24(FP), DX
	MOVQ            tw+32(FP), R12
	GFSETUP

fwd4bgblock:
	VPBROADCASTQ (R12), Z11
	VPBROADCASTQ 8(R12), Z12
	VPBROADCASTQ 16(R12), Z13
	LEAQ         (DI)(BX*1), SI
	LEAQ         (DI)(BX*2), R8
	LEAQ         (SI)(BX*2), R9
	XORQ         AX, AX

fwd4bgloop:
	VMOVDQU64 (DI)(AX*1), Z0
	VMOVDQU64 (SI)(AX*1), Z1
	VMOVDQU64 (R8)(AX*1), Z2
	VMOVDQU64 (R9)(AX*1), Z3
	RADIX4G
	VMOVDQU64 Z0, (DI)(AX*1)
	VMOVDQU64 Z1, (SI)(AX*1)
	VMOVDQU64 Z2, (R8)(AX*1)
	VMOVDQU64 Z3, (R9)(AX*1)
	ADDQ      $64, AX
	CMPQ      AX, R13
	JB        fwd4bgloop
	LEAQ      (DI)(BX*4), DI
	ADDQ      $24, R12
	DECQ      DX
	JNZ       fwd4bgblock
	VZEROUPPER
	RET

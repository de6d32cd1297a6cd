package ntt

import (
	"crypto/subtle"
	"unsafe"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/simd"
)

// Kernels is the NTT butterfly family ("ntt" in cpu's registry): portable, PCLMULQDQ
// on xmm (two words at a time) and, where this build has the assembly, AVX2 with
// VPCLMULQDQ on ymm (four words at a time) and AVX-512 with VPCLMULQDQ on zmm (eight
// words at a time; the avx512-vpclmul level runs the ymm kernels on a row's last four
// words when its length is 4 mod 8) and, at avx512-gfni, the same zmm kernels with the
// reduction done by GF2P8AFFINEQB.
var Kernels = cpu.NewFamily("ntt", archLevels...)

// fwd applies the forward butterfly u ← u + λ·v, v ← v + u word by word
// (len(u) == len(v)).
func fwd(u, v []uint64, lambda uint64) {
	if lambda == 0 {
		// Block 0 of every layer: u is unchanged and v ← v + u.
		xorWords(v[:len(u)], u)
		return
	}
	switch lv := Kernels.Level(); {
	case lv >= cpu.AVX2VPCLMUL:
		fwdAsm(u, v, lambda)
	case lv >= cpu.PCLMUL:
		fwdPCLMUL(u, v, lambda)
	default:
		fwdGeneric(u, v, lambda)
	}
}

// fwd4 applies two forward layers to four rows of equal length: (a, c) and (b, d)
// with t0, then (a, b) with t1 and (c, d) with t2 (a radix-4 group; the asm level
// keeps the four words of each row in registers across both layers).
func fwd4(a, b, c, d []uint64, t0, t1, t2 uint64) {
	if Kernels.Level() >= cpu.AVX2VPCLMUL && t0 != 0 {
		fwd4Asm(a, b, c, d, t0, t1, t2)
		return
	}
	fwd4Generic(a, b, c, d, t0, t1, t2)
}

// fwd4Generic is fwd4 as its four butterflies.
func fwd4Generic(a, b, c, d []uint64, t0, t1, t2 uint64) {
	fwd(a, c, t0)
	fwd(b, d, t0)
	fwd(a, b, t1)
	fwd(c, d, t2)
}

// fwd4io is fwd4 reading rows in[0..3] and writing rows o[0..3], all of length
// len(o[0]); o[k] is either in[k] itself or a row overlapping no other.
func fwd4io(o, in *[4][]uint64, t0, t1, t2 uint64) {
	if Kernels.Level() >= cpu.AVX2VPCLMUL {
		fwd4ioAsm(o, in, t0, t1, t2)
		return
	}
	fwd4ioGeneric(o, in, t0, t1, t2)
}

// fwd4ioGeneric is fwd4io as a copy and fwd4 in place.
func fwd4ioGeneric(o, in *[4][]uint64, t0, t1, t2 uint64) {
	n := len(o[0])
	for k := range 4 {
		copy(o[k][:n], in[k][:n])
	}
	fwd4(o[0][:n], o[1][:n], o[2][:n], o[3][:n], t0, t1, t2)
}

// fwdio is fwd reading rows ui, vi and writing rows uo, vo, all of length len(uo);
// uo is ui itself or overlaps no other row, and likewise vo.
func fwdio(uo, vo, ui, vi []uint64, lambda uint64) {
	if Kernels.Level() >= cpu.AVX2VPCLMUL {
		fwdioAsm(uo, vo, ui, vi, lambda)
		return
	}
	fwdioGeneric(uo, vo, ui, vi, lambda)
}

// fwdioGeneric is fwdio as a copy and fwd in place.
func fwdioGeneric(uo, vo, ui, vi []uint64, lambda uint64) {
	n := len(uo)
	copy(uo, ui[:n])
	copy(vo[:n], vi[:n])
	fwd(uo, vo[:n], lambda)
}

// fwd4Blocks runs fwd4 on len(tw)/3 consecutive blocks of four rows of s words: block
// k is buf[4k·s : 4(k+1)·s], its rows a, b, c, d in order, its twiddles tw[3k..3k+2].
func fwd4Blocks(buf []uint64, s int, tw []uint64) {
	if Kernels.Level() >= cpu.AVX2VPCLMUL {
		fwd4BlocksAsm(buf, s, tw)
		return
	}
	fwd4BlocksGeneric(buf, s, tw)
}

// fwd4BlocksGeneric is fwd4Blocks as one fwd4 per block.
func fwd4BlocksGeneric(buf []uint64, s int, tw []uint64) {
	for k := range len(tw) / 3 {
		b := buf[4*k*s : 4*(k+1)*s]
		fwd4(b[:s], b[s:2*s], b[2*s:3*s], b[3*s:], tw[3*k], tw[3*k+1], tw[3*k+2])
	}
}

// xorWords sets dst[i] ^= src[i] (len(dst) == len(src)).
func xorWords(dst, src []uint64) {
	if len(dst) == 0 {
		return
	}
	d := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 8*len(dst))
	s := unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 8*len(src))
	subtle.XORBytes(d, d, s)
}

// inv applies the inverse butterfly v ← v + u, u ← u + λ·v word by word.
func inv(u, v []uint64, lambda uint64) {
	switch lv := Kernels.Level(); {
	case lv >= cpu.AVX2VPCLMUL:
		invAsm(u, v, lambda)
	case lv >= cpu.PCLMUL:
		invPCLMUL(u, v, lambda)
	default:
		invGeneric(u, v, lambda)
	}
}

// shortRun is the length below which the portable kernels multiply word by word
// rather than build a product table for λ.
const shortRun = 32

func fwdGeneric(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	if lambda == 0 {
		for i := range u {
			v[i] ^= u[i]
		}
		return
	}
	if len(u) < shortRun {
		fwdShort(u, v, lambda)
		return
	}
	var m mulTable
	m.init(lambda)
	for i := range u {
		y := v[i]
		x := u[i] ^ m.mul(y)
		u[i] = x
		v[i] = y ^ x
	}
}

func invGeneric(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	if lambda == 0 {
		for i := range u {
			v[i] ^= u[i]
		}
		return
	}
	if len(u) < shortRun {
		invShort(u, v, lambda)
		return
	}
	var m mulTable
	m.init(lambda)
	for i := range u {
		y := v[i] ^ u[i]
		v[i] = y
		u[i] ^= m.mul(y)
	}
}

// fwdShort is the forward butterfly with one scalar product per word (simd.MulK).
func fwdShort(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	for i := range u {
		y := v[i]
		x := u[i] ^ simd.MulK(y, lambda)
		u[i] = x
		v[i] = y ^ x
	}
}

// invShort is the inverse butterfly with one scalar product per word.
func invShort(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	for i := range u {
		y := v[i] ^ u[i]
		v[i] = y
		u[i] ^= simd.MulK(y, lambda)
	}
}

// mulTable multiplies K words by a fixed λ: the carry-less products λ·i for i < 256,
// held as (hi, lo) word pairs, make the product eight table lookups.
type mulTable struct {
	lo, hi [256]uint64
}

func (m *mulTable) init(lambda uint64) {
	for i := 1; i < 256; i++ {
		if i&1 != 0 {
			m.lo[i] = m.lo[i^1] ^ lambda
			m.hi[i] = m.hi[i^1]
		} else {
			m.lo[i] = m.lo[i>>1] << 1
			m.hi[i] = m.hi[i>>1]<<1 | m.lo[i>>1]>>63
		}
	}
}

// mul returns λ·y reduced modulo x^64 + x^4 + x^3 + x + 1.
func (m *mulTable) mul(y uint64) uint64 {
	var hi, lo uint64
	for s := 56; s >= 0; s -= 8 {
		hi = hi<<8 | lo>>56
		lo <<= 8
		b := y >> uint(s) & 0xff
		lo ^= m.lo[b]
		hi ^= m.hi[b]
	}
	over := hi>>63 ^ hi>>61 ^ hi>>60
	h := hi ^ over
	return lo ^ h ^ h<<1 ^ h<<3 ^ h<<4
}

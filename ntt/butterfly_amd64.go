//go:build amd64 && !purego

package ntt

import "github.com/leanpipe/leanpipe/cpu"

// archLevels are the butterfly kernels this build has beyond the portable ones.
var archLevels = []cpu.Level{cpu.PCLMUL, cpu.AVX2VPCLMUL, cpu.AVX512VPCLMUL, cpu.AVX512GFNI}

// fwdVPCL applies the forward butterfly to n words at u and v.
// Requires AVX2 and VPCLMULQDQ; n must be a positive multiple of 4; no alignment.
//
//go:noescape
func fwdVPCL(u, v *uint64, n int, lambda uint64)

// invVPCL applies the inverse butterfly to n words at u and v.
// Requires AVX2 and VPCLMULQDQ; n must be a positive multiple of 4; no alignment.
//
//go:noescape
func invVPCL(u, v *uint64, n int, lambda uint64)

// fwd4VPCL applies two forward layers to n words at each of four rows: (a, c) and
// (b, d) with t0, then (a, b) with t1 and (c, d) with t2.
// Requires AVX2 and VPCLMULQDQ; n must be a positive multiple of 4; no alignment.
//
//go:noescape
func fwd4VPCL(a, b, c, d *uint64, n int, t0, t1, t2 uint64)

// fwd4ioVPCL is fwd4VPCL reading rows i0..i3 and writing rows o0..o3 (o_k may equal
// i_k; otherwise the rows must not overlap).
// Requires AVX2 and VPCLMULQDQ; n must be a positive multiple of 4; no alignment.
//
//go:noescape
func fwd4ioVPCL(o0, o1, o2, o3, i0, i1, i2, i3 *uint64, n int, t0, t1, t2 uint64)

// fwdioVPCL is the forward butterfly reading rows ui, vi and writing rows uo, vo
// (uo may equal ui and vo vi; otherwise no overlap).
// Requires AVX2 and VPCLMULQDQ; n must be a positive multiple of 4; no alignment.
//
//go:noescape
func fwdioVPCL(uo, vo, ui, vi *uint64, n int, lambda uint64)

// fwd4BlocksVPCL runs the radix-4 kernel on words 0..cols−1 of nb consecutive blocks of
// four rows of s words, block k with the twiddles tw[3k..3k+2].
// Requires AVX2 and VPCLMULQDQ; nb > 0; cols a positive multiple of 4, at most s.
//
//go:noescape
func fwd4BlocksVPCL(buf *uint64, s, cols, nb int, tw *uint64)

// fwdPCL applies the forward butterfly to n words at u and v.
// Requires PCLMULQDQ (SSE2 is baseline); n must be a positive multiple of 2; no alignment.
//
//go:noescape
func fwdPCL(u, v *uint64, n int, lambda uint64)

// invPCL applies the inverse butterfly to n words at u and v.
// Requires PCLMULQDQ; n must be a positive multiple of 2; no alignment.
//
//go:noescape
func invPCL(u, v *uint64, n int, lambda uint64)

func fwdPCLMUL(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	n := len(u) &^ 1
	if n > 0 {
		fwdPCL(&u[0], &v[0], n, lambda)
	}
	if n < len(u) {
		fwdShort(u[n:], v[n:], lambda)
	}
}

func invPCLMUL(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	n := len(u) &^ 1
	if n > 0 {
		invPCL(&u[0], &v[0], n, lambda)
	}
	if n < len(u) {
		invShort(u[n:], v[n:], lambda)
	}
}

// transposeRev4 transposes four lanes (lane k at src + k·laneStride words) of nrows
// words into nrows rows of s words at out, lanes in descending order within a row.
// Requires AVX2; nrows a positive multiple of 4; no alignment.
//
//go:noescape
func transposeRev4(out *uint64, s int, src *uint64, laneStride int, nrows int)

// transposeTileAsm is transposeTile with the eight-lane AVX-512 kernel (at that level, when
// tile is a multiple of 8), then the four-lane AVX2 kernel.
func transposeTileAsm(out []uint64, s int, msg []uint64, n, rows, r0, tile int) {
	if tile%4 != 0 {
		transposeTileGeneric(out, s, msg, n, rows, r0, tile, 0)
		return
	}
	b0 := 0
	if Kernels.Level() >= cpu.AVX512VPCLMUL && tile%8 == 0 {
		for ; b0+8 <= n; b0 += 8 {
			_ = out[(tile-1)*s+s-1-b0]
			_ = msg[(b0+7)*rows+r0+tile-1]
			transposeRev8(&out[s-8-b0], s, &msg[b0*rows+r0], rows, tile)
		}
	}
	for ; b0+4 <= n; b0 += 4 {
		// The last word written is lane b0's at row tile−1; the last read is lane b0+3's.
		_ = out[(tile-1)*s+s-1-b0]
		_ = msg[(b0+3)*rows+r0+tile-1]
		transposeRev4(&out[s-4-b0], s, &msg[b0*rows+r0], rows, tile)
	}
	transposeTileGeneric(out, s, msg, n, rows, r0, tile, b0)
}

// zmmHead is the number of leading words of an n-word row the AVX-512 kernels take at the
// level in use (0 below avx512-vpclmul): a multiple of 8.
func zmmHead(n int) int {
	if Kernels.Level() >= cpu.AVX512VPCLMUL {
		return n &^ 7
	}
	return 0
}

// gfni reports whether the AVX-512 kernels run in their GFNI variants (level avx512-gfni).
func gfni() bool { return Kernels.Level() >= cpu.AVX512GFNI }

func fwdAsm(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	z := zmmHead(len(u))
	if z > 0 {
		if gfni() {
			fwdG(&u[0], &v[0], z, lambda)
		} else {
			fwdZ(&u[0], &v[0], z, lambda)
		}
	}
	n := len(u) &^ 3
	if n > z {
		fwdVPCL(&u[z], &v[z], n-z, lambda)
	}
	if n < len(u) {
		fwdShort(u[n:], v[n:], lambda)
	}
}

func invAsm(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	z := zmmHead(len(u))
	if z > 0 {
		if gfni() {
			invG(&u[0], &v[0], z, lambda)
		} else {
			invZ(&u[0], &v[0], z, lambda)
		}
	}
	n := len(u) &^ 3
	if n > z {
		invVPCL(&u[z], &v[z], n-z, lambda)
	}
	if n < len(u) {
		invShort(u[n:], v[n:], lambda)
	}
}

func fwd4Asm(a, b, c, d []uint64, t0, t1, t2 uint64) {
	n := len(a)
	b, c, d = b[:n], c[:n], d[:n]
	z := zmmHead(n)
	if z > 0 {
		if gfni() {
			fwd4G(&a[0], &b[0], &c[0], &d[0], z, t0, t1, t2)
		} else {
			fwd4Z(&a[0], &b[0], &c[0], &d[0], z, t0, t1, t2)
		}
	}
	m := n &^ 3
	if m > z {
		fwd4VPCL(&a[z], &b[z], &c[z], &d[z], m-z, t0, t1, t2)
	}
	if m < n {
		fwd4Generic(a[m:], b[m:], c[m:], d[m:], t0, t1, t2)
	}
}

func fwd4ioAsm(o, in *[4][]uint64, t0, t1, t2 uint64) {
	n := len(o[0])
	for k := range 4 {
		_, _ = o[k][:n], in[k][:n]
	}
	z := zmmHead(n)
	if z > 0 {
		if gfni() {
			fwd4ioG(&o[0][0], &o[1][0], &o[2][0], &o[3][0], &in[0][0], &in[1][0], &in[2][0], &in[3][0], z, t0, t1, t2)
		} else {
			fwd4ioZ(&o[0][0], &o[1][0], &o[2][0], &o[3][0], &in[0][0], &in[1][0], &in[2][0], &in[3][0], z, t0, t1, t2)
		}
	}
	m := n &^ 3
	if m > z {
		fwd4ioVPCL(&o[0][z], &o[1][z], &o[2][z], &o[3][z], &in[0][z], &in[1][z], &in[2][z], &in[3][z], m-z, t0, t1, t2)
	}
	if m < n {
		tail := [4][]uint64{in[0][m:n], in[1][m:n], in[2][m:n], in[3][m:n]}
		fwd4ioGeneric(&[4][]uint64{o[0][m:n], o[1][m:n], o[2][m:n], o[3][m:n]}, &tail, t0, t1, t2)
	}
}

func fwdioAsm(uo, vo, ui, vi []uint64, lambda uint64) {
	n := len(uo)
	_, _, _ = vo[:n], ui[:n], vi[:n]
	z := zmmHead(n)
	if z > 0 {
		if gfni() {
			fwdioG(&uo[0], &vo[0], &ui[0], &vi[0], z, lambda)
		} else {
			fwdioZ(&uo[0], &vo[0], &ui[0], &vi[0], z, lambda)
		}
	}
	m := n &^ 3
	if m > z {
		fwdioVPCL(&uo[z], &vo[z], &ui[z], &vi[z], m-z, lambda)
	}
	if m < n {
		fwdioGeneric(uo[m:n], vo[m:n], ui[m:n], vi[m:n], lambda)
	}
}

func fwd4BlocksAsm(buf []uint64, s int, tw []uint64) {
	nb := len(tw) / 3
	cols := s &^ 3
	if nb == 0 || cols == 0 {
		fwd4BlocksGeneric(buf, s, tw)
		return
	}
	_ = buf[4*nb*s-1]
	if z := zmmHead(s); z > 0 {
		if gfni() {
			fwd4BlocksG(&buf[0], s, z, nb, &tw[0])
		} else {
			fwd4BlocksZ(&buf[0], s, z, nb, &tw[0])
		}
		if z < cols {
			fwd4BlocksVPCL(&buf[z], s, cols-z, nb, &tw[0])
		}
	} else {
		fwd4BlocksVPCL(&buf[0], s, cols, nb, &tw[0])
	}
	if cols == s {
		return
	}
	for k := range nb {
		b := buf[4*k*s : 4*(k+1)*s]
		fwd4Generic(b[cols:s], b[s+cols:2*s], b[2*s+cols:3*s], b[3*s+cols:], tw[3*k], tw[3*k+1], tw[3*k+2])
	}
}

package simd

import "github.com/leanpipe/leanpipe/cpu"

// MulK returns a·b in K.
func MulK(a, b uint64) uint64 {
	if Kernels.Level() >= cpu.PCLMUL {
		return mulKArch(a, b)
	}
	return mulKGeneric(a, b)
}

// MulE writes a·b in E to dst; dst may equal a or b.
func MulE(dst, a, b *[3]uint64) {
	if Kernels.Level() >= cpu.PCLMUL {
		mulEArch(dst, a, b)
		return
	}
	mulEGeneric(dst, a, b)
}

// MulEKScalar writes a·k to dst for an E element a and a K element k; dst may equal a.
func MulEKScalar(dst, a *[3]uint64, k uint64) {
	if Kernels.Level() >= cpu.PCLMUL {
		mulEKScalarArch(dst, a, k)
		return
	}
	mulEKScalarGeneric(dst, a, k)
}

func needE(name string, v []uint64, n int) {
	if len(v) != 3*n {
		panic("simd: " + name + ": an E vector of the wrong length")
	}
}

func needK(name string, v []uint64, n int) {
	if len(v) != n {
		panic("simd: " + name + ": a K vector of the wrong length")
	}
}

func lenE(name string, v []uint64) int {
	if len(v)%3 != 0 {
		panic("simd: " + name + ": an E vector's length must be a multiple of 3")
	}
	return len(v) / 3
}

// MulKK writes dst[i] = a[i]·b[i] for K vectors of equal length.
func MulKK(dst, a, b []uint64) {
	needK("MulKK", a, len(dst))
	needK("MulKK", b, len(dst))
	d := mulKKArch(dst, a, b)
	mulKKGeneric(dst[d:], a[d:], b[d:])
}

// MulEK writes dst_i = a_i·b[i] for E vectors dst, a of n elements and a K vector b of n.
func MulEK(dst, a, b []uint64) {
	n := len(b)
	needE("MulEK", dst, n)
	needE("MulEK", a, n)
	d := mulEKArch(dst, a, b)
	mulEKGeneric(dst[3*d:], a[3*d:], b[d:])
}

// ScaleEK writes dst_i = a_i·s for E vectors dst, a and a K scalar s.
func ScaleEK(dst, a []uint64, s uint64) {
	n := lenE("ScaleEK", dst)
	needE("ScaleEK", a, n)
	d := scaleEKArch(dst, a, s)
	scaleEKGeneric(dst[3*d:], a[3*d:], s)
}

// MulEE writes dst_i = a_i·b_i for E vectors of equal length.
func MulEE(dst, a, b []uint64) {
	n := lenE("MulEE", dst)
	needE("MulEE", a, n)
	needE("MulEE", b, n)
	d := mulEEArch(dst, a, b)
	mulEEGeneric(dst[3*d:], a[3*d:], b[3*d:])
}

// ScaleE writes dst_i = a_i·s for E vectors dst, a and an E scalar s.
func ScaleE(dst, a []uint64, s *[3]uint64) {
	n := lenE("ScaleE", dst)
	needE("ScaleE", a, n)
	d := scaleEArch(dst, a, s)
	scaleEGeneric(dst[3*d:], a[3*d:], s)
}

// AxpyE adds s·src_i to dst_i for E vectors dst, src and an E scalar s.
func AxpyE(dst, src []uint64, s *[3]uint64) {
	n := lenE("AxpyE", dst)
	needE("AxpyE", src, n)
	d := axpyEArch(dst, src, s)
	axpyEGeneric(dst[3*d:], src[3*d:], s)
}

// AxpyKE adds s·src[i] to dst_i for an E vector dst of n elements, a K vector src of
// n and an E scalar s.
func AxpyKE(dst, src []uint64, s *[3]uint64) {
	needE("AxpyKE", dst, len(src))
	d := axpyKEArch(dst, src, s)
	axpyKEGeneric(dst[3*d:], src[d:], s)
}

// DotKE returns Σ a[i]·b_i for a K vector a of n and an E vector b of n elements.
// Products are summed unreduced and reduced once.
func DotKE(a, b []uint64) [3]uint64 {
	needE("DotKE", b, len(a))
	return dotKEArch(a, b)
}

// DotEE returns Σ a_i·b_i for E vectors of equal length. Products are summed
// unreduced and reduced once.
func DotEE(a, b []uint64) [3]uint64 {
	needE("DotEE", b, lenE("DotEE", a))
	return dotEEArch(a, b)
}

// FoldE writes dst_i = a_i + r·(a_i + b_i) for E vectors of equal length; dst may
// equal a or b.
func FoldE(dst, a, b []uint64, r *[3]uint64) {
	n := lenE("FoldE", dst)
	needE("FoldE", a, n)
	needE("FoldE", b, n)
	d := foldEArch(dst, a, b, r)
	foldEGeneric(dst[3*d:], a[3*d:], b[3*d:], r)
}

// FoldPairsE writes dst_i = src_{2i} + r·(src_{2i} + src_{2i+1}) for an E vector src
// of 2n elements and dst of n. dst may be the front of src (dst[0] at src[0]).
func FoldPairsE(dst, src []uint64, r *[3]uint64) {
	n := lenE("FoldPairsE", dst)
	needE("FoldPairsE", src, 2*n)
	d := foldPairsEArch(dst, src, r)
	foldPairsEGeneric(dst[3*d:], src[6*d:], r)
}

// FoldK writes dst_i = a[i] + r·(a[i] + b[i]) for K vectors a, b of n and an E vector
// dst of n elements.
func FoldK(dst, a, b []uint64, r *[3]uint64) {
	n := len(a)
	needK("FoldK", b, n)
	needE("FoldK", dst, n)
	d := foldKArch(dst, a, b, r)
	foldKGeneric(dst[3*d:], a[d:], b[d:], r)
}

// FoldPairsK writes dst_i = src[2i] + r·(src[2i] + src[2i+1]) for a K vector src of 2n
// and an E vector dst of n elements.
func FoldPairsK(dst, src []uint64, r *[3]uint64) {
	n := lenE("FoldPairsK", dst)
	needK("FoldPairsK", src, 2*n)
	d := foldPairsKArch(dst, src, r)
	foldPairsKGeneric(dst[3*d:], src[2*d:], r)
}

// DotPairsEE returns, for E vectors f, b of 2m elements read as m pairs
// (f_{2i}, f_{2i+1}): q0 = Σ f_{2i}·b_{2i}, q1 = Σ f_{2i+1}·b_{2i+1} and
// qInf = Σ (f_{2i} + f_{2i+1})·(b_{2i} + b_{2i+1}), the evaluations at 0, 1 and the
// leading coefficient of a product sumcheck's round polynomial on the lowest variable.
func DotPairsEE(f, b []uint64) (q0, q1, qInf [3]uint64) {
	n := lenE("DotPairsEE", f)
	needE("DotPairsEE", b, n)
	if n%2 != 0 {
		panic("simd: DotPairsEE: an odd number of elements")
	}
	return dotPairsEEArch(f, b)
}

package field

import "github.com/leanpipe/leanpipe/simd"

// The slice kernels run the simd package's vector kernels on the words of their
// arguments (see words.go). Unless a function says otherwise, dst may equal an input
// exactly but must not partly overlap it, and mismatched lengths panic.

// MulKSlice writes dst[i] = a[i]·b[i].
func MulKSlice(dst, a, b []K) { simd.MulKK(kWords(dst), kWords(a), kWords(b)) }

// MulEKSlice writes dst[i] = a[i]·b[i] for E vectors dst, a and a K vector b.
func MulEKSlice(dst, a []E, b []K) {
	if len(dst) != len(b) || len(a) != len(b) {
		panic("field: MulEKSlice needs equal lengths")
	}
	simd.MulEK(eWords(dst), eWords(a), kWords(b))
}

// ScaleEK writes dst[i] = src[i]·s for a K scalar s.
func ScaleEK(dst, src []E, s K) {
	if len(dst) != len(src) {
		panic("field: ScaleEK needs equal lengths")
	}
	simd.ScaleEK(eWords(dst), eWords(src), uint64(s))
}

// MulESlice writes dst[i] = a[i]·b[i].
func MulESlice(dst, a, b []E) {
	if len(dst) != len(a) || len(a) != len(b) {
		panic("field: MulESlice needs equal lengths")
	}
	simd.MulEE(eWords(dst), eWords(a), eWords(b))
}

// ScaleE writes dst[i] = src[i]·s.
func ScaleE(dst, src []E, s E) {
	if len(dst) != len(src) {
		panic("field: ScaleE needs equal lengths")
	}
	simd.ScaleE(eWords(dst), eWords(src), words3(&s))
}

// AddScaledE adds s·src[i] to dst[i].
func AddScaledE(dst, src []E, s E) {
	if len(dst) != len(src) {
		panic("field: AddScaledE needs equal lengths")
	}
	simd.AxpyE(eWords(dst), eWords(src), words3(&s))
}

// AddScaledKE adds s·src[i] to dst[i] for a K vector src.
func AddScaledKE(dst []E, src []K, s E) {
	if len(dst) != len(src) {
		panic("field: AddScaledKE needs equal lengths")
	}
	simd.AxpyKE(eWords(dst), kWords(src), words3(&s))
}

// AddSlice writes dst[i] = a[i] + b[i].
func AddSlice(dst, a, b []E) {
	if len(dst) != len(a) || len(a) != len(b) {
		panic("field: AddSlice needs equal lengths")
	}
	d, x, y := eWords(dst), eWords(a), eWords(b)
	for i := range d {
		d[i] = x[i] ^ y[i]
	}
}

// InnerProduct returns Σ a[i]·b[i]. It panics unless len(a) = len(b).
func InnerProduct(a, b []E) E {
	if len(a) != len(b) {
		panic("field: InnerProduct needs equal lengths")
	}
	return fromWords(simd.DotEE(eWords(a), eWords(b)))
}

// InnerProductKE returns Σ a[i]·b[i] for a K vector a and an E vector b. It panics
// unless len(a) = len(b).
func InnerProductKE(a []K, b []E) E {
	if len(a) != len(b) {
		panic("field: InnerProductKE needs equal lengths")
	}
	return fromWords(simd.DotKE(kWords(a), eWords(b)))
}

// FoldLow writes dst[i] = src[2i] + r·(src[2i] + src[2i+1]): it fixes the lowest
// variable of the multilinear table src to r. It panics unless len(src) = 2·len(dst).
// dst may be the front of src (in-place folding).
func FoldLow(dst, src []E, r E) {
	if len(src) != 2*len(dst) {
		panic("field: FoldLow needs len(src) = 2·len(dst)")
	}
	simd.FoldPairsE(eWords(dst), eWords(src), words3(&r))
}

// FoldLowK is FoldLow for a K table.
func FoldLowK(dst []E, src []K, r E) {
	if len(src) != 2*len(dst) {
		panic("field: FoldLowK needs len(src) = 2·len(dst)")
	}
	simd.FoldPairsK(eWords(dst), kWords(src), words3(&r))
}

// FoldHigh writes dst[i] = src[i] + r·(src[i] + src[i+h]) with h = len(dst): it fixes
// the highest variable of src to r. It panics unless len(src) = 2·len(dst). dst may be
// the front of src (in-place folding).
func FoldHigh(dst, src []E, r E) {
	h := len(dst)
	if len(src) != 2*h {
		panic("field: FoldHigh needs len(src) = 2·len(dst)")
	}
	simd.FoldE(eWords(dst), eWords(src[:h]), eWords(src[h:]), words3(&r))
}

// FoldHighK is FoldHigh for a K table.
func FoldHighK(dst []E, src []K, r E) {
	h := len(dst)
	if len(src) != 2*h {
		panic("field: FoldHighK needs len(src) = 2·len(dst)")
	}
	simd.FoldK(eWords(dst), kWords(src[:h]), kWords(src[h:]), words3(&r))
}

// Fold writes dst[i] = lo[i] + r·(lo[i] + hi[i]): the line through lo[i] (at 0) and
// hi[i] (at 1) evaluated at r, which fixes a variable whose two halves are the separate
// tables lo and hi. It panics unless len(lo) = len(hi) = len(dst). dst may equal lo or
// hi exactly.
func Fold(dst, lo, hi []E, r E) {
	if len(lo) != len(dst) || len(hi) != len(dst) {
		panic("field: Fold needs equal lengths")
	}
	simd.FoldE(eWords(dst), eWords(lo), eWords(hi), words3(&r))
}

// FoldK is Fold for K tables lo and hi: dst[i] = lo[i] + r·(lo[i] + hi[i]) in E. It
// panics unless len(lo) = len(hi) = len(dst).
func FoldK(dst []E, lo, hi []K, r E) {
	if len(lo) != len(dst) || len(hi) != len(dst) {
		panic("field: FoldK needs equal lengths")
	}
	simd.FoldK(eWords(dst), kWords(lo), kWords(hi), words3(&r))
}

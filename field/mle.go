package field

// EqTable writes the equality kernel of point into dst, low coordinate first:
// dst[i] = Π_j (r_j if bit j of i is set, else 1 + r_j). It panics unless
// len(dst) = 2^len(point).
func EqTable(dst, point []E) { EqTableScaled(dst, point, One) }

// EqTableScaled writes scale·EqTable(point) into dst without a separate pass.
func EqTableScaled(dst, point []E, scale E) {
	if len(point) >= 63 || len(dst) != 1<<len(point) {
		panic("field: EqTable needs len(dst) = 2^len(point)")
	}
	dst[0] = scale
	n := 1
	for _, r := range point {
		// Entries [0, n) hold the kernel of the first coordinates; entry i+n takes the
		// new bit set (·r) and entry i takes it clear (·(1+r) = · + ·r).
		lo, hi := dst[:n], dst[n:2*n]
		ScaleE(hi, lo, r)
		AddSlice(lo, lo, hi)
		n <<= 1
	}
}

// EqEval returns eq(a, b) = Π_j (1 + a_j + b_j). It panics unless len(a) = len(b).
func EqEval(a, b []E) E {
	if len(a) != len(b) {
		panic("field: EqEval needs points of equal length")
	}
	out := One
	for j := range a {
		out = out.Mul(One.Add(a[j]).Add(b[j]))
	}
	return out
}

// EvalMLEK returns the multilinear extension of the K table at point, low coordinate
// first: the table is folded on its lowest variable by point[0], then point[1], …
// It allocates a scratch of len(table)/2 elements (see EvalMLEInPlace for none) and
// panics unless len(table) = 2^len(point).
func EvalMLEK(table []K, point []E) E {
	if len(point) >= 63 || len(table) != 1<<len(point) {
		panic("field: EvalMLEK needs len(table) = 2^len(point)")
	}
	if len(point) == 0 {
		return FromK(table[0])
	}
	cur := make([]E, len(table)/2)
	FoldLowK(cur, table, point[0])
	return evalMLEInPlace(cur, point[1:])
}

// EvalMLE returns the multilinear extension of the E table at point, low coordinate
// first. The table is not modified; a scratch of len(table)/2 elements is allocated
// (see EvalMLEInPlace for none). It panics unless len(table) = 2^len(point).
func EvalMLE(table []E, point []E) E {
	if len(point) >= 63 || len(table) != 1<<len(point) {
		panic("field: EvalMLE needs len(table) = 2^len(point)")
	}
	if len(point) == 0 {
		return table[0]
	}
	cur := make([]E, len(table)/2)
	FoldLow(cur, table, point[0])
	return evalMLEInPlace(cur, point[1:])
}

// EvalMLEInPlace returns the multilinear extension of table at point, low coordinate
// first, folding table in place: its contents are destroyed. It allocates nothing and
// panics unless len(table) = 2^len(point).
func EvalMLEInPlace(table []E, point []E) E {
	if len(point) >= 63 || len(table) != 1<<len(point) {
		panic("field: EvalMLEInPlace needs len(table) = 2^len(point)")
	}
	return evalMLEInPlace(table, point)
}

func evalMLEInPlace(cur []E, point []E) E {
	for _, r := range point {
		h := len(cur) / 2
		FoldLow(cur[:h], cur, r)
		cur = cur[:h]
	}
	return cur[0]
}

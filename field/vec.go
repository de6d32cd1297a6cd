package field

// InnerProduct returns Σ a[i]·b[i]. It panics unless len(a) = len(b).
func InnerProduct(a, b []E) E {
	if len(a) != len(b) {
		panic("field: InnerProduct needs equal lengths")
	}
	acc := Zero
	for i := range a {
		acc = acc.Add(a[i].Mul(b[i]))
	}
	return acc
}

// InnerProductKE returns Σ a[i]·b[i] for a K vector a and an E vector b. It panics
// unless len(a) = len(b).
func InnerProductKE(a []K, b []E) E {
	if len(a) != len(b) {
		panic("field: InnerProductKE needs equal lengths")
	}
	acc := Zero
	for i := range a {
		acc = acc.Add(b[i].MulK(a[i]))
	}
	return acc
}

// FoldLow writes dst[i] = src[2i] + r·(src[2i] + src[2i+1]): it fixes the lowest
// variable of the multilinear table src to r. It panics unless len(src) = 2·len(dst).
// dst may alias the front of src.
func FoldLow(dst, src []E, r E) {
	if len(src) != 2*len(dst) {
		panic("field: FoldLow needs len(src) = 2·len(dst)")
	}
	for i := range dst {
		a, b := src[2*i], src[2*i+1]
		dst[i] = a.Add(r.Mul(a.Add(b)))
	}
}

// FoldLowK is FoldLow for a K table.
func FoldLowK(dst []E, src []K, r E) {
	if len(src) != 2*len(dst) {
		panic("field: FoldLowK needs len(src) = 2·len(dst)")
	}
	for i := range dst {
		a, b := src[2*i], src[2*i+1]
		dst[i] = r.MulK(a ^ b).Add(FromK(a))
	}
}

// FoldHigh writes dst[i] = src[i] + r·(src[i] + src[i+h]) with h = len(dst): it fixes
// the highest variable of src to r. It panics unless len(src) = 2·len(dst). dst may
// alias the front of src.
func FoldHigh(dst, src []E, r E) {
	h := len(dst)
	if len(src) != 2*h {
		panic("field: FoldHigh needs len(src) = 2·len(dst)")
	}
	for i := range dst {
		a, b := src[i], src[i+h]
		dst[i] = a.Add(r.Mul(a.Add(b)))
	}
}

// FoldHighK is FoldHigh for a K table.
func FoldHighK(dst []E, src []K, r E) {
	h := len(dst)
	if len(src) != 2*h {
		panic("field: FoldHighK needs len(src) = 2·len(dst)")
	}
	for i := range dst {
		a, b := src[i], src[i+h]
		dst[i] = r.MulK(a ^ b).Add(FromK(a))
	}
}

package field

// PolyEval returns Σ_i coeffs[i]·x^i (constant first), by Horner's rule.
func PolyEval(coeffs []E, x E) E {
	acc := Zero
	for i := len(coeffs) - 1; i >= 0; i-- {
		acc = acc.Mul(x).Add(coeffs[i])
	}
	return acc
}

// Powers writes dst[i] = base^i.
func Powers(dst []E, base E) {
	p := One
	for i := range dst {
		dst[i] = p
		p = p.Mul(base)
	}
}

// BatchInvert writes dst[i] = src[i]⁻¹ with one inversion (Montgomery's trick); zero
// entries map to zero. dst and src may be the same slice (that case copies src once);
// they must not overlap otherwise. It panics unless len(dst) = len(src).
func BatchInvert(dst, src []E) {
	if len(dst) != len(src) {
		panic("field: BatchInvert needs len(dst) = len(src)")
	}
	if len(src) == 0 {
		return
	}
	if &dst[0] == &src[0] {
		src = append([]E(nil), src...)
	}
	// dst[i] holds the product of the nonzero src[0..i) while walking forward.
	acc := One
	for i, v := range src {
		dst[i], acc = acc, mulNonzero(acc, v)
	}
	inv := acc.Inv()
	for i := len(src) - 1; i >= 0; i-- {
		v := src[i]
		if v.IsZero() {
			dst[i] = Zero
			continue
		}
		dst[i], inv = dst[i].Mul(inv), inv.Mul(v)
	}
}

func mulNonzero(acc, v E) E {
	if v.IsZero() {
		return acc
	}
	return acc.Mul(v)
}

// LagrangeWeights writes the Lagrange basis at z over distinct nodes:
// dst[i] = Π_{j≠i} (z + nodes[j]) / (nodes[i] + nodes[j]). It panics unless
// len(dst) = len(nodes) and, when nodes repeat, on a zero denominator.
func LagrangeWeights(dst, nodes []E, z E) {
	n := len(nodes)
	if len(dst) != n {
		panic("field: LagrangeWeights needs len(dst) = len(nodes)")
	}
	if n == 0 {
		return
	}
	den := make([]E, n)
	for i := range nodes {
		d := One
		for j := range nodes {
			if j != i {
				d = d.Mul(nodes[i].Add(nodes[j]))
			}
		}
		if d.IsZero() {
			panic("field: LagrangeWeights needs distinct nodes")
		}
		den[i] = d
	}
	inv := make([]E, n)
	BatchInvert(inv, den)
	den = inv
	// dst[i] = prefix(i) · suffix(i) · den[i]⁻¹ with prefix/suffix products of (z + node).
	pre := One
	for i := range nodes {
		dst[i] = pre
		pre = pre.Mul(z.Add(nodes[i]))
	}
	suf := One
	for i := n - 1; i >= 0; i-- {
		dst[i] = dst[i].Mul(suf).Mul(den[i])
		suf = suf.Mul(z.Add(nodes[i]))
	}
}

// LagrangeInterpolate returns the value at z of the polynomial of degree < len(nodes)
// through (nodes[i], values[i]). It panics unless len(values) = len(nodes).
func LagrangeInterpolate(nodes, values []E, z E) E {
	if len(values) != len(nodes) {
		panic("field: LagrangeInterpolate needs len(values) = len(nodes)")
	}
	w := make([]E, len(nodes))
	LagrangeWeights(w, nodes, z)
	return InnerProduct(w, values)
}

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

// LagrangeDomain holds distinct interpolation nodes x_0, …, x_{n-1} with their
// inverted denominators 1/Π_{j≠i}(x_i + x_j), so that the Lagrange basis at many points
// costs O(n) each. It is read-only after construction and safe for concurrent use.
type LagrangeDomain struct {
	nodes  []E
	invDen []E
}

// NewLagrangeDomain precomputes the domain of nodes (copied). It panics if two nodes
// are equal.
func NewLagrangeDomain(nodes []E) *LagrangeDomain {
	n := len(nodes)
	den := make([]E, n)
	for i := range nodes {
		d := One
		for j := range nodes {
			if j != i {
				d = d.Mul(nodes[i].Add(nodes[j]))
			}
		}
		if d.IsZero() {
			panic("field: Lagrange nodes must be distinct")
		}
		den[i] = d
	}
	inv := make([]E, n)
	BatchInvert(inv, den)
	return &LagrangeDomain{nodes: append([]E(nil), nodes...), invDen: inv}
}

// Len returns the number of nodes.
func (d *LagrangeDomain) Len() int { return len(d.nodes) }

// Weights writes the Lagrange basis at z: dst[i] = Π_{j≠i} (z + x_j)/(x_i + x_j).
// It panics unless len(dst) = d.Len().
func (d *LagrangeDomain) Weights(dst []E, z E) {
	n := len(d.nodes)
	if len(dst) != n {
		panic("field: LagrangeDomain.Weights needs len(dst) = Len()")
	}
	// dst[i] = prefix(i)·suffix(i)·invDen[i] with prefix/suffix products of (z + x_j).
	pre := One
	for i := range d.nodes {
		dst[i] = pre
		pre = pre.Mul(z.Add(d.nodes[i]))
	}
	suf := One
	for i := n - 1; i >= 0; i-- {
		dst[i] = dst[i].Mul(suf).Mul(d.invDen[i])
		suf = suf.Mul(z.Add(d.nodes[i]))
	}
}

// Interpolate returns the value at z of the polynomial of degree < Len() through
// (x_i, values[i]). It panics unless len(values) = d.Len().
func (d *LagrangeDomain) Interpolate(values []E, z E) E {
	if len(values) != len(d.nodes) {
		panic("field: LagrangeDomain.Interpolate needs len(values) = Len()")
	}
	w := make([]E, len(values))
	d.Weights(w, z)
	return InnerProduct(w, values)
}

// LagrangeWeights writes the Lagrange basis at z over distinct nodes:
// dst[i] = Π_{j≠i} (z + nodes[j]) / (nodes[i] + nodes[j]). It panics unless
// len(dst) = len(nodes), or if two nodes are equal. For repeated use over the same
// nodes, build a LagrangeDomain once.
func LagrangeWeights(dst, nodes []E, z E) {
	if len(dst) != len(nodes) {
		panic("field: LagrangeWeights needs len(dst) = len(nodes)")
	}
	NewLagrangeDomain(nodes).Weights(dst, z)
}

// LagrangeInterpolate returns the value at z of the polynomial of degree < len(nodes)
// through (nodes[i], values[i]). It panics unless len(values) = len(nodes).
func LagrangeInterpolate(nodes, values []E, z E) E {
	if len(values) != len(nodes) {
		panic("field: LagrangeInterpolate needs len(values) = len(nodes)")
	}
	return NewLagrangeDomain(nodes).Interpolate(values, z)
}

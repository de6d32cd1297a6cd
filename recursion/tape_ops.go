package recursion

import (
	"sync"

	"github.com/leanpipe/leanpipe/field"
)

// The verifier's building blocks on a tape: the same values the stages' verifiers
// compute natively (eq tables and evaluations, Lagrange weights, polynomial
// evaluation), each product of two committed values a product of the tape.

// Sum returns Σ xs.
func Sum(xs ...Lin) Lin {
	var out Lin
	for _, x := range xs {
		out = out.Add(x)
	}
	return out
}

// addConst returns l + c.
func (l Lin) addConst(c field.E) Lin { return Lin{C: l.C.Add(c), Terms: l.Terms} }

var oneLin = ConstLin(field.One)

// Poly returns Σ_i c_i·x^i (Horner: one product per coefficient above the first).
func (t *Tape) Poly(c []Lin, x Lin) Lin {
	acc := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		acc = t.Mul(acc, x).Add(c[i])
	}
	return acc
}

// InnerProduct returns Σ_i a_i·b_i.
func (t *Tape) InnerProduct(a, b []Lin) Lin {
	var acc Lin
	for i := range a {
		acc = acc.Add(t.Mul(a[i], b[i]))
	}
	return acc
}

// EqTable returns eq(point, j) for j < 2^len(point) (bit k of j ↔ point[k]).
func (t *Tape) EqTable(point []Lin) []Lin {
	out := make([]Lin, 1, 1<<len(point))
	out[0] = oneLin
	for _, p := range point {
		n := len(out)
		for i := range n {
			hi := t.Mul(out[i], p)
			out = append(out, hi)
			out[i] = out[i].Add(hi)
		}
	}
	return out
}

// EqAt returns eq(point, j).
func (t *Tape) EqAt(point []Lin, j int) Lin {
	out := oneLin
	for k, p := range point {
		if j>>k&1 == 1 {
			out = t.Mul(out, p)
		} else {
			out = t.Mul(out, p.addConst(field.One))
		}
	}
	return out
}

// EqEval returns eq(a, b) = Π_i (1 + a_i + b_i) (characteristic 2).
func (t *Tape) EqEval(a, b []Lin) Lin {
	out := oneLin
	for i := range a {
		out = t.Mul(out, a[i].Add(b[i]).addConst(field.One))
	}
	return out
}

// lagrangeNodes are nodes PHI(0..n−1) and 1/Π_{k≠i}(x_i + x_k), for n = 64 and 128
// (the lincheck's skip domain, the zerocheck's coset domain).
type lagrangeNodes struct{ nodes, invDen []field.E }

var phiNodes = func() func(n int) lagrangeNodes {
	var mu sync.Mutex
	cache := map[int]lagrangeNodes{}
	return func(n int) lagrangeNodes {
		mu.Lock()
		defer mu.Unlock()
		if d, ok := cache[n]; ok {
			return d
		}
		d := lagrangeNodes{nodes: make([]field.E, n), invDen: make([]field.E, n)}
		for i := range d.nodes {
			d.nodes[i] = field.FromK(field.Phi8(byte(i)))
		}
		for i := range d.nodes {
			den := field.One
			for k := range d.nodes {
				if k != i {
					den = den.Mul(d.nodes[i].Add(d.nodes[k]))
				}
			}
			d.invDen[i] = den.Inv()
		}
		cache[n] = d
		return d
	}
}()

// Lagrange returns the Lagrange basis over PHI(0..n−1) at z: prefix and suffix
// products of (z + x_k), as field.LagrangeDomain.Weights.
func (t *Tape) Lagrange(n int, z Lin) []Lin {
	d := phiNodes(n)
	pre := make([]Lin, n)
	acc := oneLin
	for i := range n {
		pre[i] = acc
		acc = t.Mul(acc, z.addConst(d.nodes[i]))
	}
	out := make([]Lin, n)
	suf := oneLin
	for i := n - 1; i >= 0; i-- {
		out[i] = t.Mul(pre[i], suf).Scale(d.invDen[i])
		suf = t.Mul(suf, z.addConst(d.nodes[i]))
	}
	return out
}

package recursion

import (
	"fmt"
	"unsafe"

	"github.com/leanpipe/leanpipe/circuit"
)

// KBits is the width of a K element as wires: bit i is the coefficient of x^i.
const KBits = 64

// KWiresOf is a K element under construction on a circuit backend of wires W
// (circuit.Ops): a linear form per bit. The block circuits are written once over any
// backend: a circuit.Builder compiles them (the prover's), a circuit.Evaluator
// evaluates their matrices from the same code (the verifier's, circuit.Described).
type KWiresOf[W comparable] [KBits]W

// EWiresOf is an E element c0 + c1·y + c2·y² under construction.
type EWiresOf[W comparable] [3]KWiresOf[W]

// KWires and EWires are the builder's.
type (
	KWires = KWiresOf[circuit.Wire]
	EWires = EWiresOf[circuit.Wire]
)

// Cols allocates product rows from a base column upwards, for gadgets that emit rows.
type Cols struct {
	next, end int
}

// NewCols hands out the columns [base, end).
func NewCols(base, end int) *Cols { return &Cols{next: base, end: end} }

// Next returns the next free column.
func (c *Cols) Next() int { return c.next }

func (c *Cols) take() int {
	if c.next >= c.end {
		panic(fmt.Sprintf("recursion: gadget out of columns at %d", c.end))
	}
	c.next++
	return c.next - 1
}

// clmul returns the carry-less product of x and y (len(x) = len(y) a power of two,
// 2·len − 1 coefficients) by Karatsuba down to single bits: 3^log2(len) rows.
func clmul[W comparable, B circuit.Ops[W]](b B, cols *Cols, x, y []W) []W {
	n := len(x)
	out := make([]W, 2*n-1+clmulScratch(n))
	clmulTo(b, cols, x, y, out[:2*n-1], out[2*n-1:])
	return out[:2*n-1]
}

// clmulScratch is the scratch clmulTo needs for operands of n coefficients.
func clmulScratch(n int) int {
	if n == 1 {
		return 0
	}
	return 3*(n-1) + n + clmulScratch(n/2)
}

// clmulTo writes clmul(x, y) to out (2·len − 1 entries, all zero on entry), taking its
// partial products from tmp (clmulScratch entries, zero on entry); it emits the same
// rows and wires in the same order as the recursion written with fresh slices.
func clmulTo[W comparable, B circuit.Ops[W]](b B, cols *Cols, x, y, out, tmp []W) {
	// On an evaluator (a verifier's described block) the same recursion runs on the
	// concrete type: the generic code reaches every Xor through the shape's dictionary,
	// most of a described arithmetic block's time. B = *circuit.Evaluator makes W
	// circuit.EvalWire, the only wire type it has methods for.
	if ev, ok := any(b).(*circuit.Evaluator); ok {
		clmulEval(ev, cols, evalWires(x), evalWires(y), evalWires(out), evalWires(tmp))
		return
	}
	n := len(x)
	if n == 1 {
		out[0] = circuit.Product(b, cols.take(), x[0], y[0])
		return
	}
	h := n / 2
	z0, tmp := tmp[:2*h-1], tmp[2*h-1:]
	z2, tmp := tmp[:2*h-1], tmp[2*h-1:]
	z1, tmp := tmp[:2*h-1], tmp[2*h-1:]
	xs, tmp := tmp[:h], tmp[h:]
	ys, rest := tmp[:h], tmp[h:]
	clmulTo(b, cols, x[:h], y[:h], z0, rest)
	clear(rest)
	clmulTo(b, cols, x[h:], y[h:], z2, rest)
	clear(rest)
	for i := range h {
		xs[i], ys[i] = b.Xor(x[i], x[h+i]), b.Xor(y[i], y[h+i])
	}
	clmulTo(b, cols, xs, ys, z1, rest)
	clear(rest)
	for i, w := range z0 {
		out[i] = b.Xor(out[i], w)
		out[h+i] = b.Xor(out[h+i], b.Xor(w, b.Xor(z1[i], z2[i])))
	}
	for i, w := range z2 {
		out[n+i] = b.Xor(out[n+i], w)
	}
}

// evalWires is s as the evaluator's wires (W is circuit.EvalWire: clmulTo).
func evalWires[W any](s []W) []circuit.EvalWire {
	return unsafe.Slice((*circuit.EvalWire)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// clmulEval is clmulTo on an evaluator: the same rows, wires and order.
func clmulEval(ev *circuit.Evaluator, cols *Cols, x, y, out, tmp []circuit.EvalWire) {
	n := len(x)
	if n == 1 {
		out[0] = circuit.Product(ev, cols.take(), x[0], y[0])
		return
	}
	h := n / 2
	z0, tmp := tmp[:2*h-1], tmp[2*h-1:]
	z2, tmp := tmp[:2*h-1], tmp[2*h-1:]
	z1, tmp := tmp[:2*h-1], tmp[2*h-1:]
	xs, tmp := tmp[:h], tmp[h:]
	ys, rest := tmp[:h], tmp[h:]
	clmulEval(ev, cols, x[:h], y[:h], z0, rest)
	clear(rest)
	clmulEval(ev, cols, x[h:], y[h:], z2, rest)
	clear(rest)
	for i := range h {
		xs[i], ys[i] = ev.Xor(x[i], x[h+i]), ev.Xor(y[i], y[h+i])
	}
	clmulEval(ev, cols, xs, ys, z1, rest)
	clear(rest)
	for i, w := range z0 {
		out[i] = ev.Xor(out[i], w)
		out[h+i] = ev.Xor(out[h+i], ev.Xor(w, ev.Xor(z1[i], z2[i])))
	}
	for i, w := range z2 {
		out[n+i] = ev.Xor(out[n+i], w)
	}
}

// reduceK folds a polynomial of degree < 127 modulo x^64 + x^4 + x^3 + x + 1
// (GF(2)-linear: no rows).
func reduceK[W comparable, B circuit.Ops[W]](b B, p []W) KWiresOf[W] {
	// A product's 127 coefficients fold in place on the stack: a described block runs
	// this once per K product on every evaluation.
	var buf [2*KBits - 1]W
	acc := buf[:]
	if len(p) <= len(buf) {
		acc = acc[:copy(acc, p)]
	} else {
		acc = append([]W(nil), p...)
	}
	var zero W
	for d := len(acc) - 1; d >= KBits; d-- {
		w := acc[d]
		if w == zero {
			continue
		}
		for _, s := range [...]int{0, 1, 3, 4} {
			acc[d-KBits+s] = b.Xor(acc[d-KBits+s], w)
		}
		acc[d] = zero
	}
	var out KWiresOf[W]
	copy(out[:], acc)
	return out
}

// clmulScratchK is clmulScratch(KBits): MulK's partial products.
const clmulScratchK = 486

// MulK emits x·y in K: 729 rows (Karatsuba to bits), the reduction linear. Its
// product and partial products are on the stack (clmulTo emits what clmul does).
func MulK[W comparable, B circuit.Ops[W]](b B, cols *Cols, x, y KWiresOf[W]) KWiresOf[W] {
	var buf [2*KBits - 1 + clmulScratchK]W
	clmulTo(b, cols, x[:], y[:], buf[:2*KBits-1], buf[2*KBits-1:])
	return reduceK[W](b, buf[:2*KBits-1])
}

// AddK returns x + y (no rows).
func AddK[W comparable, B circuit.Ops[W]](b B, x, y KWiresOf[W]) KWiresOf[W] {
	var out KWiresOf[W]
	for i := range out {
		out[i] = b.Xor(x[i], y[i])
	}
	return out
}

// AddE returns x + y (no rows).
func AddE[W comparable, B circuit.Ops[W]](b B, x, y EWiresOf[W]) EWiresOf[W] {
	return EWiresOf[W]{AddK(b, x[0], y[0]), AddK(b, x[1], y[1]), AddK(b, x[2], y[2])}
}

// MulE emits x·y in E = K[y]/(y³ + y + 1): six K products (Karatsuba over the three
// limbs), the recombination and the reduction (y³ = y + 1) linear.
func MulE[W comparable, B circuit.Ops[W]](b B, cols *Cols, x, y EWiresOf[W]) EWiresOf[W] {
	p0 := MulK(b, cols, x[0], y[0])
	p1 := MulK(b, cols, x[1], y[1])
	p2 := MulK(b, cols, x[2], y[2])
	p01 := MulK(b, cols, AddK(b, x[0], x[1]), AddK(b, y[0], y[1]))
	p02 := MulK(b, cols, AddK(b, x[0], x[2]), AddK(b, y[0], y[2]))
	p12 := MulK(b, cols, AddK(b, x[1], x[2]), AddK(b, y[1], y[2]))
	// c0 = p0, c1 = p01+p0+p1, c2 = p02+p0+p1+p2, c3 = p12+p1+p2, c4 = p2;
	// y³ = y + 1, y⁴ = y² + y: r0 = c0+c3, r1 = c1+c3+c4, r2 = c2+c4.
	c3 := AddK(b, p12, AddK(b, p1, p2))
	c1 := AddK(b, p01, AddK(b, p0, p1))
	c2 := AddK(b, p02, AddK(b, p0, AddK(b, p1, p2)))
	return EWiresOf[W]{AddK(b, p0, c3), AddK(b, c1, AddK(b, c3, p2)), AddK(b, c2, p2)}
}

// MulEK emits x·k for an E element x and a K element k: three K products.
func MulEK[W comparable, B circuit.Ops[W]](b B, cols *Cols, x EWiresOf[W], k KWiresOf[W]) EWiresOf[W] {
	return EWiresOf[W]{MulK(b, cols, x[0], k), MulK(b, cols, x[1], k), MulK(b, cols, x[2], k)}
}

// InputK declares 64 input columns from cols and returns them as a K element.
func InputK[W comparable, B circuit.Ops[W]](b B, cols *Cols, name string) KWiresOf[W] {
	base := cols.Next()
	cols.advance(base + KBits)
	b.Input(name, base, KBits)
	var out KWiresOf[W]
	for i := range out {
		out[i] = b.Col(base + i)
	}
	return out
}

// InputE declares 192 input columns (c0, c1, c2, low bit first) as an E element.
func InputE[W comparable, B circuit.Ops[W]](b B, cols *Cols, name string) EWiresOf[W] {
	return EWiresOf[W]{InputK[W](b, cols, name+".c0"), InputK[W](b, cols, name+".c1"), InputK[W](b, cols, name+".c2")}
}

// MaterializeK emits one row per bit (x·1) so that x can be read from columns, and
// returns the first of its 64 columns.
func MaterializeK[W comparable, B circuit.Ops[W]](b B, cols *Cols, x KWiresOf[W]) int {
	base := cols.next
	for i := range x {
		circuit.Linear(b, cols.take(), x[i])
	}
	return base
}

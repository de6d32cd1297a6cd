package circuit

// Ops is what a circuit description writes to. A description is ordinary Go code
// over a wire type W (generic over Ops[W]): run on a Builder (W = Wire) it records
// the program a Circuit is compiled from; run on an Evaluator (W = EvalWire) it
// computes the bilinear forms eᵀA0·w and eᵀB0·w as it goes, holding no program.
// The gadgets of this package (Product, Add, Compress, Mux, …) are written once
// over Ops, so both interpretations see the same matrices.
//
// Wire identity is part of the description: Xor folds x ⊕ 0 = x, 0 ⊕ y = y and
// x ⊕ x = 0 by wire identity, the zero value of W is the literal 0 and One is the
// literal 1, and gadgets fold literals (IsConst) by comparing wires. Every Ops
// implementation numbers its wires as the Builder does, so the folds, and hence
// the matrices, agree.
type Ops[W comparable] interface {
	// Col returns a new wire reading committed column col.
	Col(col int) W
	// Xor returns x + y.
	Xor(x, y W) W
	// Row emits the constraint row a·b = w[row].
	Row(row int, a, b W)
	// One is the constant-1 wire (reading the constant column).
	One() W
	// Input declares the free input columns [base, base+n): for each, the row
	// Col(col)·One = w[col].
	Input(name string, base, n int)
	// Name records a named column region (no rows).
	Name(name string, base, n int)
}

var _ Ops[Wire] = (*Builder)(nil)

// WordOf is a 32-bit word of wires of type W, bit i at index i.
type WordOf[W comparable] [WordBits]W

// Const returns b.One() for bit 1 and the literal 0 for bit 0.
func Const[W comparable, B Ops[W]](b B, bit uint) W {
	if bit&1 == 1 {
		return b.One()
	}
	var zero W
	return zero
}

// Product emits the row x·y = w[row] and returns the wire reading it.
func Product[W comparable, B Ops[W]](b B, row int, x, y W) W {
	if ev := evaluatorOf[W](b); ev != nil {
		var w W
		*asEvalWire(&w) = ev.product(row, *asEvalWire(&x), *asEvalWire(&y))
		return w
	}
	b.Row(row, x, y)
	return b.Col(row)
}

// Linear emits the row x·1 = w[row] (a materialised linear value) and returns the
// wire reading it.
func Linear[W comparable, B Ops[W]](b B, row int, x W) W {
	return Product(b, row, x, b.One())
}

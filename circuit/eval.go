package circuit

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
)

// Matrices is a circuit's fixed matrices (A0, B0; C0 = I) as a verifier uses them:
// bilinear forms at given weights. *Circuit evaluates them by walking its compiled
// program; *Described by running the circuit's description on an Evaluator, with
// no program built. Both give the same values for the same circuit.
type Matrices interface {
	// LogSize is log2 of the block: A0 and B0 are 2^LogSize × 2^LogSize.
	LogSize() int
	// ConstCol is the column pinned to 1.
	ConstCol() int
	// BilinearPair returns (eᵀA0·w, eᵀB0·w) for row weights e and column
	// weights w, each of 2^LogSize entries.
	BilinearPair(e, w []field.E) (va, vb field.E)
	// BilinearTensor is BilinearPair at weights given by their factors (each
	// of length 2^LogSize); an implementation may evaluate without forming them.
	BilinearTensor(e, w Tensor) (va, vb field.E)
}

var (
	_ Matrices = (*Circuit)(nil)
	_ Matrices = (*Described)(nil)
)

// Eval returns the multilinear extensions of m's matrices at a point:
// Â0(rRow, rCol) and B̂0(rRow, rCol), that is eᵀA0·w and eᵀB0·w with e = eq(rRow, ·)
// and w = eq(rCol, ·) (index bit j ↔ coordinate j, low first). Both points have
// LogSize coordinates.
func Eval(m Matrices, rRow, rCol []field.E) (a, b field.E) {
	if len(rRow) != m.LogSize() || len(rCol) != m.LogSize() {
		panic(fmt.Sprintf("circuit: Eval: points of %d and %d coordinates for 2^%d", len(rRow), len(rCol), m.LogSize()))
	}
	return m.BilinearTensor(PointTensor(rRow), PointTensor(rCol))
}

// EvalWire is a wire of an Evaluator: its value V (the wire's linear combination
// of columns applied to the column weights) and its identity, numbered as a
// Builder numbers its wires (0 is the literal 0). Wires come from an Evaluator's
// methods (and the zero value is the literal 0); a wire made otherwise has no
// identity the Evaluator knows.
type EvalWire struct {
	V  field.E
	id uint32
}

// Evaluator is the Ops backend that evaluates a circuit's matrices while its
// description runs: a wire's value is its column combination applied to the column
// weights w, and each row r adds e[r]·a and e[r]·b to the two sums. It holds only
// the wires the description holds, never the program.
type Evaluator struct {
	// line is the run of column weights the last column read came from (column
	// cbase+i at i): Col reads most columns from it without asking w. It is a run
	// of w's full vector or a line of w's tensor cache, where it stays valid until
	// colMiss fills another line (and replaces it).
	line  []field.E
	cbase int
	w     weights
	rows  rowSums
	next  uint32 // the next wire's identity
	one   EvalWire
	cs    *compressState // Compress's working vector, made on its first use
}

var _ Ops[EvalWire] = (*Evaluator)(nil)

// NewEvaluator starts evaluating a circuit of 2^logSize columns whose column
// constCol is the constant 1, at row weights e and column weights w (2^logSize
// entries each). It emits the constant's row, as NewBuilder does.
func NewEvaluator(logSize, constCol int, e, w []field.E) *Evaluator {
	n := 1 << logSize
	if len(e) != n || len(w) != n {
		panic(fmt.Sprintf("circuit: NewEvaluator: weights of %d and %d entries for 2^%d", len(e), len(w), logSize))
	}
	return newEvaluator(logSize, constCol, newFullRows(e), weights{full: w})
}

// NewTensorEvaluator is NewEvaluator at tensor weights, which it never forms in
// full (it computes a block of len(Low) entries at a time as the walk reaches it).
func NewTensorEvaluator(logSize, constCol int, e, w Tensor) *Evaluator {
	if e.LogLen() != logSize || w.LogLen() != logSize {
		panic(fmt.Sprintf("circuit: NewTensorEvaluator: weights of 2^%d and 2^%d entries for 2^%d", e.LogLen(), w.LogLen(), logSize))
	}
	return newEvaluator(logSize, constCol, newTensorRows(e), weights{t: newTensorCache(w, nil)})
}

func newEvaluator(logSize, constCol int, e rowSums, w weights) *Evaluator {
	if constCol < 0 || constCol >= 1<<logSize {
		panic(fmt.Sprintf("circuit: constant column %d outside the block of %d", constCol, 1<<logSize))
	}
	ev := &Evaluator{w: w, rows: e, next: 1}
	ev.one = ev.Col(constCol)
	ev.Row(constCol, ev.one, ev.one)
	return ev
}

// Col returns a new wire reading column col; a column outside the current line
// is served by colMiss.
func (ev *Evaluator) Col(col int) EvalWire {
	i := col - ev.cbase
	if uint(i) >= uint(len(ev.line)) {
		return ev.colMiss(col)
	}
	v := EvalWire{V: ev.line[i], id: ev.next}
	ev.next++
	return v
}

// colMiss makes column col's run the current line and returns a new wire reading
// col.
func (ev *Evaluator) colMiss(col int) EvalWire {
	ev.line, ev.cbase = ev.w.lineOf(col)
	v := EvalWire{V: ev.line[col-ev.cbase], id: ev.next}
	ev.next++
	return v
}

// Xor returns x + y, folding literals and x ⊕ x as the Builder does.
func (ev *Evaluator) Xor(x, y EvalWire) EvalWire {
	switch {
	case x.id == 0:
		return y
	case y.id == 0:
		return x
	case x.id == y.id:
		return EvalWire{}
	}
	v := EvalWire{V: addE(x.V, y.V), id: ev.next}
	ev.next++
	return v
}

// Row adds e[row]·a and e[row]·b to the sums.
func (ev *Evaluator) Row(row int, a, b EvalWire) { ev.rows.add(row, a.V, b.V) }

// One is the constant-1 wire.
func (ev *Evaluator) One() EvalWire { return ev.one }

// Input emits the input rows Col(col)·One of [base, base+n).
func (ev *Evaluator) Input(_ string, base, n int) {
	for col := base; col < base+n; col++ {
		ev.Row(col, ev.Col(col), ev.one)
	}
}

// Name does nothing: regions carry no rows.
func (ev *Evaluator) Name(string, int, int) {}

// Sums returns (eᵀA0·w, eᵀB0·w) over the rows emitted so far.
func (ev *Evaluator) Sums() (va, vb field.E) { return ev.rows.sums() }

// Described is a circuit given by its description rather than its compiled
// program: BilinearPair runs the description on an Evaluator. It builds nothing
// ahead and keeps nothing between calls, so it suits a process that verifies a few
// proofs of a large circuit; a process holding the compiled *Circuit walks that
// instead. Safe for concurrent use.
type Described struct {
	name              string
	logSize, constCol int
	describe          func(*Evaluator)
}

// NewDescribed returns the matrices of the circuit that describe emits (it must
// emit exactly what the circuit's builder code emits after NewBuilder(name,
// logSize, constCol), as the same generic code run on the Evaluator does).
func NewDescribed(name string, logSize, constCol int, describe func(*Evaluator)) *Described {
	if logSize < 1 || logSize > 30 {
		panic(fmt.Sprintf("circuit: logSize %d out of range", logSize))
	}
	return &Described{name: name, logSize: logSize, constCol: constCol, describe: describe}
}

// Name is the circuit's name.
func (d *Described) Name() string { return d.name }

// LogSize is log2 of the block size.
func (d *Described) LogSize() int { return d.logSize }

// ConstCol is the column pinned to 1.
func (d *Described) ConstCol() int { return d.constCol }

// BilinearPair returns (eᵀA0·w, eᵀB0·w) by one run of the description.
func (d *Described) BilinearPair(e, w []field.E) (va, vb field.E) {
	ev := NewEvaluator(d.logSize, d.constCol, e, w)
	d.describe(ev)
	return ev.Sums()
}

// BilinearTensor returns (eᵀA0·w, eᵀB0·w) by one run of the description at
// tensor weights, never formed in full.
func (d *Described) BilinearTensor(e, w Tensor) (va, vb field.E) {
	ev := NewTensorEvaluator(d.logSize, d.constCol, e, w)
	d.describe(ev)
	va, vb = ev.Sums()
	ev.w.t.release()
	return va, vb
}

package recursion

import (
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// The carried hints' matrices (docs/recursion.md §6.10, step 1). A carried hint is a
// bilinear form uᵀ·M·v of a matrix its node's shape fixes: a segment's public table
// (slots × window bits, u = eq(chi_out), v = eq(τ)) or a segment's relation matrix
// (relations × words, u = eq(τ_rel), v = eq(ρ), the hint γ^k times it). Each is a
// sparse matrix embedded in a square block of 2^logSize (zero rows or columns past its
// own), A0 the matrix and B0 zero, and is one entry of its role's table (roles.go),
// the kind its claim is on in the parent's batch.

// sparseKind is a matrix by its nonzero entries, row by row.
type sparseKind struct {
	name    string
	logSize int
	// rowBits and colBits are the matrix's own sides' bits (rows past 2^rowBits and
	// columns past 2^colBits are zero).
	rowBits, colBits int
	rowStart         []int32 // row r's entries are [rowStart[r], rowStart[r+1])
	cols             []int32
	coeffs           []field.E
}

// sparseBuilder collects a sparseKind's entries row by row (rows in increasing
// order; a row's entries in any order, repeated columns added).
type sparseBuilder struct {
	k    *sparseKind
	rows int
}

func newSparse(name string, rows, cols int) *sparseBuilder {
	logSize := max(LowBits, bits.Len(uint(max(rows, cols)-1)))
	k := &sparseKind{name: name, logSize: logSize, rowBits: bits.Len(uint(rows - 1)), colBits: bits.Len(uint(cols - 1)), rowStart: []int32{0}}
	return &sparseBuilder{k: k, rows: rows}
}

// row closes the current row with the given entries.
func (b *sparseBuilder) row(cols []int32, coeffs []field.E) {
	b.k.cols = append(b.k.cols, cols...)
	b.k.coeffs = append(b.k.coeffs, coeffs...)
	b.k.rowStart = append(b.k.rowStart, int32(len(b.k.cols)))
}

func (b *sparseBuilder) done() *sparseKind {
	for len(b.k.rowStart) <= b.rows {
		b.row(nil, nil)
	}
	return b.k
}

// Name is the kind's name (its key's first part).
func (k *sparseKind) Name() string { return k.name }

// LogSize is log2 of the square block the matrix is embedded in.
func (k *sparseKind) LogSize() int { return k.logSize }

// ConstCol is 0: the kind has no constant column (lincheck.Matrices asks for one).
func (k *sparseKind) ConstCol() int { return 0 }

// tensorAt returns t's entry i for every i < 2^logSize from a table of its High factor.
func tensorAt(t circuit.Tensor) func(i int) field.E {
	hi := make([]field.E, 1<<len(t.High))
	field.EqTable(hi, t.High)
	lowBits := bits.Len(uint(len(t.Low) - 1))
	mask := len(t.Low) - 1
	return func(i int) field.E { return t.Low[i&mask].Mul(hi[i>>lowBits]) }
}

// rowValues is M·w (2^logSize entries, zero past the matrix's rows).
func (k *sparseKind) rowValues(w circuit.Tensor) []field.E {
	at := tensorAt(w)
	v := make([]field.E, 1<<k.logSize)
	for r := range len(k.rowStart) - 1 {
		var s field.E
		for e := k.rowStart[r]; e < k.rowStart[r+1]; e++ {
			s = s.Add(k.coeffs[e].Mul(at(int(k.cols[e]))))
		}
		v[r] = s
	}
	return v
}

// BilinearTensor returns (eᵀ·M·w, 0), row by row (no vector of the block's size).
func (k *sparseKind) BilinearTensor(e, w circuit.Tensor) (va, vb field.E) {
	eAt, wAt := tensorAt(e), tensorAt(w)
	for r := range len(k.rowStart) - 1 {
		var s field.E
		for i := k.rowStart[r]; i < k.rowStart[r+1]; i++ {
			s = s.Add(k.coeffs[i].Mul(wAt(int(k.cols[i]))))
		}
		if !s.IsZero() {
			va = va.Add(eAt(r).Mul(s))
		}
	}
	return va, field.E{}
}

// RowsTensorOn hands M·w to sink (B0 is zero, so μ does not enter).
func (k *sparseKind) RowsTensorOn(w circuit.Tensor, _ field.E, sink circuit.RowSink, _ par.Workers) {
	sinkDense(k.rowValues(w), sink)
}

// TransposeTensorWith writes Mᵀ·e into dst (one worker: spare is not used).
func (k *sparseKind) TransposeTensorWith(dst []field.E, _ func(int) []field.E, e circuit.Tensor, _ field.E, _ par.Workers) {
	clear(dst)
	eAt := tensorAt(e)
	for r := range len(k.rowStart) - 1 {
		er := eAt(r)
		for i := k.rowStart[r]; i < k.rowStart[r+1]; i++ {
			c := k.cols[i]
			dst[c] = dst[c].Add(er.Mul(k.coeffs[i]))
		}
	}
}

// sinkDense computes what sink asks of the row vector v (circuit.RowSink).
func sinkDense(v []field.E, sink circuit.RowSink) {
	if sink.Dst != nil {
		copy(sink.Dst, v)
	}
	if sink.U != nil {
		n := len(sink.U)
		for i := range sink.U {
			var s field.E
			for j, h := range sink.UHigh {
				s = s.Add(h.Mul(v[i+n*j]))
			}
			sink.U[i] = s
		}
	}
	if sink.Fold != nil {
		n := len(sink.FoldLow)
		for j := range sink.Fold {
			sink.Fold[j] = field.InnerProduct(sink.FoldLow, v[n*j:n*(j+1)])
		}
	}
}

// publicKind is a public table's matrix: rows the 2^slotBits slots (those past the
// table's rows repeat its first, as a segment's padding slots do), columns the
// window's 2^Log bits, entry 1 where a slot's row sets a pinned bit.
func publicKind(name string, t *lincheck.Table, slotBits int) (*sparseKind, error) {
	w := t.Window()
	if len(t.Rows) == 0 || len(t.Rows) > 1<<slotBits {
		return nil, fmt.Errorf("recursion: a public table of %d rows for %d slot bits", len(t.Rows), slotBits)
	}
	b := newSparse(name, 1<<slotBits, 1<<w.Log)
	rowCols := func(row []uint64) []int32 {
		var cols []int32
		for k, word := range row[:min(len(row), len(w.Mask))] {
			word &= w.Mask[k]
			for word != 0 {
				c := bits.TrailingZeros64(word)
				word &= word - 1
				if j := 64*k + c; j < 1<<w.Log {
					cols = append(cols, int32(j))
				}
			}
		}
		return cols
	}
	first := rowCols(t.Rows[0])
	ones := func(n int) []field.E {
		o := make([]field.E, n)
		for i := range o {
			o[i] = field.One
		}
		return o
	}
	for s := range 1 << slotBits {
		cols := first
		if s < len(t.Rows) && s > 0 {
			cols = rowCols(t.Rows[s])
		}
		b.row(cols, ones(len(cols)))
	}
	return b.done(), nil
}

// relationKind is a segment's relation matrix in a child's relations ev: rows the
// relations and then the copies' word pairs, in the order the linear batch weighs
// them (relationWeight), columns the segment's 2^vars words.
func relationKind(name string, ev *flows.Evaluations, seg, vars int) (*sparseKind, error) {
	if ev == nil || len(ev.Linear) > 0 {
		return nil, fmt.Errorf("recursion: a relation matrix of a proof with other linear claims")
	}
	rows := len(ev.Relations)
	for _, c := range ev.Copies {
		rows += len(c.FromWords)
	}
	b := newSparse(name, rows, 1<<vars)
	var cols []int32
	var coeffs []field.E
	for _, rel := range ev.Relations {
		cols, coeffs = cols[:0], coeffs[:0]
		for _, tm := range rel.Terms {
			if tm.Segment == seg {
				cols, coeffs = append(cols, int32(tm.Word)), append(coeffs, tm.Coeff)
			}
		}
		b.row(cols, coeffs)
	}
	for _, c := range ev.Copies {
		for i := range c.FromWords {
			cols, coeffs = cols[:0], coeffs[:0]
			if c.From == seg {
				cols, coeffs = append(cols, int32(c.FromWords[i])), append(coeffs, field.One)
			}
			if c.To == seg {
				cols, coeffs = append(cols, int32(c.ToWords[i])), append(coeffs, field.One)
			}
			b.row(cols, coeffs)
		}
	}
	return b.done(), nil
}

// padTo is point extended with zero coordinates to n (the weights of a claim on a
// matrix embedded in a larger block).
func padTo[T any](point []T, n int, zero T) []T {
	out := make([]T, n)
	copy(out, point)
	for i := len(point); i < n; i++ {
		out[i] = zero
	}
	return out
}

// batchMatrices is the kind as the batching prover walks it.
func (k *sparseKind) batchMatrices() Matrices { return k }

// Matrices is the kind as its verifier evaluates it.
func (k *sparseKind) Matrices() lincheck.Matrices { return k }

// hintKind is a merged child's carried hint as a claim on a kind: the kind, the
// hint's index among the child's kept hints, and how its point splits into the
// claim's weights.
type hintKind struct {
	mat   *sparseKind // its role's matrix for the child's shape (named by the role)
	kept  int         // index among the child's kept hints (its record's Values)
	point int         // index of its point among the record's distinct points
	// The weights, from the hint's point: a public hint's row is its chi_out (the
	// coordinates past wl) and its column its τ (the first wl); a linear weight's row
	// is its τ_rel (the first n) scaled by γ^pow (γ the coordinate n) and its column
	// its ρ (the last vars).
	public  bool
	wl      int
	n, vars int
	pow     int
}

// hintKinds are the child's carried public and linear-weight hints as matrices of
// its shape, each named by its role (its kind in the parent's batch, roles.go), in
// kept-hint order.
func (s *nrSub) hintKinds() ([]hintKind, error) {
	_, places, _, _, err := flows.SegmentsLayout(s.shapes, s.m.LogInvRate, s.statement)
	if err != nil {
		return nil, err
	}
	kept := s.keptHints()
	index, _ := hintPoints(kept)
	n := relationBits(s)
	// A linear batch's γ power is its segment's index among the segments the
	// relations touch (relationWeight).
	touched := map[int]bool{}
	for _, rel := range s.ev.Relations {
		for _, tm := range rel.Terms {
			touched[tm.Segment] = true
		}
	}
	for _, c := range s.ev.Copies {
		touched[c.From], touched[c.To] = true, true
	}
	var out []hintKind
	for i, h := range kept {
		switch h.Kind {
		case HintSegmentPublic:
			tab, ok := s.shapes[h.Of].Public.(*lincheck.Table)
			if !ok {
				return nil, fmt.Errorf("%w: segment %d's public term is not a table", ErrMerged, h.Of)
			}
			wl := tab.Window().Log
			k, err := publicKind(fmt.Sprintf("public/%d", h.Of), tab, s.pointLens[index[i]]-wl)
			if err != nil {
				return nil, err
			}
			out = append(out, hintKind{mat: k, kept: i, point: index[i], public: true, wl: wl})
		case HintLinearWeight:
			vars := places[h.Of].Variables
			k, err := relationKind(fmt.Sprintf("relations/%d", h.Of), s.ev, h.Of, vars)
			if err != nil {
				return nil, err
			}
			pow := 0
			for seg := range h.Of {
				if touched[seg] {
					pow++
				}
			}
			out = append(out, hintKind{mat: k, kept: i, point: index[i], n: n, vars: vars, pow: pow})
		}
	}
	return out, nil
}

// role is the role kind the hint's claim is on.
func (h hintKind) role() string { return h.mat.name }

// weights are the hint's claim's row and column points (zero-padded to L, its role
// kind's size) from its point pt, and the row's scale.
func hintWeights[T any](h hintKind, pt []T, zero T, L int) (row, col []T, gamma T, pow int) {
	pad := func(p []T) []T { return padTo(p, L, zero) }
	if h.public {
		return pad(pt[h.wl:]), pad(pt[:h.wl]), zero, 0
	}
	return pad(pt[:h.n]), pad(pt[len(pt)-h.vars:]), pt[h.n], h.pow
}

// claim is the hint's claim from its carried point and value, on a role kind of
// 2^L.
func (h hintKind) claim(pt []field.E, v field.E, L int) MatrixClaim {
	row, col, gamma, pow := hintWeights(h, pt, field.E{}, L)
	r := EqWeight(row)
	if pow > 0 {
		scale := field.One
		for range pow {
			scale = scale.Mul(gamma)
		}
		low := make([]field.E, len(r.Low))
		field.ScaleE(low, r.Low, scale)
		r.Low = low
	}
	return MatrixClaim{Row: r, Col: EqWeight(col), VA: v}
}

// tapeClaim is claim on a tape, the point and value committed Lins (point form).
func (h hintKind) tapeClaim(t *Tape, pt []Lin, v Lin, L int) TapeMatrixClaim {
	row, col, gamma, pow := hintWeights(h, pt, ConstLin(field.E{}), L)
	scale := oneLin
	for range pow {
		scale = t.Mul(scale, gamma)
	}
	return pointClaim(row, col, scale, v, ConstLin(field.E{}))
}

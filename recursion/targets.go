package recursion

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/leanpipe/leanpipe/field"
)

// The targets' tree table (docs/recursion.md §6.11). A merged descendant's target (its
// relations' values at its relations' point, the one carried hint only the root can
// evaluate: the values are the descendant's statement) is a claim on one sparse matrix
// per node, whose rows are the node's merged descendants by address and whose columns
// are relations. A merged child's own table is the parent's rows under the child's
// digit, so the child's batched claim on it lifts into the parent's batch, and the root
// evaluates one table, once.

// targetsName names the tree table's kind. A child's table is never merged by key
// into its parent's: it is lifted (liftTargets).
const targetsName = "targets"

// digitBits is the width of a child's digit (c+1 for child c; 0 is no child) among k.
func digitBits(k int) int { return bits.Len(uint(k)) }

// relationBits is the number of coordinates of a merge's relations' point τ: the
// relations and the copies' word pairs together.
func relationBits(s *nrSub) int {
	count := len(s.ev.Relations)
	for _, c := range s.ev.Copies {
		count += len(c.FromWords)
	}
	n := 0
	for 1<<n < count {
		n++
	}
	return n
}

// targetEntries are the tree table's rows of a merge (own: its blank values; subs: its
// merged children, nil for a leaf) by address: the merge itself at 0, each merged
// descendant at its address (docs/recursion.md §6.11), its blank relations' nonzero
// values by column; with the table's row and column bits.
func targetEntries(own sparseRow, ownBits int, subs []*nrSub) (rows map[int]sparseRow, rowBits, colBits int) {
	w := digitBits(len(subs))
	rows = map[int]sparseRow{0: own}
	colBits = ownBits
	deepest := 0
	for c, s := range subs {
		if s == nil {
			continue
		}
		vals := make([]field.E, len(s.ev.Relations))
		for r, rel := range s.ev.Relations {
			vals[r] = rel.Value
		}
		sub, rb, cb := targetEntries(nonzeroRow(vals), relationBits(s), s.lsubs)
		for a, row := range sub {
			rows[c+1+a<<w] = row
		}
		deepest, colBits = max(deepest, rb), max(colBits, cb)
	}
	if len(rows) == 1 {
		return rows, 0, colBits
	}
	return rows, w + deepest, colBits
}

// nonzeroRow is the row of vals' nonzero entries.
func nonzeroRow(vals []field.E) sparseRow {
	var row sparseRow
	for r, v := range vals {
		if !v.IsZero() {
			row.cols, row.coeffs = append(row.cols, int32(r)), append(row.coeffs, v)
		}
	}
	return row
}

// sparseRow is one row's entries.
type sparseRow struct {
	cols   []int32
	coeffs []field.E
}

// targetKind is the tree table of merge l whose merged children are subs, nil when
// none is merged.
func targetKind(l *nrLayout, subs []*nrSub) (*sparseKind, error) {
	if !slices.ContainsFunc(subs, func(s *nrSub) bool { return s != nil }) {
		return nil, nil
	}
	own, err := l.blankValues()
	if err != nil {
		return nil, err
	}
	n := 0
	for 1<<n < len(l.rels) {
		n++
	}
	rows, rb, cb := targetEntries(own, n, subs)
	b := newSparse(targetsName, 1<<rb, 1<<cb)
	addrs := make([]int, 0, len(rows))
	for a := range rows {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	for _, a := range addrs {
		for len(b.k.rowStart)-1 < a {
			b.row(nil, nil)
		}
		b.row(rows[a].cols, rows[a].coeffs)
	}
	return b.done(), nil
}

// isTargets reports whether k is a tree table.
func isTargets(k nrKind) bool {
	s, ok := k.block.(*sparseKind)
	return ok && s.name == targetsName
}

// targetSlot is where a merged child's target is among what its parent carries of
// it: its index among the kept hints (the record's Values) and its point's index
// among the record's distinct points.
func (s *nrSub) targetSlot() (kept, point int, err error) {
	vals, pts := s.targetParts()
	if len(vals) != 1 || len(pts) != 1 {
		return 0, 0, fmt.Errorf("%w: a merged child with %d relation targets at %d points", ErrMerged, len(vals), len(pts))
	}
	return vals[0], pts[0], nil
}

// digitPoint is the row point of child c's digit among w bits, padded with zeros to n
// coordinates after rest.
func digitPoint[T any](c, w int, rest []T, n int, zero, one T) []T {
	out := make([]T, 0, n)
	for i := range w {
		if (c+1)>>i&1 == 1 {
			out = append(out, one)
		} else {
			out = append(out, zero)
		}
	}
	out = append(out, rest...)
	return padTo(out, n, zero)
}

// targetClaim is merged child c's target (value v at point tau) as a claim on its
// parent's table (L: the table's block size, w: the parent's digit bits).
func targetClaim(c, w, L int, tau []field.E, v field.E) MatrixClaim {
	row := digitPoint(c, w, nil, L, field.E{}, field.One)
	return MatrixClaim{Row: EqWeight(row), Col: EqWeight(padTo(tau, L, field.E{})), VA: v}
}

// liftTargets is merged child c's batched claim on its own table (a block of 2^lx, its
// table's rows of rb bits and columns of cb; the child's batch point rRow, rCol and
// values va, vb) as a claim on its parent's table (a block of 2^L, the parent's digit
// bits w): T̃_X(a, b) = eq(0, a[rb:lx])·eq(0, b[cb:lx])·T̃_P((d, a[:rb]), b[:cb]).
func liftTargets(c, w, L, lx, rb, cb int, rRow, rCol []field.E, va, vb field.E) MatrixClaim {
	row := digitPoint(c, w, rRow[:rb], L, field.E{}, field.One)
	r := EqWeight(row)
	scale := padWeight(rRow[:lx], rb).Mul(padWeight(rCol[:lx], cb))
	low := make([]field.E, len(r.Low))
	field.ScaleE(low, r.Low, scale)
	r.Low = low
	return MatrixClaim{Row: r, Col: EqWeight(padTo(rCol[:cb], L, field.E{})), VA: va, VB: vb}
}

// tapeTargetClaim is targetClaim on a tape (point form).
func tapeTargetClaim(c, w, L int, tau []Lin, v Lin) TapeMatrixClaim {
	zero, one := ConstLin(field.E{}), ConstLin(field.One)
	return pointClaim(digitPoint(c, w, nil, L, zero, one), padTo(tau, L, zero), one, v, zero)
}

// tapeLiftTargets is liftTargets on a tape (point form).
func tapeLiftTargets(t *Tape, c, w, L, lx, rb, cb int, rRow, rCol []Lin, va, vb Lin) TapeMatrixClaim {
	zero, one := ConstLin(field.E{}), ConstLin(field.One)
	scale := one
	for _, x := range rRow[rb:lx] {
		scale = t.Mul(scale, one.Add(x))
	}
	for _, x := range rCol[cb:lx] {
		scale = t.Mul(scale, one.Add(x))
	}
	return pointClaim(digitPoint(c, w, rRow[:rb], L, zero, one), padTo(rCol[:cb], L, zero), scale, va, vb)
}

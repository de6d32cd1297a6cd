package recursion

import (
	"github.com/leanpipe/leanpipe/field"
)

// The batches of carried claims on a tape (docs/recursion.md §6.7): what a parent
// replays of a merged child's MergeBatchLabelNR transcript. VerifyKeyClaims and the
// block claims' batch (VerifyKindClaims, with the role claims' address batch) step for
// step, the claims' coordinates and values committed (the child's statement data,
// which the parent's transcript blocks hold), so the final weights, products of those
// coordinates with the batch's challenges, are products of the tape, and the
// identities are assertions.

// TapeMatrixClaim is a matrix claim with committed factors and values. Its weights are
// either tables (RowLow, RowHigh, ColLow, ColHigh, as Weight) or, in point form,
// Scale·eq(RowPoint, ·) and eq(ColPoint, ·): a carried claim's, whose weight at the
// batch's point costs one product a coordinate instead of two eq tables and their inner
// products.
type TapeMatrixClaim struct {
	RowLow, RowHigh, ColLow, ColHigh []Lin
	RowPoint, ColPoint               []Lin
	Scale                            Lin
	VA, VB                           Lin
}

// pointClaim is the point-form claim scale·eq(row, ·), eq(col, ·).
func pointClaim(row, col []Lin, scale, va, vb Lin) TapeMatrixClaim {
	return TapeMatrixClaim{RowPoint: row, ColPoint: col, Scale: scale, VA: va, VB: vb}
}

// tables are the claim's weights as tables (a point-form claim's built on the tape).
func (c TapeMatrixClaim) tables(t *Tape) (rowLow, rowHigh, colLow, colHigh []Lin) {
	if c.RowPoint == nil {
		return c.RowLow, c.RowHigh, c.ColLow, c.ColHigh
	}
	rowLow = t.EqTable(c.RowPoint[:LowBits])
	for i := range rowLow {
		rowLow[i] = t.Mul(rowLow[i], c.Scale)
	}
	return rowLow, c.RowPoint[LowBits:], t.EqTable(c.ColPoint[:LowBits]), c.ColPoint[LowBits:]
}

// weights are the claim's row and column weights at the batch's point (rRow, rCol, of
// the claim's circuit's size; eqRow and eqCol the eq tables of their first LowBits
// coordinates, shared by every table-form claim).
func (c TapeMatrixClaim) weights(t *Tape, rRow, rCol, eqRow, eqCol []Lin) (Lin, Lin) {
	if c.RowPoint != nil {
		return t.Mul(c.Scale, t.EqEval(c.RowPoint, rRow)), t.EqEval(c.ColPoint, rCol)
	}
	return t.Mul(t.InnerProduct(c.RowLow, eqRow), t.EqEval(c.RowHigh, rRow[LowBits:])),
		t.Mul(t.InnerProduct(c.ColLow, eqCol), t.EqEval(c.ColHigh, rCol[LowBits:]))
}

// TapeTableClaim is a key-table claim with a committed point and value (the offset and
// size are the statement's).
type TapeTableClaim struct {
	Tau, Chi  []Lin
	Offset, N int
	Value     Lin
}

// tapeBatchRounds replays a matrix-claim batch's start on the tape (observeClaims,
// batchTarget) and its 2·logSize rounds: it returns μ, the λs, the point and the
// final running value.
func tapeBatchRounds(t *Tape, s *tapeTr, logSize int, claims []TapeMatrixClaim, bound []bool) (mu Lin, lambda, point []Lin, running Lin) {
	for i, c := range claims {
		if i < len(bound) && bound[i] {
			continue
		}
		rowLow, rowHigh, colLow, colHigh := c.tables(t)
		for _, ls := range [][]Lin{rowLow, rowHigh, colLow, colHigh} {
			for _, x := range ls {
				s.observe(x)
			}
		}
		s.observe(c.VA)
		s.observe(c.VB)
	}
	mu = s.Sample()
	lambda = make([]Lin, len(claims))
	for i := range lambda {
		lambda[i] = s.Sample()
	}
	for i, c := range claims {
		running = running.Add(t.Mul(lambda[i], c.VA.Add(t.Mul(mu, c.VB))))
	}
	point = make([]Lin, 2*logSize)
	for i := range point {
		q := s.roundPoly(3, running, nil)
		point[i] = s.Sample()
		running = t.Poly(q, point[i])
	}
	return mu, lambda, point, running
}

// tapeTableWeight is TableClaim.weightAt on the tape (offsetWeight: O(|r|) products).
func tapeTableWeight(t *Tape, c TapeTableClaim, r []Lin) Lin {
	return offsetWeight(c.Chi, r, c.Offset, c.N, ring[Lin]{mul: t.Mul, add: Lin.Add, zero: ConstLin(field.E{}), one: oneLin})
}

// tapeBatchKeys replays VerifyKeyClaims for a table of window log windowLog and
// 2^slotBits slots and returns the point and value the table must have there.
func tapeBatchKeys(t *Tape, s *tapeTr, windowLog, slotBits int, claims []TapeTableClaim) ([]Lin, Lin) {
	for _, c := range claims {
		for _, x := range c.Tau {
			s.observe(x)
		}
		for _, x := range c.Chi {
			s.observe(x)
		}
		s.observe(ConstLin(field.FromK(field.K(c.Offset))))
		s.observe(ConstLin(field.FromK(field.K(c.N))))
		s.observe(c.Value)
	}
	lambda := make([]Lin, len(claims))
	for i := range lambda {
		lambda[i] = s.Sample()
	}
	var running Lin
	for i, c := range claims {
		running = running.Add(t.Mul(lambda[i], c.Value))
	}
	point := make([]Lin, windowLog+slotBits)
	for i := range point {
		q := s.roundPoly(3, running, nil)
		point[i] = s.Sample()
		running = t.Poly(q, point[i])
	}
	v := s.Receive()
	rj, rt := point[:windowLog], point[windowLog:]
	var weight Lin
	for i, c := range claims {
		weight = weight.Add(t.Mul(lambda[i], t.Mul(t.EqEval(c.Tau, rj), tapeTableWeight(t, c, rt))))
	}
	t.Equal("the key claims' batch", t.Mul(v, weight), running)
	return point, v
}

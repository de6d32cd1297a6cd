package recursion

import (
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// Query blocks without reveal (docs/recursion.md §6.4): the same checks as a query
// block (leaf hash, path, fold, induced term), with the index taken from the
// transcript's sample word and every input on whole words, so that relations tie the
// sample to the transcript blocks, the eq table and the point to the tape, and the
// root to the stream scalars that carry it. The public term pins only the position
// choice (one-hot, fixed by the query's number) and the weight (1).

// NewQueryBlockNR builds the no-reveal block of a level (level 0 or a later one).
func NewQueryBlockNR(level0 bool, depth, pointLen int) *QueryBlock {
	qb := queryLayoutNR(level0, depth, pointLen)
	qb.compile()
	return qb
}

func queryLayoutNR(level0 bool, depth, pointLen int) *QueryBlock {
	qb := queryLayout(level0, depth, pointLen)
	qb.noReveal = true
	qb.PerWord = 192 / depth
	qb.name += "-nr"
	next := 64
	take := func(n int) int {
		base := next
		next = (next + n + 63) &^ 63
		return base
	}
	qb.Sample = take(192)
	qb.Sel = take(qb.PerWord)
	qb.Eq = take(192 * qb.EqLen)
	qb.Weight = take(192)
	qb.Point = take(192 * pointLen)
	qb.Row = take(64 * qb.RowLen)
	qb.Path = take(256 * depth)
	qb.Index = -1
	qb.Root = next
	qb.Fold = qb.Root + 256
	qb.Induced = qb.Fold + 192 + 64 // on a word
	// The rows grow with the path and the point (about 14.9k per sibling and 6.6k per
	// point coordinate); a shape near or past the block's columns gets the smallest
	// block it fits in, found by describing it (a function of the shape alone, so
	// prover and verifier agree).
	if est := queryRowsEstimate(level0, depth, pointLen); 10*est >= 9<<qb.logSize {
		for qb.logSize < maxQueryLogSize && !qb.fits() {
			qb.logSize++
		}
	}
	qb.describe()
	return qb
}

// maxQueryLogSize bounds a no-reveal query block's columns.
const maxQueryLogSize = 23

// queryRowsEstimate is a no-reveal query block's rows, to within a few, by a fit of
// the described blocks (level 0's rows are longer).
func queryRowsEstimate(level0 bool, depth, pointLen int) int {
	base := 84238
	if level0 {
		base = 262814
	}
	return base + 14856*depth + 6561*pointLen
}

// fits reports whether the block's description fits its columns.
func (qb *QueryBlock) fits() (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	describeQuery[circuit.Wire](circuit.NewChecker(qb.name, qb.logSize, 0), qb)
	return true
}

// Word is the column word of in-block column col (a multiple of 64) of slot slot.
func (qb *QueryBlock) Word(slot, col int) int { return slot<<(qb.logSize-6) + col/64 }

// SetNR writes a no-reveal block's inputs into lane j: the query's row, path, eq
// table, weight and point, its transcript sample and the position c of its index in
// the sample.
func (qb *QueryBlock) SetNR(w []uint64, j uint, in *QueryInput, sample field.E, c int) error {
	if !qb.noReveal {
		return fmt.Errorf("recursion: SetNR on a block with reveal")
	}
	if c < 0 || c >= qb.PerWord {
		return fmt.Errorf("recursion: index position %d of %d", c, qb.PerWord)
	}
	if len(in.Row) != qb.RowLen || len(in.Path) != qb.Depth || len(in.Eq) != qb.EqLen || len(in.Point) != qb.PointLen {
		return fmt.Errorf("recursion: query input of %d words, %d siblings, %d eq, %d point coordinates for a block of depth %d, point %d",
			len(in.Row), len(in.Path), len(in.Eq), len(in.Point), qb.Depth, qb.PointLen)
	}
	setLaneE(w, j, qb.Sample, sample)
	setLane(w, j, qb.Sel+c, 1, 1)
	for l, x := range in.Row {
		setLane(w, j, qb.Row+64*l, x, 64)
	}
	for d, s := range in.Path {
		for k := range 4 {
			setLane(w, j, qb.Path+256*d+64*k, leUint64(s[8*k:]), 64)
		}
	}
	for l, e := range in.Eq {
		setLaneE(w, j, qb.Eq+192*l, e)
	}
	setLaneE(w, j, qb.Weight, in.Weight)
	for k, e := range in.Point {
		setLaneE(w, j, qb.Point+192*k, e)
	}
	return nil
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := range 8 {
		v |= uint64(b[i]) << (8 * i)
	}
	return v
}

// NRWindow is a no-reveal block's public window: the position choice and the weight.
func (qb *QueryBlock) NRWindow() lincheck.Window {
	log := bits.Len(uint(qb.Weight + 192 - 1))
	w := lincheck.Window{Log: log, Mask: make([]uint64, max(1, (1<<log)/64))}
	for c := qb.Sel; c < qb.Sel+qb.PerWord; c++ {
		w.Mask[c/64] |= 1 << (c % 64)
	}
	for c := qb.Weight; c < qb.Weight+192; c++ {
		w.Mask[c/64] |= 1 << (c % 64)
	}
	return w
}

// NRTable is the window's table for a level of n queries: query t's position is
// t mod PerWord, its weight 1.
func (qb *QueryBlock) NRTable(n int) *lincheck.Table {
	w := qb.NRWindow()
	t := &lincheck.Table{W: w, Rows: make([][]uint64, n)}
	for i := range t.Rows {
		row := make([]uint64, len(w.Mask))
		setBits(row, qb.Sel+i%qb.PerWord, 1, 1)
		setBits(row, qb.Weight, 1, 1)
		t.Rows[i] = row
	}
	return t
}

// NRSegment is the prover's segment of a level's queries (samples are the level's
// transcript samples, PerWord queries to a sample).
func (qb *QueryBlock) NRSegment(lq *LevelQueries, samples []field.E) flows.Segment {
	c := qb.compile()
	n := len(lq.Queries)
	w := qb.NRWindow()
	return flows.Segment{Circuit: c, N: n, Public: &w,
		Fill: fillSlots(c, n, func(v []uint64, lane uint, s int) error {
			if s/qb.PerWord >= len(samples) {
				return fmt.Errorf("recursion: query %d without its sample", s)
			}
			return qb.SetNR(v, lane, &lq.Queries[s], samples[s/qb.PerWord], s%qb.PerWord)
		})}
}

// NRShape is the verifier's view of a level of n queries.
func (qb *QueryBlock) NRShape(n int) flows.SegmentShape {
	return flows.SegmentShape{Circuit: qb.Matrices(), N: n, Public: qb.NRTable(n)}
}

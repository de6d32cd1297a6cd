package recursion

import (
	"math/bits"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// One WHIR level of a child as a segment of query blocks (docs/recursion.md §4.2): the
// blocks' inputs that the verifier knows (index bits, the level's eq table, the live
// weight, the induced point) and the root they climb to are pinned through one public
// window; the λ-weighted sums of their fold and induced terms are tied to the level's
// revealed sums by linear claims on the segment's column (LevelClaims).

// PinWindow is the window of a query block's public term: columns [0, 2^Log) up to the
// root's, with the index bits, the eq table, the weight, the point and the root pinned.
func (qb *QueryBlock) PinWindow() lincheck.Window {
	log := bits.Len(uint(qb.Root + 256 - 1))
	w := lincheck.Window{Log: log, Mask: make([]uint64, max(1, (1<<log)/64))}
	pin := func(base, n int) {
		for c := base; c < base+n; c++ {
			w.Mask[c/64] |= 1 << (c % 64)
		}
	}
	pin(qb.Index, qb.Depth)
	pin(qb.Eq, 192*qb.EqLen)
	pin(qb.Weight, 192)
	pin(qb.Point, 192*qb.PointLen)
	pin(qb.Root, 256)
	return w
}

// PinTable is the level's public table: per query its pinned bits (slots past the
// queries repeat the first, as the segment's padding blocks do).
func (qb *QueryBlock) PinTable(lq *LevelQueries) *lincheck.Table {
	w := qb.PinWindow()
	t := &lincheck.Table{W: w, Rows: make([][]uint64, len(lq.Queries))}
	for s := range lq.Queries {
		t.Rows[s] = qb.pinRow(w, lq, &lq.Queries[s])
	}
	return t
}

func (qb *QueryBlock) pinRow(w lincheck.Window, lq *LevelQueries, in *QueryInput) []uint64 {
	row := make([]uint64, len(w.Mask))
	set := func(base int, v uint64, n int) { setBits(row, base, v, n) }
	setE := func(base int, e field.E) {
		set(base, uint64(e.C0), 64)
		set(base+64, uint64(e.C1), 64)
		set(base+128, uint64(e.C2), 64)
	}
	set(qb.Index, uint64(in.Index), qb.Depth)
	for l, e := range in.Eq {
		setE(qb.Eq+192*l, e)
	}
	setE(qb.Weight, in.Weight)
	for k, e := range in.Point {
		setE(qb.Point+192*k, e)
	}
	for k := range 32 {
		set(qb.Root+8*k, uint64(lq.Root[k]), 8)
	}
	return row
}

// Several children's levels of one block shape share a query segment: member m's
// queries fill slots [m·2^b, m·2^b + n_m) and the rest of its block of 2^b slots
// repeats its first query (b = blockLog, n_m ≤ 2^b); each member's sums are linear
// claims over its own live slots (LevelClaims).

func memberQuery(members []*LevelQueries, blockLog, s int) (*LevelQueries, *QueryInput) {
	m := members[s>>blockLog]
	t := s & (1<<blockLog - 1)
	if t >= len(m.Queries) {
		t = 0
	}
	return m, &m.Queries[t]
}

// LevelsSegment is the prover's segment of members' levels in blocks of 2^blockLog slots.
func (qb *QueryBlock) LevelsSegment(members []*LevelQueries, blockLog int) flows.Segment {
	w := qb.PinWindow()
	n := len(members) << blockLog
	return flows.Segment{Circuit: qb.compile(), N: n, Public: &w,
		Fill: fillSlots(qb.compile(), n, func(v []uint64, lane uint, s int) error {
			_, in := memberQuery(members, blockLog, s)
			return qb.Set(v, lane, in)
		})}
}

// LevelsShape is the verifier's view of the same segment.
func (qb *QueryBlock) LevelsShape(members []*LevelQueries, blockLog int) flows.SegmentShape {
	w := qb.PinWindow()
	n := len(members) << blockLog
	t := &lincheck.Table{W: w, Rows: make([][]uint64, n)}
	for s := range n {
		lq, in := memberQuery(members, blockLog, s)
		t.Rows[s] = qb.pinRow(w, lq, in)
	}
	return flows.SegmentShape{Circuit: qb.Matrices(), N: n, Public: t}
}

// LevelSegment is the prover's segment of a level's query blocks.
func (qb *QueryBlock) LevelSegment(lq *LevelQueries) flows.Segment {
	w := qb.PinWindow()
	return flows.Segment{Circuit: qb.compile(), N: len(lq.Queries), Public: &w,
		Fill: fillSlots(qb.compile(), len(lq.Queries), func(v []uint64, lane uint, s int) error {
			return qb.Set(v, lane, &lq.Queries[s])
		})}
}

// LevelShape is the verifier's view of the same segment.
func (qb *QueryBlock) LevelShape(lq *LevelQueries) flows.SegmentShape {
	return flows.SegmentShape{Circuit: qb.Matrices(), N: len(lq.Queries), Public: qb.PinTable(lq)}
}

// LevelClaims are the linear claims (on segment seg, whose members' levels fill blocks
// of 2^blockLog slots) that tie member member's queries to its level's revealed sums:
// Σ_{t<n} λ^t·fold(t) = enforced and Σ_{t<n} λ^t·induced(t) = induced, each output an E
// value on three words (c0 + c1·Y + c2·Y²). The padding slots of the member's block
// are in no term.
func (qb *QueryBlock) LevelClaims(seg int, lq *LevelQueries, blockLog, member int, enforced, induced field.E) []flows.LinearClaim {
	wordBits := qb.LogSize() - 6
	fold := flows.LinearClaim{Segment: seg, Value: enforced}
	ind := flows.LinearClaim{Segment: seg, Value: induced}
	pow := field.One
	for t := range lq.Queries {
		slot := member<<blockLog + t
		f := flows.LinearTermsE(qb.Fold/64+slot<<wordBits, pow)
		i := flows.LinearTermsE(qb.Induced/64+slot<<wordBits, pow)
		fold.Terms = append(fold.Terms, f[:]...)
		ind.Terms = append(ind.Terms, i[:]...)
		pow = pow.Mul(lq.Lambda)
	}
	return []flows.LinearClaim{fold, ind}
}

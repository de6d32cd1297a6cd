package recursion

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// One batch of matrix claims on several circuits of different sizes, at one point
// (docs/recursion.md §6.9): BatchMatrixClaims generalised. Circuit k of 2^L_k columns
// is embedded in the top-left corner of a 2^L matrix, L the largest L_k:
// M'_k(x, y) = M_k(x_low, y_low)·eq(0, x_high)·eq(0, y_high), x_low its first L_k
// coordinates. A claim on M_k is the same claim on M'_k with its weights extended by
// eq(0, ·), so the batch is one two-phase sumcheck of 2L rounds; its output is one
// point (r_row, r_col) and, per circuit, the values of A0 and B0 at its first L_k
// coordinates of each. A claim's weights past its circuit's size are zero-extended in
// the rounds: a vector of one entry a stands for (a, 0, 0, …), whose round
// polynomial against another such b is a·b·(1 − X)². Both factors of each product
// are extended, so the final identity weighs circuit k by the square of
// eq(0, r_row past L_k)·eq(0, r_col past L_k).

// storedRowsLog bounds the circuits whose claims' row vectors BatchKindClaims keeps
// between its two walks (2^20 values: 24 MiB a claim); the claims on larger circuits
// keep theirs too, in their order, while those together fit in bigRowsBytes (two
// claims on the 2^21-column xmss-aggregate circuit, a 2→1 merge's leaves', take 96
// MiB). The rule depends on the claims alone, not on the workers. Variables: the
// tests shrink them so that both paths meet on small circuits.
var (
	storedRowsLog = 20
	bigRowsBytes  = 192 << 20
)

// keepRows marks the claims (flat, on circuits of 2^logs[t] columns) whose row
// vectors the batch keeps between its walks.
func keepRows(logs []int) []bool {
	keep := make([]bool, len(logs))
	big := 0
	for t, n := range logs {
		size := (1 << n) * int(unsafe.Sizeof(field.E{}))
		switch {
		case n <= storedRowsLog:
			keep[t] = true
		case big+size <= bigRowsBytes:
			keep[t] = true
			big += size
		}
	}
	return keep
}

// vecShelf holds the vectors a batch is done with, by length, for its later ones:
// fresh memory costs its page faults on first touch (a 2→1 merge's batch walks
// hundreds of MiB), memory used once already does not.
type vecShelf map[int][][]field.E

// put shelves v (nil: nothing).
func (s *vecShelf) put(v []field.E) {
	if v == nil {
		return
	}
	if *s == nil {
		*s = vecShelf{}
	}
	(*s)[len(v)] = append((*s)[len(v)], v)
}

// get returns a vector of n entries, its contents unspecified: a shelved one if any.
func (s vecShelf) get(n int) []field.E {
	if l := s[n]; len(l) > 0 {
		s[n] = l[:len(l)-1]
		return l[len(l)-1]
	}
	return buffers.MakeUninit[field.E](n)
}

// apartRows is a claim's row vectors A0·w and B0·w (w its column weight) from one
// walk before μ is drawn, and their sums against its row weight's high factor
// (circuit.RowSink apart): its matrix values are their inner products with the row
// weight's low factor, and the batch's first phase needs only their μ-combination.
type apartRows struct {
	a, b   []field.E
	ua, ub []field.E
}

// apartClaims sets every claim's values VA and VB (claims[k] on cs[k], weights set):
// a claim on a compiled circuit by one walk whose rows it keeps apart for the batch
// (apart[k][i] for claims[k][i]), any other by its bilinear form (nil apart). The
// batch that follows (batchKindClaims) walks those circuits once less.
func apartClaims(cs []Matrices, claims [][]MatrixClaim, workers par.Workers) ([][]*apartRows, error) {
	apart := make([][]*apartRows, len(cs))
	var flat []*MatrixClaim
	var at []*apartRows
	var on []*circuit.Circuit
	for k, cl := range claims {
		apart[k] = make([]*apartRows, len(cl))
		c, ok := cs[k].(*circuit.Circuit)
		for i := range cl {
			if !ok {
				cl[i].VA, cl[i].VB = cs[k].BilinearTensor(cl[i].Row, cl[i].Col)
				continue
			}
			if !weightValid(cl[i].Row, c.LogSize()) || !weightValid(cl[i].Col, c.LogSize()) {
				return nil, fmt.Errorf("%w: circuit %d's claim %d has weights of %d+%d and %d+%d entries and coordinates, the circuit 2^%d",
					ErrClaimShape, k, i, len(cl[i].Row.Low), len(cl[i].Row.High), len(cl[i].Col.Low), len(cl[i].Col.High), c.LogSize())
			}
			n := c.Size()
			// RowsTensorOn writes both row vectors in full.
			ap := &apartRows{a: buffers.MakeUninit[field.E](n), b: buffers.MakeUninit[field.E](n),
				ua: make([]field.E, 1<<LowBits), ub: make([]field.E, 1<<LowBits)}
			apart[k][i] = ap
			flat, at, on = append(flat, &cl[i]), append(at, ap), append(on, c)
		}
	}
	// The largest first: walked one per worker, claims of unequal sizes balance
	// best so.
	order := largestFirst(len(flat), func(t int) int { return on[t].LogSize() })
	eachClaim(len(flat), workers, func(i int, w par.Workers) {
		t := order[i]
		cl, ap := flat[t], at[t]
		hi := make([]field.E, len(ap.a)>>LowBits)
		field.EqTable(hi, cl.Row.High)
		on[t].RowsTensorOn(cl.Col, field.Zero, circuit.RowSink{Dst: ap.a, U: ap.ua, DstB: ap.b, UB: ap.ub, UHigh: hi}, w)
		cl.VA, cl.VB = field.InnerProduct(cl.Row.Low, ap.ua), field.InnerProduct(cl.Row.Low, ap.ub)
	})
	if err := workers.Err(); err != nil {
		return nil, fmt.Errorf("recursion: the segments' matrix values: %w", err)
	}
	return apart, nil
}

// largestFirst is 0..n−1 by decreasing logSize, ties in index order: the order in
// which work items of unequal sizes, handed to the workers one at a time, balance best.
func largestFirst(n int, logSize func(int) int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return logSize(y) - logSize(x) })
	return order
}

// KindsClaim is the output of a batch over several circuits: the common point and,
// per circuit, A0 and B0 at (RRow[:L_k], RCol[:L_k]). VB holds the B0 values of the
// circuits whose B0 is not zero only, in order (zeroB: a sparse kind's B0 is zero,
// and neither its batch nor a record carries a value for it).
//
// RAddr is a no-reveal merge's role kinds' address point (roles.go; empty without
// role kinds): its role kinds' VA values are their tables at RAddr.
type KindsClaim struct {
	RRow, RCol []field.E
	VA, VB     []field.E
	RAddr      []field.E
}

// claim is circuit k's claim of the output, its B0 value vb.
func (c KindsClaim) claim(k, logSize int, vb field.E) MatrixClaim {
	return MatrixClaim{Row: EqWeight(c.RRow[:logSize]), Col: EqWeight(c.RCol[:logSize]), VA: c.VA[k], VB: vb}
}

// expandB is a compact list of B0 values (one per circuit whose zeroB is false) with
// zero at every other circuit; ok is false when the lengths do not fit.
func expandB[T any](compact []T, zeroB []bool, zero T) (full []T, ok bool) {
	full = make([]T, len(zeroB))
	n := 0
	for k, z := range zeroB {
		if z {
			full[k] = zero
			continue
		}
		if n == len(compact) {
			return nil, false
		}
		full[k] = compact[n]
		n++
	}
	return full, n == len(compact)
}

// compactB is the B0 values of the circuits whose zeroB is false (nil zeroB: all).
func compactB[T any](full []T, zeroB []bool) []T {
	var out []T
	for k, v := range full {
		if k >= len(zeroB) || !zeroB[k] {
			out = append(out, v)
		}
	}
	return out
}

// padWeight is Π_{j ≥ n} (1 + r_j): eq(0, r past its first n coordinates).
func padWeight(r []field.E, n int) field.E {
	w := field.One
	for _, x := range r[n:] {
		w = w.Mul(field.One.Add(x))
	}
	return w
}

// kindsShape checks the claims against the circuits' sizes and returns the largest.
func kindsShape(logSizes []int, claims [][]MatrixClaim) (int, error) {
	if len(logSizes) == 0 || len(claims) != len(logSizes) {
		return 0, fmt.Errorf("%w: %d circuits and %d claim lists", ErrClaimShape, len(logSizes), len(claims))
	}
	L := 0
	for k, cs := range claims {
		if err := checkClaims(logSizes[k], cs); err != nil {
			return 0, fmt.Errorf("circuit %d: %w", k, err)
		}
		L = max(L, logSizes[k])
	}
	return L, nil
}

// flatClaims is the claims in order, circuit by circuit, with each one's circuit.
func flatClaims[C any](claims [][]C) (flat []C, kindOf []int) {
	for k, cs := range claims {
		for _, c := range cs {
			flat = append(flat, c)
			kindOf = append(kindOf, k)
		}
	}
	return flat, kindOf
}

// BatchKindClaims proves claims on several circuits (claims[k] on cs[k], at least one
// each) at one point, on the workers: the claims' weights and values are observed (but
// the last bound[k] of circuit k's, which the transcript holds already; nil: none),
// then μ and one λ per claim are drawn and Σ λ_t·(VA_t + μ·VB_t) is reduced to the
// circuits' values at the output point, which are sent (no B0 value where zeroB marks
// the circuit's B0 zero; nil zeroB: none).
func BatchKindClaims(tr ClaimsProver, cs []Matrices, claims [][]MatrixClaim, bound []int, zeroB []bool, workers par.Workers) (KindsClaim, error) {
	return batchKindClaims(tr, cs, claims, nil, bound, zeroB, workers)
}

// batchKindClaims is BatchKindClaims with some claims' rows walked already
// (apartClaims; apart[k][i] for claims[k][i], nil: none), which it consumes.
func batchKindClaims(tr ClaimsProver, cs []Matrices, claims [][]MatrixClaim, apart [][]*apartRows, bound []int, zeroB []bool, workers par.Workers) (KindsClaim, error) {
	logSizes := make([]int, len(cs))
	for k, c := range cs {
		logSizes[k] = c.LogSize()
	}
	L, err := kindsShape(logSizes, claims)
	if err != nil {
		return KindsClaim{}, err
	}
	flat, kindOf := flatClaims(claims)
	// The circuits, the largest first: the order in which whole walks of several
	// circuits share the workers (dynamically, one circuit at a time) balance best.
	bigOrder := largestFirst(len(cs), func(k int) int { return logSizes[k] })
	if apart != nil && len(apart) != len(claims) {
		return KindsClaim{}, fmt.Errorf("%w: %d circuits and %d lists of walked rows", ErrClaimShape, len(claims), len(apart))
	}
	var done []*apartRows
	for k, ap := range apart {
		if len(ap) > len(claims[k]) {
			return KindsClaim{}, fmt.Errorf("%w: circuit %d: %d claims and %d walked rows", ErrClaimShape, k, len(claims[k]), len(ap))
		}
		done = append(done, ap...)
		done = append(done, make([]*apartRows, len(claims[k])-len(ap))...)
	}
	mu, lambda := observeClaims(tr.Observe, tr.Sample, flat, boundMask(claims, bound))
	T := len(flat)

	// Row phase, rounds 0..5: Σ_t λ_t·Σ_i Row_t.Low[i]·U_t[i], each claim on its own
	// circuit's rows.
	// A claim's row vector is kept for the second phase (keepRows: one walk instead
	// of two); the others' are walked again. A claim walked already (done) has its
	// sums, u = ua + μ·ub, and its rows A0·w and B0·w for the second phase.
	hiR := make([][]field.E, T)
	u := make([][]field.E, T)
	rowsV := make([][]field.E, T)
	logs := make([]int, T)
	for t := range flat {
		logs[t] = logSizes[kindOf[t]]
	}
	keep := keepRows(logs)
	var walk, again []int // the claims walked here, and again in the second phase
	for t, cl := range flat {
		hiR[t] = make([]field.E, 1<<(logSizes[kindOf[t]]-LowBits))
		field.EqTable(hiR[t], cl.Row.High)
		if t < len(done) && done[t] != nil {
			field.AddScaledE(done[t].ua, done[t].ub, mu)
			u[t] = done[t].ua
			continue
		}
		u[t] = make([]field.E, 1<<LowBits)
		walk = append(walk, t)
		if keep[t] {
			rowsV[t] = buffers.MakeUninit[field.E](1 << logSizes[kindOf[t]]) // written in full by the walk
		} else {
			again = append(again, t)
		}
	}
	eachClaim(len(walk), workers, func(i int, w par.Workers) {
		t := walk[i]
		cs[kindOf[t]].RowsTensorOn(flat[t].Col, mu, circuit.RowSink{Dst: rowsV[t], U: u[t], UHigh: hiR[t]}, w)
	})
	if err := workers.Err(); err != nil {
		return KindsClaim{}, fmt.Errorf("recursion: kinds batch: %w", err)
	}
	low := make([][]field.E, T)
	for t, cl := range flat {
		low[t] = append([]field.E(nil), cl.Row.Low...)
	}
	rRow := make([]field.E, L)
	proveProductRounds(tr, rRow[:LowBits], low, u, lambda)
	// Rounds 6..L−1, each claim's vectors zero-extended past its circuit.
	eqLow := make([]field.E, 1<<LowBits)
	field.EqTable(eqLow, rRow[:LowBits])
	vf := make([][]field.E, T)
	for t := range vf {
		vf[t] = make([]field.E, len(hiR[t]))
	}
	eachClaim(len(again), workers, func(i int, w par.Workers) {
		t := again[i]
		cs[kindOf[t]].RowsTensorOn(flat[t].Col, mu, circuit.RowSink{Fold: vf[t], FoldLow: eqLow}, w)
	})
	if err := workers.Err(); err != nil {
		return KindsClaim{}, fmt.Errorf("recursion: kinds batch: %w", err)
	}
	// The stored rows are folded one claim at a time on all the workers (memory
	// bound; claims of unequal sizes split among the workers would not balance). A
	// claim walked apart folds A0·w and B0·w each and adds them with μ, which reads
	// each once (combining them first would read and write them again).
	// The vectors the batch is done with then serve again as its column phase's sums.
	var shelf vecShelf
	var tmp []field.E
	for t := range flat {
		switch {
		case t < len(done) && done[t] != nil:
			ap := done[t]
			tmp = buffers.GrowUninit(tmp, len(vf[t]))
			foldBlocks(vf[t], ap.a, eqLow, workers)
			foldBlocks(tmp, ap.b, eqLow, workers)
			field.AddScaledE(vf[t], tmp, mu)
			shelf.put(ap.a)
			shelf.put(ap.b)
			done[t] = nil
		case rowsV[t] != nil:
			foldBlocks(vf[t], rowsV[t], eqLow, workers)
			shelf.put(rowsV[t])
			rowsV[t] = nil
		}
	}
	for t := range hiR {
		field.ScaleE(hiR[t], hiR[t], low[t][0])
	}
	proveProductRounds(tr, rRow[LowBits:], hiR, vf, lambda)

	// Column phase: per circuit f_k = (A0 + μ·B0)ᵀ·eq(r_row[:L_k]) times the row
	// padding's weight (f holds it unscaled); rounds 0..5: Σ_t c_t·Σ_i Col_t.Low[i]·F_t[i].
	coef := make([]field.E, T)
	hiC := make([][]field.E, T)
	for t, cl := range flat {
		coef[t] = lambda[t].Mul(hiR[t][0])
		hiC[t] = make([]field.E, 1<<(logSizes[kindOf[t]]-LowBits))
		field.EqTable(hiC[t], cl.Col.High)
	}
	f := make([][]field.E, len(cs))
	fu := make([][]field.E, T)
	for k := range cs {
		f[k] = shelf.get(1 << logSizes[k])
	}
	shelf = nil
	// Each circuit's transpose by a serial walk, the circuits at once on the
	// workers, the largest first (bigOrder): no extra worker's column vector to
	// clear and add, as a transpose split over the workers has.
	one := workers.Limit(1)
	workers.For(len(bigOrder), func(_, lo, hi int) {
		for _, k := range bigOrder[lo:hi] {
			cs[k].TransposeTensorWith(f[k], nil, EqWeight(rRow[:logSizes[k]]), mu, one)
		}
	}, par.PerWorker(len(bigOrder)))
	if err := workers.Err(); err != nil {
		return KindsClaim{}, fmt.Errorf("recursion: kinds batch: %w", err)
	}
	for k := range cs {
		// f_k's padding weight scales its sums here and its fold below (a pass
		// over f_k saved).
		pad := padWeight(rRow, logSizes[k])
		var his [][]field.E
		var ts []int
		for t := range flat {
			if kindOf[t] == k {
				his, ts = append(his, hiC[t]), append(ts, t)
			}
		}
		for i, s := range blockSums(f[k], his, workers) {
			field.ScaleE(s, s, pad)
			fu[ts[i]] = s
		}
	}
	for t, cl := range flat {
		low[t] = append(low[t][:0], cl.Col.Low...)
	}
	rCol := make([]field.E, L)
	proveProductRounds(tr, rCol[:LowBits], low, fu, coef)
	// Rounds 6..L−1: per circuit fr_k(j)·Σ_{t on k} c_t·Col_t.Low(r_low)·eq(Col_t.High, j).
	field.EqTable(eqLow, rCol[:LowBits])
	fr := make([][]field.E, len(cs))
	g := make([][]field.E, len(cs))
	for k := range cs {
		fr[k] = make([]field.E, len(f[k])>>LowBits)
		foldBlocks(fr[k], f[k], eqLow, workers)
		field.ScaleE(fr[k], fr[k], padWeight(rRow, logSizes[k]))
		f[k] = nil
		g[k] = make([]field.E, len(fr[k]))
	}
	for t := range flat {
		field.AddScaledE(g[kindOf[t]], hiC[t], coef[t].Mul(low[t][0]))
	}
	proveProductRounds(tr, rCol[LowBits:], fr, g, nil)
	if err := workers.Err(); err != nil {
		return KindsClaim{}, fmt.Errorf("recursion: kinds batch: %w", err)
	}
	out := KindsClaim{RRow: rRow, RCol: rCol, VA: make([]field.E, len(cs)), VB: make([]field.E, len(cs))}
	// Each circuit's values by a serial walk, the circuits at once on the workers,
	// the largest first.
	workers.For(len(bigOrder), func(_, lo, hi int) {
		for _, k := range bigOrder[lo:hi] {
			out.VA[k], out.VB[k] = cs[k].BilinearTensor(EqWeight(rRow[:logSizes[k]]), EqWeight(rCol[:logSizes[k]]))
		}
	}, par.PerWorker(len(bigOrder)))
	if err := workers.Err(); err != nil {
		return KindsClaim{}, fmt.Errorf("recursion: kinds batch: %w", err)
	}
	for k := range cs {
		pad := padWeight(rRow, logSizes[k]).Mul(padWeight(rCol, logSizes[k]))
		if out.VA[k].Add(mu.Mul(out.VB[k])).Mul(pad) != fr[k][0] {
			return KindsClaim{}, errors.New("recursion: kinds batch: the backward walk and the point evaluation disagree (a bug)")
		}
		if k < len(zeroB) && zeroB[k] && !out.VB[k].IsZero() {
			return KindsClaim{}, fmt.Errorf("recursion: kinds batch: circuit %d's B0 is said to be zero and is not (a bug)", k)
		}
	}
	for k := range cs {
		tr.Send(out.VA[k])
		if k >= len(zeroB) || !zeroB[k] {
			tr.Send(out.VB[k])
		}
	}
	out.VB = compactB(out.VB, zeroB)
	return out, nil
}

// VerifyKindClaims replays BatchKindClaims for circuits of 2^logSizes[k] columns and
// returns the output, whose values the caller evaluates natively (CheckKindsClaim).
func VerifyKindClaims(tr ClaimsVerifier, logSizes []int, claims [][]MatrixClaim, bound []int, zeroB []bool) (KindsClaim, error) {
	L, err := kindsShape(logSizes, claims)
	if err != nil {
		return KindsClaim{}, err
	}
	flat, kindOf := flatClaims(claims)
	mu, lambda := observeClaims(tr.Observe, tr.Sample, flat, boundMask(claims, bound))
	running := batchTarget(flat, mu, lambda)
	point, running, err := verifyProductRounds(tr, 2*L, running, "kinds batch")
	if err != nil {
		return KindsClaim{}, err
	}
	out := KindsClaim{RRow: point[:L], RCol: point[L:], VA: make([]field.E, len(logSizes)), VB: make([]field.E, len(logSizes))}
	for k := range logSizes {
		if out.VA[k], err = tr.Receive(); err == nil && (k >= len(zeroB) || !zeroB[k]) {
			out.VB[k], err = tr.Receive()
		}
		if err != nil {
			return KindsClaim{}, fmt.Errorf("recursion: kinds batch values %d: %w", k, err)
		}
	}
	weights := make([]field.E, len(logSizes))
	for t, c := range flat {
		n := logSizes[kindOf[t]]
		weights[kindOf[t]] = weights[kindOf[t]].Add(lambda[t].Mul(weightEval(c.Row, out.RRow[:n])).Mul(weightEval(c.Col, out.RCol[:n])))
	}
	var total field.E
	for k, n := range logSizes {
		// Both factors of every product carry the padding's weight.
		pad := padWeight(out.RRow, n).Mul(padWeight(out.RCol, n)).Square()
		total = total.Add(out.VA[k].Add(mu.Mul(out.VB[k])).Mul(pad).Mul(weights[k]))
	}
	if total != running {
		return KindsClaim{}, ErrBatch
	}
	out.VB = compactB(out.VB, zeroB)
	return out, nil
}

// boundMask marks, in the flat order of claims, the last bound[k] claims of each
// circuit k (nil bound: none).
func boundMask[C any](claims [][]C, bound []int) []bool {
	if bound == nil {
		return nil
	}
	var mask []bool
	for k, cs := range claims {
		for i := range cs {
			mask = append(mask, i >= len(cs)-bound[k])
		}
	}
	return mask
}

// tapeBatchKinds replays VerifyKindClaims on the tape (claims[k] on a circuit of
// 2^logSizes[k] columns) and returns the output's point and values.
func tapeBatchKinds(t *Tape, s *tapeTr, logSizes []int, claims [][]TapeMatrixClaim, bound []int, zeroB []bool) (rRow, rCol, va, vb []Lin) {
	L := 0
	for _, n := range logSizes {
		L = max(L, n)
	}
	flat, kindOf := flatClaims(claims)
	mu, lambda, point, running := tapeBatchRounds(t, s, L, flat, boundMask(claims, bound))
	rRow, rCol = point[:L], point[L:]
	va, vb = make([]Lin, len(logSizes)), make([]Lin, len(logSizes))
	for k := range logSizes {
		va[k] = s.Receive()
		if k < len(zeroB) && zeroB[k] {
			vb[k] = ConstLin(field.E{})
		} else {
			vb[k] = s.Receive()
		}
	}
	weights := make([]Lin, len(logSizes))
	// Every kind's point starts with the same LowBits coordinates: one eq table each.
	eqRow, eqCol := t.EqTable(rRow[:LowBits]), t.EqTable(rCol[:LowBits])
	for i, c := range flat {
		n := logSizes[kindOf[i]]
		wr, wc := c.weights(t, rRow[:n], rCol[:n], eqRow, eqCol)
		weights[kindOf[i]] = weights[kindOf[i]].Add(t.Mul(lambda[i], t.Mul(wr, wc)))
	}
	one := ConstLin(field.One)
	pad := func(r []Lin, n int) Lin {
		w := one
		for _, x := range r[n:] {
			w = t.Mul(w, one.Add(x))
		}
		return w
	}
	var total Lin
	for k, n := range logSizes {
		p := t.Mul(pad(rRow, n), pad(rCol, n))
		total = total.Add(t.Mul(t.Mul(va[k].Add(t.Mul(mu, vb[k])), t.Mul(p, p)), weights[k]))
	}
	t.Equal("the block claims' batch", total, running)
	return rRow, rCol, va, compactB(vb, zeroB)
}

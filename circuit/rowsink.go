package circuit

import (
	"fmt"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// Walks for a sumcheck over the rows or the columns of the matrix A0 + μ·B0 (a
// batch of matrix claims, recursion.BatchMatrixClaims): the forward walk reduces the
// row vector v = (A0 + μ·B0)·w, at tensor column weights w, to what the sumcheck
// needs of it as the walk emits it (the bilinear walk's kernel and windows,
// bilinear.go, with the row window handed to a RowSink instead of two sums), and the
// backward walk computes (A0 + μ·B0)ᵀ·e at tensor row weights e without forming e.
// Both run on several workers over the program's segments (segments.go); every
// result is the same at any worker count (sums over GF(2)-vector spaces do not
// depend on their order).

// RowSink says what a forward walk (RowsTensorOn) makes of the row vector v: any of
//   - Dst: v itself (Size entries);
//   - U: U[i] = Σ_j UHigh[j]·v[i + len(U)·j] (UHigh has Size/len(U) entries: the
//     row weights' High factor as a table);
//   - Fold: Fold[j] = Σ_i FoldLow[i]·v[i + len(FoldLow)·j] (Size/len(FoldLow) entries).
//
// len(U) and len(FoldLow) are powers of two up to 64 that divide Size. A nil output
// is not computed.
//
// A sink with DstB keeps A0·w and B0·w apart, for a caller that needs both before μ
// is known (a lincheck's matrix values, then the batch that draws μ, from one walk):
// Dst and U then receive A0·w and its sums, DstB and UB (UB only beside U, with the
// same UHigh) B0·w and its sums; μ plays no part, and Fold must be nil.
type RowSink struct {
	Dst           []field.E
	U, UHigh      []field.E
	Fold, FoldLow []field.E
	DstB, UB      []field.E
}

// sinkBlock is the row block of the sink's folds: windows start at multiples of it.
const sinkBlock = 64

func (c *Circuit) checkSink(s RowSink) {
	if s.Dst != nil {
		c.checkLen("RowSink.Dst", len(s.Dst))
	}
	pow2 := func(n int) bool { return n > 0 && n&(n-1) == 0 && n <= sinkBlock && n <= c.Size() }
	if s.U != nil && (!pow2(len(s.U)) || len(s.UHigh) != c.Size()/len(s.U)) {
		panic(fmt.Sprintf("circuit: RowSink with %d U entries and %d high weights for 2^%d rows", len(s.U), len(s.UHigh), c.logSize))
	}
	if s.Fold != nil && (!pow2(len(s.FoldLow)) || len(s.Fold) != c.Size()/len(s.FoldLow)) {
		panic(fmt.Sprintf("circuit: RowSink with %d fold entries and %d low weights for 2^%d rows", len(s.Fold), len(s.FoldLow), c.logSize))
	}
	if s.DstB == nil {
		if s.UB != nil {
			panic("circuit: RowSink with UB and no DstB (B0·w apart needs DstB)")
		}
		return
	}
	c.checkLen("RowSink.DstB", len(s.DstB))
	if s.Fold != nil || (s.UB != nil && len(s.UB) != len(s.U)) {
		panic(fmt.Sprintf("circuit: RowSink apart with %d fold entries (none allowed) and %d UB entries for %d U entries", len(s.Fold), len(s.UB), len(s.U)))
	}
}

// rowWalk is a forward walk whose row window goes to a sink: each window's rows are
// combined as a + μ·b, then stored and folded.
type rowWalk struct {
	bw   *bilinearWalk
	mu   field.E
	sink RowSink // this walker's outputs (U and Fold are its own partial sums)
	// own: the walker alone writes Dst, from zero-free memory: each window is
	// stored whole (0 in its empty slots) and the rows between windows are
	// cleared, up to covered (windows of one walk only move forward, so they never
	// overlap); otherwise Dst was cleared first and only stored rows are written.
	own     bool
	covered int
}

// newRowWalk returns a walker in s at tensor column weights w (widened to a window,
// hiW = eq(w.High, ·)) writing to sink.
func newRowWalk(s *walkScratch, nregs, size int, w Tensor, hiW []field.E, mu field.E, sink RowSink) *rowWalk {
	bw := newWalk(s, nregs, size)
	bw.colLow, bw.colHi, bw.colK = w.Low, hiW, uint(lowLog(w.Low))
	nl := min(size, lowCols) &^ (len(w.Low) - 1)
	s.lowBuf = buffers.Grow(s.lowBuf, nl+1)
	bw.low = s.lowBuf[:nl]
	for b, l := 0, len(w.Low); b < nl; b += l {
		field.ScaleE(bw.low[b:b+l], w.Low, hiW[b>>bw.colK])
	}
	bw.moveCols(0)
	return &rowWalk{bw: bw, mu: mu, sink: sink}
}

// run walks code from its start.
func (rw *rowWalk) run(code []instr) {
	bw := rw.bw
	pc := 0
	for {
		var exit int
		pc, exit = bilinearKernel(bw, code, pc)
		switch exit {
		case walkDone:
			return
		case walkColMiss:
			pc = bw.colMiss(code, pc)
		case walkRowMiss:
			pc = rw.rowMiss(code, pc)
		}
	}
}

// restart readies the walker for another segment (as bilinearWalk.restart).
func (rw *rowWalk) restart() {
	rw.flush()
	bw := rw.bw
	tags := bw.rtag[:cap(bw.rtag)]
	for i := range tags {
		tags[i] = -1
	}
	bw.rbase = 0
	bw.moveCols(0)
}

// one adds row row's values a (of A0·w) and b (of B0·w) to the sink alone.
func (rw *rowWalk) one(row int, a, b field.E) {
	s := &rw.sink
	v := a
	if s.DstB == nil {
		v = a.Add(rw.mu.Mul(b))
	} else {
		s.DstB[row] = b
		if s.UB != nil {
			l := len(s.UB)
			s.UB[row&(l-1)] = s.UB[row&(l-1)].Add(s.UHigh[row/l].Mul(b))
		}
	}
	if s.Dst != nil {
		s.Dst[row] = v
	}
	if s.U != nil {
		l := len(s.U)
		s.U[row&(l-1)] = s.U[row&(l-1)].Add(s.UHigh[row/l].Mul(v))
	}
	if s.Fold != nil {
		l := len(s.FoldLow)
		s.Fold[row/l] = s.Fold[row/l].Add(s.FoldLow[row&(l-1)].Mul(v))
	}
}

// rowMiss serves the row at code[pc] (outside the window): a row behind the window
// goes to the sink alone, a row past it moves the window (the old one flushed).
func (rw *rowWalk) rowMiss(code []instr, pc int) int {
	bw := rw.bw
	in := code[pc]
	row := int(in.dst())
	if row < bw.rbase {
		x, y := 4*int(in.x()), 4*int(in.y())
		a := field.E{C0: field.K(bw.regs[x]), C1: field.K(bw.regs[x+1]), C2: field.K(bw.regs[x+2])}
		b := field.E{C0: field.K(bw.regs[y]), C1: field.K(bw.regs[y+1]), C2: field.K(bw.regs[y+2])}
		rw.one(row, a, b)
		return pc + 1
	}
	rw.flush()
	bw.rbase = row &^ (sinkBlock - 1)
	if rw.own && rw.sink.Dst != nil {
		clear(rw.sink.Dst[rw.covered:bw.rbase])
	}
	if rw.own && rw.sink.DstB != nil {
		clear(rw.sink.DstB[rw.covered:bw.rbase])
	}
	n := min(cap(bw.rowsA), bw.size-bw.rbase)
	rw.covered = bw.rbase + n
	bw.rowsA, bw.rowsB, bw.rtag = bw.rowsA[:n], bw.rowsB[:n], bw.rtag[:n]
	return pc
}

// flush hands the row window to the sink: slots without their row's tag count as 0
// and are not stored (another walker may own them).
func (rw *rowWalk) flush() {
	bw := rw.bw
	n := len(bw.rowsA)
	if n == 0 {
		return
	}
	a, b := bw.rowsA, bw.rowsB
	full := bw.rcount == n
	if !full {
		for i, tag := range bw.rtag {
			if tag != int32(bw.rbase+i) {
				a[i], b[i] = field.Zero, field.Zero
			}
		}
	}
	bw.rcount = 0
	s := &rw.sink
	if s.DstB == nil {
		field.AddScaledE(a, b, rw.mu)
	} else {
		rw.store(s.DstB, b, full)
		rw.sums(s.UB, b)
	}
	base := bw.rbase
	if s.Dst != nil {
		rw.store(s.Dst, a, full)
	}
	rw.sums(s.U, a)
	if s.Fold != nil {
		l := len(s.FoldLow)
		for k := 0; k < n; k += l {
			j := (base + k) / l
			s.Fold[j] = s.Fold[j].Add(field.InnerProduct(s.FoldLow, a[k:k+l]))
		}
	}
	bw.rowsA, bw.rowsB, bw.rtag = a[:0], b[:0], bw.rtag[:0]
}

// store writes the window's values x to dst: whole when every slot is this walk's
// (full, or the walker owns dst), else only the slots holding their row.
func (rw *rowWalk) store(dst, x []field.E, full bool) {
	bw := rw.bw
	base := bw.rbase
	if full || rw.own {
		copy(dst[base:base+len(x)], x)
		return
	}
	for i, tag := range bw.rtag {
		if tag == int32(base+i) {
			dst[base+i] = x[i]
		}
	}
}

// sums adds the window's values x to u (nil: none) weighted by the sink's UHigh.
func (rw *rowWalk) sums(u, x []field.E) {
	if u == nil {
		return
	}
	base, l := rw.bw.rbase, len(u)
	for k := 0; k < len(x); k += l {
		field.AddScaledE(u, x[k:k+l], rw.sink.UHigh[(base+k)/l])
	}
}

// RowsTensorOn runs a forward walk of the circuit at tensor column weights w and
// hands v = (A0 + μ·B0)·w to sink (see RowSink; A0·w and B0·w apart with DstB): Dst
// and DstB are overwritten, U, UB and Fold are overwritten with their sums. On two or more workers a large program's segments
// are walked at once, each walker folding into its own partial sums, which are then
// added. len(w.Low) ≤ 1024.
func (c *Circuit) RowsTensorOn(w Tensor, mu field.E, sink RowSink, workers par.Workers) {
	c.checkLen("w", 1<<w.LogLen())
	c.checkSink(sink)
	if len(w.Low) > maxTensorLow {
		panic(fmt.Sprintf("circuit: RowsTensorOn with %d low weights (at most %d)", len(w.Low), maxTensorLow))
	}
	w = w.widen(walkWindowLog)
	hiW := make([]field.E, 1<<len(w.High))
	field.EqTable(hiW, w.High)
	clear(sink.U)
	clear(sink.UB)
	clear(sink.Fold)
	n := min(workers.N(), walkSegments)
	var segs []segment
	if n > 1 {
		segs = c.segments()
	}
	if segs == nil {
		s := c.walkers.Get()
		defer c.walkers.Put(s)
		rw := newRowWalk(s, c.nregs, c.Size(), w, hiW, mu, sink)
		rw.own = true
		rw.run(c.code)
		rw.flush()
		if sink.Dst != nil {
			clear(sink.Dst[rw.covered:])
		}
		if sink.DstB != nil {
			clear(sink.DstB[rw.covered:])
		}
		return
	}
	for _, d := range [...][]field.E{sink.Dst, sink.DstB} {
		if d != nil {
			par.Clear(workers, d, par.MinChunk(1<<16))
		}
	}
	n = min(n, len(segs))
	// Worker 0 folds into the caller's sums, the others into their own.
	sinks := make([]RowSink, n)
	for j := range sinks {
		sinks[j] = sink
		if j > 0 {
			if sink.U != nil {
				sinks[j].U = make([]field.E, len(sink.U))
			}
			if sink.UB != nil {
				sinks[j].UB = make([]field.E, len(sink.UB))
			}
			if sink.Fold != nil {
				sinks[j].Fold = make([]field.E, len(sink.Fold))
			}
		}
	}
	order := c.segmentsByCost()
	walks := make([]*rowWalk, n)
	scratch := make([]*walkScratch, n)
	defer func() {
		for _, s := range scratch {
			if s != nil {
				c.walkers.Put(s)
			}
		}
	}()
	workers.Limit(n).For(len(segs), func(wk, lo, _ int) {
		rw := walks[wk]
		if rw == nil {
			scratch[wk] = c.walkers.Get()
			rw = newRowWalk(scratch[wk], c.nregs, c.Size(), w, hiW, mu, sinks[wk])
			walks[wk] = rw
		} else {
			rw.restart()
		}
		seg := segs[order[lo]]
		rw.run(seg.slice)
		rw.run(c.code[seg.lo:seg.hi])
	}, par.PerWorker(len(segs)))
	for j, rw := range walks {
		if rw == nil {
			continue
		}
		rw.flush()
		if j == 0 {
			continue
		}
		if sink.U != nil {
			field.AddSlice(sink.U, sink.U, sinks[j].U)
		}
		if sink.UB != nil {
			field.AddSlice(sink.UB, sink.UB, sinks[j].UB)
		}
		if sink.Fold != nil {
			field.AddSlice(sink.Fold, sink.Fold, sinks[j].Fold)
		}
	}
}

// TransposeTensorOn sets dst = (A0 + μ·B0)ᵀ·e for tensor row weights e (len(e.Low)
// ≤ 1024) by a backward walk of the circuit that computes the row weights a window
// of rows at a time (e is never formed). On two or more workers a large program's
// segments are walked at once, as in TransposeOn (one column vector per extra
// worker, off the circuit's shelf); as there, a circuit's first transposes
// (PlanSegmentsAfter) walk serially.
func (c *Circuit) TransposeTensorOn(dst []field.E, e Tensor, mu field.E, workers par.Workers) {
	c.transposeTensor(dst, nil, e, mu, field.Zero, workers, nil)
}

// TransposeTensorWith is TransposeTensorOn with extra worker k's column vector (k ≥
// 1; Size entries, contents unspecified) from spare(k), called before the walk for
// each extra worker the walk uses; a nil spare takes them off the circuit's shelf.
func (c *Circuit) TransposeTensorWith(dst []field.E, spare func(k int) []field.E, e Tensor, mu field.E, workers par.Workers) {
	c.transposeTensor(dst, spare, e, mu, field.Zero, workers, nil)
}

// TransposeTensorBeside sets dst = (A0 + μ·B0)ᵀ·e + ν·e (ν·e is a lincheck's C = I
// term; a segmented walk adds it in the pass that sums the workers' vectors) as
// TransposeTensorOn does, and runs the loops beside (work independent of the walk,
// such as a fold of the witness) on the same workers, as par's ForAll after the
// walk's own tasks: a worker left without a segment, while another walks the last
// ones, takes the loops' chunks, and a serial walk (one not yet segmented, or a
// short program) keeps one worker while the others run them. On one worker the
// loops run after the walk. The loops are done when it returns.
func (c *Circuit) TransposeTensorBeside(dst []field.E, e Tensor, mu, nu field.E, workers par.Workers, beside ...par.Loop) {
	c.transposeTensor(dst, nil, e, mu, nu, workers, beside)
}

func (c *Circuit) transposeTensor(dst []field.E, spare func(k int) []field.E, e Tensor, mu, nu field.E, workers par.Workers, beside []par.Loop) {
	c.checkLen("dst", len(dst))
	c.checkLen("e", 1<<e.LogLen())
	if len(e.Low) > walkWindow {
		panic(fmt.Sprintf("circuit: TransposeTensorOn with %d low weights (at most %d)", len(e.Low), walkWindow))
	}
	// The high factor's eq table and the walkers come off the circuit's shelves: in
	// a prover whose heap the runtime keeps returning to the system, fresh ones
	// would be faulted in on every call (some 2.3 ms for the 768 KiB table of a
	// 2^21-column circuit, measured in a 200-signature proof).
	eqs := c.eqs.Get()
	defer c.eqs.Put(eqs)
	eqs[0] = buffers.Grow(eqs[0], 1<<len(e.High))
	hi := eqs[0]
	field.EqTable(hi, e.High)
	// plus adds ν·e over [lo, end) of dst (nil when ν = 0), from the scaled low
	// weights ν·e.Low.
	var plus func(dst []field.E, lo, end int)
	if !nu.IsZero() {
		nuLow := eqs[1][:0]
		for _, x := range e.Low {
			nuLow = append(nuLow, nu.Mul(x))
		}
		eqs[1] = nuLow
		plus = func(dst []field.E, lo, end int) { addTensor(dst, nuLow, hi, lo, end) }
	}
	n := min(workers.N(), walkSegments)
	segs := c.segmentsFor(n, &c.transposes) // counted with TransposeOn's
	if segs == nil {
		walk := func(int, int, int) {
			clear(dst)
			rw := c.getRevWalk(e, hi, mu)
			defer c.putRevWalk(rw)
			rw.run(dst, c.code)
		}
		if len(beside) == 0 {
			walk(0, 0, 1)
		} else {
			workers.ForAll(append([]par.Loop{{N: 1, Fn: walk}}, beside...)...)
		}
		if plus != nil {
			workers.Range(len(dst), func(lo, end int) { plus(dst, lo, end) }, par.MinChunk(1<<14))
		}
		return
	}
	n = min(n, len(segs))
	acc := make([][]field.E, n)
	acc[0] = dst
	for j := 1; j < n; j++ {
		if spare != nil {
			acc[j] = spare(j)
			c.checkLen("spare", len(acc[j]))
			continue
		}
		acc[j] = c.getVec()
		defer c.putVec(acc[j])
	}
	// Each worker that takes a segment gets a vector of its own (at most n do: one
	// segment a task), numbered in the order the workers first take one.
	slot := make([]int, workers.N())
	for w := range slot {
		slot[w] = -1
	}
	var slots atomic.Int32
	walks := make([]*revWalk, n)
	defer func() {
		for _, rw := range walks {
			if rw != nil {
				c.putRevWalk(rw)
			}
		}
	}()
	order := c.segmentsByCost()
	sa := newSegAccs(acc, c.logSize)
	sa.plus = plus
	walk := par.Loop{N: len(segs), Opts: []par.Option{par.PerWorker(len(segs))}, Fn: func(w, lo, _ int) {
		if slot[w] < 0 {
			slot[w] = int(slots.Add(1)) - 1
		}
		k := slot[w]
		if walks[k] == nil {
			walks[k] = c.getRevWalk(e, hi, mu)
		}
		s := &segs[order[lo]]
		sa.take(k, s)
		rw := walks[k]
		rw.reset()
		rw.run(acc[k], c.code[s.lo:s.hi])
		rw.run(acc[k], s.slice)
	}}
	if len(beside) == 0 {
		workers.Limit(n).ForAll(walk)
	} else {
		workers.ForAll(append([]par.Loop{walk}, beside...)...)
	}
	sa.sum(workers)
}

// addTensor adds ν·e[j] into dst[j] for j in [lo, end), for the tensor e = low ⊗
// eq(High, ·) given by nuLow = ν·low (a power of two long) and hi = eq(High, ·).
func addTensor(dst, nuLow, hi []field.E, lo, end int) {
	k := uint(lowLog(nuLow))
	m := 1<<k - 1
	for lo < end {
		next := min(end, (lo|m)+1)
		field.AddScaledE(dst[lo:next], nuLow[lo&m:(lo&m)+next-lo], hi[lo>>k])
		lo = next
	}
}

// revWalk is a backward walk's state: the adjoints (register i at words [4i, 4i+3)
// of adj, the fourth word padding) and a window of row weights (ea for the A
// operand, eb = μ·ea for the B operand) over rows [wbase, wbase+len(ea)).
type revWalk struct {
	low    []field.E
	k      uint
	hi     []field.E
	mu     field.E
	size   int
	adj    []uint64
	ea, eb []field.E
	buf    [2][]field.E // the windows' storage, one entry longer (the kernel reads 8 bytes past)
	wbase  int
	last   int // the last row met (−1: none)
}

// getRevWalk returns a backward walker off the circuit's shelf (its adjoints, 560
// KiB for the xmss-aggregate circuit, and windows kept), readied for the tensor e,
// whose high factor's eq table is hi, and μ; putRevWalk puts it back.
func (c *Circuit) getRevWalk(e Tensor, hi []field.E, mu field.E) *revWalk {
	w := min(walkWindow, c.Size())
	rw := c.revWalks.Get()
	rw.low, rw.k, rw.hi, rw.mu, rw.size = e.Low, uint(lowLog(e.Low)), hi, mu, c.Size()
	rw.adj = buffers.Grow(rw.adj, 4*c.nregs)
	rw.buf[0], rw.buf[1] = buffers.Grow(rw.buf[0], w+1), buffers.Grow(rw.buf[1], w+1)
	rw.ea, rw.eb, rw.wbase = nil, nil, c.Size()
	rw.reset()
	return rw
}

func (c *Circuit) putRevWalk(rw *revWalk) {
	rw.low, rw.hi, rw.ea, rw.eb = nil, nil, nil, nil
	c.revWalks.Put(rw)
}

// reset readies the walker for a segment: zero adjoints, rows starting anywhere.
func (rw *revWalk) reset() {
	clear(rw.adj)
	rw.last = -1
}

// move places the window so that it ends at the block of row.
func (rw *revWalk) move(row int) {
	l := len(rw.low)
	w := len(rw.buf[0]) - 1
	rw.wbase = max(0, (row|(l-1))+1-w)
	n := min(w, rw.size-rw.wbase)
	rw.ea, rw.eb = rw.buf[0][:n], rw.buf[1][:n]
	for b := 0; b < n; b += l {
		field.ScaleE(rw.ea[b:b+l], rw.low, rw.hi[(rw.wbase+b)>>rw.k])
	}
	field.ScaleE(rw.eb, rw.ea, rw.mu)
}

// xorAdj adds v to adjoint register r.
func (rw *revWalk) xorAdj(r uint32, v field.E) {
	a := rw.adj[4*r:][:3]
	a[0] ^= uint64(v.C0)
	a[1] ^= uint64(v.C1)
	a[2] ^= uint64(v.C2)
}

// row runs the row step in, outside the window or not. Rows run nearly downward,
// with jumps (rows a forward walk meets behind its window): a row outside the
// window and near the last row moves the window to end at its block; a jump is
// weighed alone.
func (rw *revWalk) row(in instr) {
	row := int(in.dst())
	j := row - rw.wbase
	if uint(j) >= uint(len(rw.ea)) {
		win := len(rw.buf[0]) - 1
		if rw.last >= 0 && (row <= rw.last-win || row >= rw.last+win) {
			rw.last = row
			wa := rw.low[row&(1<<rw.k-1)].Mul(rw.hi[row>>rw.k])
			rw.xorAdj(in.x(), wa)
			rw.xorAdj(in.y(), rw.mu.Mul(wa))
			return
		}
		rw.move(row)
		j = row - rw.wbase
	}
	rw.last = row
	rw.xorAdj(in.x(), rw.ea[j])
	rw.xorAdj(in.y(), rw.eb[j])
}

// run walks code backward from the adjoints held, adding each column load's adjoint
// to dst.
func (rw *revWalk) run(dst []field.E, code []instr) {
	if len(code) == 0 || rw.runArch(dst, code) {
		return
	}
	rw.runGo(dst, code)
}

// runGo is the portable backward walk.
func (rw *revWalk) runGo(dst []field.E, code []instr) {
	adj := rw.adj
	for i := len(code) - 1; i >= 0; i-- {
		in := code[i]
		switch in.op() {
		case opCol:
			a := adj[4*in.dst():][:3]
			d := &dst[in.col()]
			d.C0 ^= field.K(a[0])
			d.C1 ^= field.K(a[1])
			d.C2 ^= field.K(a[2])
			a[0], a[1], a[2] = 0, 0, 0
		case opXor:
			a := adj[4*in.dst():][:3]
			t0, t1, t2 := a[0], a[1], a[2]
			a[0], a[1], a[2] = 0, 0, 0
			x := adj[4*in.x():][:3]
			x[0], x[1], x[2] = x[0]^t0, x[1]^t1, x[2]^t2
			y := adj[4*in.y():][:3]
			y[0], y[1], y[2] = y[0]^t0, y[1]^t1, y[2]^t2
		default:
			rw.row(in)
		}
	}
}

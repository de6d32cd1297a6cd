package circuit

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

func (c *Circuit) checkLen(what string, n int) {
	if n != c.Size() {
		panic(fmt.Sprintf("circuit: %s has length %d, want %d", what, n, c.Size()))
	}
}

func addE(a, b field.E) field.E { return field.E{C0: a.C0 ^ b.C0, C1: a.C1 ^ b.C1, C2: a.C2 ^ b.C2} }

// RowValues sets dstA = A0·w and dstB = B0·w for a column vector w over E, by one
// forward walk of the circuit (no matrix is built). All three have length Size;
// empty rows get 0.
func (c *Circuit) RowValues(dstA, dstB, w []field.E) {
	c.checkLen("dstA", len(dstA))
	c.checkLen("dstB", len(dstB))
	c.checkLen("w", len(w))
	clear(dstA)
	clear(dstB)
	r := make([]field.E, c.nregs)
	for _, in := range c.code {
		switch in.op() {
		case opCol:
			r[in.dst()] = w[in.col()]
		case opXor:
			r[in.dst()] = addE(r[in.x()], r[in.y()])
		default:
			dstA[in.dst()] = r[in.x()]
			dstB[in.dst()] = r[in.y()]
		}
	}
}

// BilinearPair returns (eᵀA0·w, eᵀB0·w) for row weights e and column weights w.
func (c *Circuit) BilinearPair(e, w []field.E) (va, vb field.E) {
	c.checkLen("e", len(e))
	c.checkLen("w", len(w))
	return c.bilinear(func(s *walkScratch) *bilinearWalk { return newFullWalk(s, c.nregs, e, w) })
}

// BilinearTensor returns (eᵀA0·w, eᵀB0·w) for tensor weights, never formed in
// full: the column weights are computed a window of blocks at a time as the walk
// reaches them, the row weights applied a window of rows at a time (bilinear.go).
func (c *Circuit) BilinearTensor(e, w Tensor) (va, vb field.E) {
	c.checkLen("e", 1<<e.LogLen())
	c.checkLen("w", 1<<w.LogLen())
	if len(e.Low) > maxTensorLow || len(w.Low) > maxTensorLow {
		// Windows hold whole blocks: such weights are formed in full.
		fe, fw := make([]field.E, c.Size()), make([]field.E, c.Size())
		e.Fill(fe)
		w.Fill(fw)
		return c.BilinearPair(fe, fw)
	}
	// Whole windows of columns and rows share one High factor: each is scaled in
	// one run.
	e, w = e.widen(walkWindowLog), w.widen(walkWindowLog)
	eqs := c.eqs.Get()
	defer c.eqs.Put(eqs)
	hiE, hiW := buffers.Grow(eqs[0], 1<<len(e.High)), buffers.Grow(eqs[1], 1<<len(w.High))
	eqs[0], eqs[1] = hiE, hiW
	field.EqTable(hiE, e.High)
	field.EqTable(hiW, w.High)
	return c.bilinear(func(s *walkScratch) *bilinearWalk { return newTensorWalk(s, c.nregs, c.Size(), e, w, hiE, hiW) })
}

// bilinear walks the program, on several cores once its segments are planned,
// each walker made by walker in scratch off the circuit's shelf.
func (c *Circuit) bilinear(walker func(*walkScratch) *bilinearWalk) (va, vb field.E) {
	workers := min(runtime.GOMAXPROCS(0), walkSegments)
	// Segments already planned (by transposes) serve at once.
	segs := c.segmentsFor(workers, &c.walks)
	if segs == nil {
		s := c.walkers.Get()
		defer c.walkers.Put(s)
		bw := walker(s)
		bw.run(c.code)
		return bw.sums()
	}
	// Each segment is a task, taken by the next free walker, longest first (as
	// in TransposeOn): its slice sets up the registers live at its cut, then its
	// steps run; a walker's windows restart for each task.
	order := c.segmentsByCost()
	workers = min(workers, len(segs))
	parts := make([][2]field.E, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for j := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := c.walkers.Get()
			defer c.walkers.Put(s)
			bw := walker(s)
			for k := 0; ; k++ {
				t := int(next.Add(1)) - 1
				if t >= len(segs) {
					break
				}
				if k > 0 {
					bw.restart()
				}
				seg := segs[order[t]]
				bw.run(seg.slice)
				bw.run(c.code[seg.lo:seg.hi])
			}
			a, b := bw.sums()
			parts[j] = [2]field.E{a, b}
		}()
	}
	wg.Wait()
	for _, p := range parts {
		va, vb = addE(va, p[0]), addE(vb, p[1])
	}
	return va, vb
}

// serialWalksFirst is how many bilinear walks of a circuit (and, counted apart, how
// many transposes) on several cores run serially before its segments are planned,
// unless PlanSegmentsAfter says otherwise.
const serialWalksFirst = 2

// serialWalks is the count in force (PlanSegmentsAfter).
var serialWalks atomic.Int64

func init() { serialWalks.Store(serialWalksFirst) }

// PlanSegmentsAfter sets how many walks (and, counted apart, transposes) of each
// circuit on several cores run serially before the circuit's segments are planned,
// and returns the count it replaces (2 at start). Planning costs about three serial
// walks of a large program (0.26–0.64 s at 2^21 columns), which a process proving or
// verifying only a few times does not earn back, hence the default; a long-running
// process (a server, a fleet worker, a benchmark of the steady state) sets 0, so that
// its first walk on several cores plans and every later one is cut. The segments,
// and so the results, are the same either way.
func PlanSegmentsAfter(k int) int { return int(serialWalks.Swap(int64(max(0, k)))) }

// segmentsFor returns the segments of a walk on n cores, or nil when it is to run
// serially: on one core, for a short program, and, until the segments are planned,
// for the first serialWalks walks that count counts (the circuit's forward walks, or
// apart its transposes, as a process that walks a circuit once or twice, a one-shot
// prove or verify, would not earn the planning back).
func (c *Circuit) segmentsFor(n int, count *atomic.Int64) []segment {
	if n > 1 && (c.segsReady.Load() || count.Add(1) > serialWalks.Load()) {
		return c.segments()
	}
	return nil
}

// walkSegments is the number of segments a large program is cut into for walks on
// several cores.
const walkSegments = 4

// segmentsByCost returns the indices of the planned segments, longest walk
// (steps and slice) first.
func (c *Circuit) segmentsByCost() []int {
	segs := c.segments()
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	cost := func(i int) int { return segs[i].hi - segs[i].lo + len(segs[i].slice) }
	slices.SortStableFunc(order, func(a, b int) int { return cost(b) - cost(a) })
	return order
}

// segments returns the program's walk segments (nil for a short program), planned
// on the first walk that can use them (about 0.2 s for a program of 14M steps), so
// that a process that never walks on several cores never pays for them.
func (c *Circuit) segments() []segment {
	c.segOnce.Do(func() {
		c.segs = planSegments(c.code, c.nregs, walkSegments)
		setColBlocks(c.code, c.segs, c.logSize)
		c.segsReady.Store(true)
	})
	return c.segs
}

// Bilinear returns eᵀ(A0 + α·B0)w, the lincheck verifier's matrix term.
func (c *Circuit) Bilinear(alpha field.E, e, w []field.E) field.E {
	va, vb := c.BilinearPair(e, w)
	return addE(va, alpha.Mul(vb))
}

// Transpose sets dst = (A0 + α·B0)ᵀ·e, the column marginal the lincheck prover
// folds against the witness, by one backward (reverse-mode) walk of the circuit.
func (c *Circuit) Transpose(dst, e []field.E, alpha field.E) {
	c.transpose(dst, e, field.One, alpha)
}

// TransposePair sets dstA = A0ᵀ·e and dstB = B0ᵀ·e.
func (c *Circuit) TransposePair(dstA, dstB, e []field.E) {
	c.transpose(dstA, e, field.One, field.Zero)
	c.transpose(dstB, e, field.Zero, field.One)
}

// transpose sets dst = (ca·A0 + cb·B0)ᵀ·e.
func (c *Circuit) transpose(dst, e []field.E, ca, cb field.E) {
	c.transposeOn(dst, e, ca, cb, par.Serial())
}

// TransposeOn is Transpose on the workers. A large program's segments (see
// segments.go) are walked backward at once, each by the next free worker into
// that worker's column vector: the adjoints left on the registers live at the
// segment's cut are exactly what the code before it owes them, and its slice (the
// steps computing those registers from columns) carries them back to the columns,
// so no worker waits for another. The vectors are then added; the result is the
// serial walk's exactly, at any worker count. A short program, one worker, or one
// of a circuit's first transposes (PlanSegmentsAfter) walks serially.
func (c *Circuit) TransposeOn(dst, e []field.E, alpha field.E, workers par.Workers) {
	c.transposeOn(dst, e, field.One, alpha, workers)
}

func (c *Circuit) transposeOn(dst, e []field.E, ca, cb field.E, workers par.Workers) {
	c.checkLen("dst", len(dst))
	c.checkLen("e", len(e))
	// held are the vectors taken off the circuit's shelf, put back on return.
	var held [][]field.E
	defer func() {
		for _, v := range held {
			c.putVec(v)
		}
	}()
	// A general coefficient scales e once, vectorised, instead of once per row; a
	// zero one is no weight (nil).
	weights := func(co field.E) []field.E {
		switch {
		case co.IsZero():
			return nil
		case co == field.One:
			return e
		}
		v := c.getVec()
		held = append(held, v)
		workers.Range(len(v), func(lo, hi int) { field.ScaleE(v[lo:hi], e[lo:hi], co) }, par.MinChunk(1<<14))
		return v
	}
	ea, eb := weights(ca), weights(cb)
	n := min(workers.N(), walkSegments)
	segs := c.segmentsFor(n, &c.transposes)
	if segs == nil {
		clear(dst)
		reverseWalk(dst, make([]uint64, 4*c.nregs), c.code, ea, eb)
		return
	}
	n = min(n, len(segs))
	acc := make([][]field.E, n)
	acc[0] = dst
	for j := 1; j < n; j++ {
		acc[j] = c.getVec()
		held = append(held, acc[j])
	}
	// Each segment is a task, handed to the workers as they free up, longest
	// first (a worker slowed by the machine or by work beside the walk takes
	// fewer, and the last task handed out is a short one): walked backward from
	// fresh adjoints, then its slice, into the worker's vector.
	order := c.segmentsByCost()
	sa := newSegAccs(acc, c.logSize)
	workers.Limit(n).For(len(segs), func(w, lo, _ int) {
		s := &segs[order[lo]]
		sa.take(w, s)
		adj := make([]uint64, 4*c.nregs)
		reverseWalk(acc[w], adj, c.code[s.lo:s.hi], ea, eb)
		reverseWalk(acc[w], adj, s.slice, nil, nil)
	}, par.PerWorker(len(segs)))
	sa.sum(workers)
}

// segAccs are the workers' column vectors of a segmented backward walk (acc[0] is
// dst). A worker's vector is cleared, and added into dst, only in the column
// blocks its segments load: a segment of a large program loads the blocks of its
// own products and of the values it reads from earlier ones, not the later blocks
// (the xmss-aggregate circuit's four segments load 18, 33, 47 and 40 of the 64
// blocks), so that a worker's vector (48 MiB at 2^21 columns) is cleared and
// added in part. Measured, the gain is within the host's noise
// (docs/recursion.md §6.23).
type segAccs struct {
	acc     [][]field.E
	touched []uint64 // worker w's vector holds its sums in the blocks of touched[w] (cleared there first)
	shift   uint
	plus    func(dst []field.E, lo, end int) // when not nil, sum adds it over each block of dst
}

func newSegAccs(acc [][]field.E, logSize int) *segAccs {
	return &segAccs{acc: acc, touched: make([]uint64, len(acc)), shift: colBlockShift(logSize)}
}

// take readies vector w (a worker's) for segment s: the blocks s loads that w has not
// cleared yet are cleared. Only the worker that owns vector w calls it with w.
func (a *segAccs) take(w int, s *segment) {
	v := a.acc[w]
	for m := s.cols &^ a.touched[w]; m != 0; m &= m - 1 {
		b := bits.TrailingZeros64(m)
		clear(v[min(len(v), b<<a.shift):min(len(v), (b+1)<<a.shift)])
	}
	a.touched[w] |= s.cols
}

// sum makes acc[0] the sum of the workers' vectors (plus plus): a block no
// segment of worker 0 loaded is cleared first, and each other worker's vector is
// added where it holds sums.
func (a *segAccs) sum(workers par.Workers) {
	dst := a.acc[0]
	workers.Range(len(dst), func(lo, hi int) {
		for lo < hi {
			b := lo >> a.shift
			end := min(hi, (b+1)<<a.shift)
			if a.touched[0]>>b&1 == 0 {
				clear(dst[lo:end])
			}
			for j := 1; j < len(a.acc); j++ {
				if a.touched[j]>>b&1 == 1 {
					field.AddSlice(dst[lo:end], dst[lo:end], a.acc[j][lo:end])
				}
			}
			if a.plus != nil {
				a.plus(dst, lo, end) // while the block is in cache
			}
			lo = end
		}
	}, par.MinChunk(1<<12))
}

// reverseGo runs code backward from the adjoints in adj (register i in words
// [4i, 4i+3), the fourth word padding), adding each column load's adjoint to dst
// and each product row's weights ea[row] (to its A operand) and eb[row] (to its B
// operand; a nil vector is no weight) to its operands'. It is the portable twin of
// the backward walk kernel (reverse_amd64.s).
func reverseGo(dst []field.E, adj []uint64, code []instr, ea, eb []field.E) {
	oneA, oneB := ea != nil, eb != nil
	for i := len(code) - 1; i >= 0; i-- {
		in := code[i]
		switch in.op() {
		case opCol:
			a := adj[4*in.dst():][:3]
			v := &dst[in.col()]
			v.C0, v.C1, v.C2 = v.C0^field.K(a[0]), v.C1^field.K(a[1]), v.C2^field.K(a[2])
			a[0], a[1], a[2] = 0, 0, 0
		case opXor:
			d := adj[4*in.dst():][:3]
			t0, t1, t2 := d[0], d[1], d[2]
			d[0], d[1], d[2] = 0, 0, 0
			x, y := adj[4*in.x():][:3], adj[4*in.y():][:3]
			x[0], x[1], x[2] = x[0]^t0, x[1]^t1, x[2]^t2
			y[0], y[1], y[2] = y[0]^t0, y[1]^t1, y[2]^t2
		default:
			if oneA {
				x, w := adj[4*in.x():][:3], ea[in.dst()]
				x[0], x[1], x[2] = x[0]^uint64(w.C0), x[1]^uint64(w.C1), x[2]^uint64(w.C2)
			}
			if oneB {
				y, w := adj[4*in.y():][:3], eb[in.dst()]
				y[0], y[1], y[2] = y[0]^uint64(w.C0), y[1]^uint64(w.C1), y[2]^uint64(w.C2)
			}
		}
	}
}

// packBlock is the number of 64×64 bit matrices PackLanes transposes at a time.
const packBlock = 64

// getVec returns a column vector (Size values, contents unspecified) off the
// circuit's shelf, putVec puts one back: the transpose's scaled weights and
// per-worker sums are a block's size each (48 MiB at 2^21 columns), too large to
// fault in afresh on every proof.
func (c *Circuit) getVec() []field.E {
	v := c.vecs.Get()
	*v = buffers.Grow(*v, c.Size())
	return *v
}

func (c *Circuit) putVec(v []field.E) { c.vecs.Put(&v) }

// RowValuesWords sets dstA = A0·w and dstB = B0·w over any GF(2)-vector word type:
// K (a column vector over K), or uint64 holding 64 instances bit-sliced (bit j of
// w[col] is column col of instance j). The walk is the same as RowValues.
func RowValuesWords[T ~uint64](c *Circuit, dstA, dstB, w []T) {
	c.checkLen("dstA", len(dstA))
	c.checkLen("dstB", len(dstB))
	c.checkLen("w", len(w))
	clear(dstA)
	clear(dstB)
	r := make([]T, c.nregs)
	for _, in := range c.code {
		switch in.op() {
		case opCol:
			r[in.dst()] = w[in.col()]
		case opXor:
			r[in.dst()] = r[in.x()] ^ r[in.y()]
		default:
			dstA[in.dst()] = r[in.x()]
			dstB[in.dst()] = r[in.y()]
		}
	}
}

// RowValuesK is RowValuesWords over K.
func (c *Circuit) RowValuesK(dstA, dstB, w []field.K) { RowValuesWords(c, dstA, dstB, w) }

// Solve completes a bit-sliced witness for 64 instances at once: bit j of w[col]
// is column col of instance j. On entry the input columns hold the inputs and the
// constant column is all ones (^uint64(0)); every row column is overwritten with
// a·b in circuit order and every other column is set to 0. Optional dstA, dstB
// (length Size or nil) receive A0·w and B0·w.
func (c *Circuit) Solve(w, dstA, dstB []uint64) {
	var as, bs [][]uint64
	if dstA != nil {
		as = [][]uint64{dstA}
	}
	if dstB != nil {
		bs = [][]uint64{dstB}
	}
	c.SolveMany([][]uint64{w}, as, bs)
}

// SolveMany is Solve for several bit-sliced vectors (64·len(ws) instances) in one
// walk of the circuit's code, which spreads the walk's per-instruction cost over
// them. dstA and dstB are nil or hold one vector per w.
func (c *Circuit) SolveMany(ws, dstA, dstB [][]uint64) { c.SolveManyStream(ws, dstA, dstB, nil) }

// SolveManyStream is SolveMany that, when done is not nil, calls done(k0, k1) on
// the walking goroutine as soon as the word blocks [k0, k1) (columns [64·k0,
// 64·k1)) hold their final values in every w, dstA and dstB: every block is
// reported exactly once, mostly in increasing order. A caller that packs the
// vectors' blocks as they are reported reads them while the walk's writes are
// still in the cache, instead of in a second pass over vectors of Size words.
// done may hand the blocks to another goroutine: the walk writes to them no more.
func (c *Circuit) SolveManyStream(ws, dstA, dstB [][]uint64, done func(k0, k1 int)) {
	g := len(ws)
	for _, w := range ws {
		c.checkLen("w", len(w))
	}
	for _, d := range [][][]uint64{dstA, dstB} {
		if d != nil && len(d) != g {
			panic(fmt.Sprintf("circuit: SolveMany: %d row vectors for %d witnesses", len(d), g))
		}
		for _, v := range d {
			c.checkLen("dst", len(v))
			for _, col := range c.nonRow { // every row is written by the walk
				v[col] = 0
			}
		}
	}
	// Columns without a row are 0 (the constant column excepted); every row is
	// written in program order before any step reads it, the inputs' rows (x·1)
	// keeping the caller's value, so only those columns are cleared.
	for _, w := range ws {
		for _, col := range c.nonRow {
			if int(col) != c.constCol {
				w[col] = 0
			}
		}
	}
	// Registers are interleaved: register i of vector k at r[i·g + k]. The file
	// (NumRegs·g words, half a MiB at 2^21 columns) is kept between walks, not
	// faulted in afresh by each; it starts zeroed as a fresh one would.
	held := solveRegs.Get()
	defer solveRegs.Put(held)
	*held = buffers.Grow(*held, c.nregs*g)
	r := *held
	clear(r)
	// The assembly walk is invisible to the race detector: it reads and writes
	// every w and writes every dstA, dstB.
	for k, w := range ws {
		raceReadWrite(unsafe.Pointer(&w[0]), 8*len(w))
		for _, d := range [][][]uint64{dstA, dstB} {
			if d != nil {
				raceWrite(unsafe.Pointer(&d[k][0]), 8*len(d[k]))
			}
		}
	}
	if done == nil {
		c.solveSteps(c.code, r, ws, dstA, dstB)
		return
	}
	// The walk runs a chunk of steps at a time (the register file carries
	// over); after each, the blocks whose last row it wrote are final.
	ready := c.readyBlocks()
	report := func(e int) {
		for _, b := range ready.runs[e] {
			done(int(b[0]), int(b[1]))
		}
	}
	report(0)
	for e, lo := 1, 0; lo < len(c.code); e, lo = e+1, lo+ready.chunk {
		c.solveSteps(c.code[lo:min(lo+ready.chunk, len(c.code))], r, ws, dstA, dstB)
		report(e)
	}
}

// streamChunk is how many steps SolveManyStream walks between reports (read when a
// circuit's reports are planned): about 5,000
// rows of the XMSS circuit, whose three vectors of four groups (470 KiB) stay in
// the cache until packed.
var streamChunk = 1 << 15

// readyPlan is what SolveManyStream reports after each chunk of chunk steps: runs[0]
// before the walk, runs[e] after chunk e−1.
type readyPlan struct {
	chunk int
	runs  [][][2]int32
}

// readyBlocks returns, for SolveManyStream's chunks, the runs of word blocks each
// completes: entry 0 the blocks no step writes (final once the walk's columns are
// cleared), entry e ≥ 1 those whose last row is written by chunk e−1. Blocks are
// reported packBlock at a time (the last group may be shorter), each group when
// its last row is written: PackLanesRange then transposes whole groups and writes
// whole cache lines of every instance's run. It is planned by one pass over the
// program on first use and kept.
func (c *Circuit) readyBlocks() *readyPlan {
	c.readyOnce.Do(func() {
		chunk := streamChunk
		words := c.Size() / 64
		// 1 + the chunk that last writes a row of the group of blocks.
		last := make([]int, (words+packBlock-1)/packBlock)
		for i, in := range c.code {
			if in.op() == opRow {
				last[in.dst()/64/packBlock] = i/chunk + 1
			}
		}
		ready := make([][][2]int32, (len(c.code)+chunk-1)/chunk+1)
		for q, e := range last {
			k0, k1 := int32(q*packBlock), int32(min(words, (q+1)*packBlock))
			runs := ready[e]
			if n := len(runs); n > 0 && runs[n-1][1] == k0 {
				runs[n-1][1] = k1
			} else {
				ready[e] = append(runs, [2]int32{k0, k1})
			}
		}
		c.ready = readyPlan{chunk, ready}
	})
	return &c.ready
}

// solveSteps runs the steps code of SolveMany's walk over the register file r.
func (c *Circuit) solveSteps(code []instr, r []uint64, ws, dstA, dstB [][]uint64) {
	if solveWalkArch(c, code, r, ws, dstA, dstB) {
		return
	}
	g := len(ws)
	for _, in := range code {
		d, x, y := int(in.dst())*g, int(in.x())*g, int(in.y())*g
		switch in.op() {
		case opCol:
			for k, w := range ws {
				r[d+k] = w[in.col()]
			}
		case opXor:
			rd, rx, ry := r[d:d+g], r[x:x+g], r[y:y+g]
			for k := range rd {
				rd[k] = rx[k] ^ ry[k]
			}
		default:
			rx, ry := r[x:x+g], r[y:y+g]
			for k, w := range ws {
				w[in.dst()] = rx[k] & ry[k]
			}
			if dstA != nil {
				for k, a := range dstA {
					a[in.dst()] = rx[k]
				}
			}
			if dstB != nil {
				for k, b := range dstB {
					b[in.dst()] = ry[k]
				}
			}
		}
	}
}

// solveRegs keeps SolveMany's register files, one per walk in flight.
var solveRegs buffers.Shelf[[]uint64]

// Satisfied checks (A0·w)∘(B0·w) = w for 64 bit-sliced instances and returns the
// first violated row, or -1.
func (c *Circuit) Satisfied(w []uint64) int {
	a := make([]uint64, c.Size())
	b := make([]uint64, c.Size())
	RowValuesWords(c, a, b, w)
	for i := range w {
		if a[i]&b[i] != w[i] {
			return i
		}
	}
	return -1
}

// Transpose64 transposes the 64×64 bit matrix m in place: afterwards bit j of
// m[i] is what bit i of m[j] was. It converts between 64 bit-sliced instances
// (word = column, bit = instance) and the row packing (word = 64 columns of one
// instance, bit = column within the word).
func Transpose64(m *[64]uint64) {
	transposeLevel(m, 32, 0x00000000FFFFFFFF)
	transposeLevel(m, 16, 0x0000FFFF0000FFFF)
	transposeLevel(m, 8, 0x00FF00FF00FF00FF)
	transposeLevel(m, 4, 0x0F0F0F0F0F0F0F0F)
	transposeLevel(m, 2, 0x3333333333333333)
	transposeLevel(m, 1, 0x5555555555555555)
}

// transposeLevel swaps the j×j off-diagonal blocks of every 2j×2j block.
func transposeLevel(m *[64]uint64, j uint, mask uint64) {
	for base := uint(0); base < 64; base += 2 * j {
		for k := base; k < base+j; k++ {
			a, b := m[k&63], m[(k+j)&63]
			t := (a>>j ^ b) & mask
			m[k&63], m[(k+j)&63] = a^t<<j, b^t
		}
	}
}

// PackRows converts 64 bit-sliced instances (src[col] bit j = column col of
// instance j, len(src) = Size) into the row packing of those 64 slots: dst[j·Size/64
// + k] holds columns [64k, 64k+64) of instance j, column 64k+i at bit i. len(dst) =
// Size. Walk outputs (Solve's w, RowValuesWords' A0·w, B0·w) thus become the packed
// vectors the zerocheck and the commitment read, for any circuit.
func (c *Circuit) PackRows(dst []field.K, src []uint64) {
	c.checkLen("dst", len(dst))
	c.PackLanes(dst, src, 64)
}

// PackLanes is PackRows for the first lanes instances only: dst holds lanes·Size/64
// words (instance j at [j·Size/64, (j+1)·Size/64)).
func (c *Circuit) PackLanes(dst []field.K, src []uint64, lanes int) {
	c.PackLanesRange(dst, src, lanes, 0, c.Size()/64)
}

// PackLanesRange is PackLanes for the word blocks [k0, k1) only (columns [64·k0,
// 64·k1) of src; words [j·Size/64 + k0, j·Size/64 + k1) of dst for instance j), the
// other words of dst left as they are: the blocks SolveManyStream reports can be
// packed as they come.
func (c *Circuit) PackLanesRange(dst []field.K, src []uint64, lanes, k0, k1 int) {
	c.checkLen("src", len(src))
	words := c.Size() / 64
	if lanes < 1 || lanes > 64 || len(dst) != lanes*words {
		panic(fmt.Sprintf("circuit: PackLanes: %d words for %d lanes of %d", len(dst), lanes, words))
	}
	if k0 < 0 || k1 > words || k0 > k1 {
		panic(fmt.Sprintf("circuit: PackLanesRange: blocks [%d, %d) of %d", k0, k1, words))
	}
	// packBlock matrices at a time: their transposes stay in the L1 cache while
	// each instance's run of packBlock words is written in one piece.
	sc := packScratch.Get()
	defer packScratch.Put(sc)
	m, mt := &sc[0], &sc[1]
	for kb := k0; kb < k1; kb += packBlock {
		n := min(packBlock, k1-kb)
		for t := range n {
			m[t] = [64]uint64(src[64*(kb+t):])
		}
		for t := 0; t < n; t += 8 {
			transposeMany((*[8][64]uint64)(m[t:]), min(8, n-t))
		}
		// Instance j's run is the column j of m: mt is m's transpose, each run
		// contiguous for the stores.
		for j := range lanes {
			row := &mt[j]
			for t := range n {
				row[t] = m[t][j]
			}
		}
		storeLanes(dst[kb:], words, mt, lanes, n)
	}
}

// packScratch keeps PackLanesRange's two blocks of matrices (64 KiB), which would
// otherwise be cleared on the stack by every call.
var packScratch buffers.Shelf[[2][packBlock][64]uint64]

// storeLanes copies words [0, n) of the first lanes rows of mt to dst (row j at
// dst[j·stride:]). The 32-byte aligned middle of each run goes through the
// streaming stores where the level has them: the packed rows are written once and
// read by a later stage, so filling the cache with them (and reading each line
// from memory before writing it) would only cost memory bandwidth, which two
// cores share.
func storeLanes(dst []field.K, stride int, mt *[packBlock][64]uint64, lanes, n int) {
	head, body := n, 0
	if stride%8 == 0 {
		// Every run has dst's alignment (stride is a whole number of 64-byte
		// lines), and the streaming stores write whole lines only: a part of a
		// line would be written to memory on its own.
		head = min(n, int(-uintptr(unsafe.Pointer(&dst[0]))/8%8))
		body = (n - head) &^ 7
	}
	if body == 0 || !storeLanesArch(dst[head:], stride, mt, lanes, head, body) {
		head, body = n, 0
	}
	for j := range lanes {
		run, row := dst[j*stride:j*stride+n], &mt[j]
		for t := range head {
			run[t] = field.K(row[t])
		}
		for t := head + body; t < n; t++ {
			run[t] = field.K(row[t])
		}
	}
}

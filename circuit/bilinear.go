package circuit

import (
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
)

// A bilinear walk (eᵀA0·w, eᵀB0·w) runs the program over a register file of E
// values and keeps two windows beside it, so that its kernel never multiplies:
//
//   - the column window holds the weights of a run of columns (at tensor weights,
//     whole blocks of len(Low) columns, each block Low scaled by its High factor
//     once); a second, fixed window holds the weights of the first lowCols
//     columns, where circuits keep their inputs, which programs load long after
//     the column window has passed them;
//   - the row window receives each product row's A and B operand values, tagged
//     with the row, for a run of rows; when the walk leaves it, its rows are folded
//     into the two sums by inner products with their weights (at full weights) or,
//     at tensor weights, a block of len(Low) rows at a time: where the unreduced
//     flush kernel runs (flush.go), into two accumulators of len(Low) entries, each
//     block added to them scaled by its High factor, the accumulators meeting Low
//     in one inner product at the end (Σ_b High_b·Σ_j Low_j·a_{b,j} =
//     Σ_j Low_j·Σ_b High_b·a_{b,j}); elsewhere, each block's inner products with
//     Low (which the dot kernels accumulate unreduced) scaled by its High factor.
//     Either way a row costs one product per sum.
//     BilinearTensor first widens each Low factor to a window's length (Tensor.widen),
//     so that a window of columns or rows is scaled in one run.
//
// Programs load columns and emit rows in nearly increasing order, so each window
// moves forward a few tens of thousands of times per walk of a large program. Many
// programs interleave a second stream behind the first: a block of gadgets whose
// inputs or outputs sit in one region and whose product rows sit in another emits
// rows (and loads columns) alternately in both. A back window of backWindow columns
// and one of backWindow rows serve that stream: a column or row behind the
// (forward) window, and behind the fixed column window, lands in them. The kernel
// stops at the first step outside every window; the driver moves the forward window
// (a column or row past it) or the back window (one behind it, the old back rows
// folded in first) and resumes. A row window slot without its row's tag holds no
// row and counts as 0; the back window's tags are cleared when it is folded in, since
// it may come back to a base it had before.

// Exits of a walk kernel.
const (
	walkDone    = iota // the code is done
	walkColMiss        // the step at pc loads a column outside the column window
	walkRowMiss        // the step at pc is a row outside the row window
)

// walkWindow is the number of columns (rows) in a column (row) window.
const walkWindow = 1 << walkWindowLog

const walkWindowLog = 10

// backWindow is the number of columns (rows) in a back column (row) window.
const backWindow = 1 << 8

// backSparse is the most rows a back row window may hold and still be folded in
// row by row (one product for its weight and two for its sums each) rather than
// by the windowed products over all its slots. A back row window that held no more
// is followed by one of backSmall rows (a stream of scattered rows behind the
// window costs a short scan per row), one that held more by one of backWindow.
const (
	backSparse = 8
	backSmall  = 16
)

// maxTensorLow is the longest tensor Low factor the windowed walk takes: a window
// holds whole blocks.
const maxTensorLow = walkWindow

// bilinearWalk is one walker's state: its registers, windows and sums.
type bilinearWalk struct {
	size int
	// regs holds register i in words [4i, 4i+3) (the fourth word is padding the
	// kernels may fill with anything); register 0 stays 0.
	regs []uint64

	// Column weights: colFull, or the tensor colLow ⊗ colHi (colK = log2 len(colLow)).
	colFull, colLow, colHi []field.E
	colK                   uint
	cols                   []field.E // the window: the weight of column cbase+i at i (never empty)
	low                    []field.E // the fixed window: the weight of column i at i (followed by one readable entry)
	cbase                  int
	colBuf                 []field.E // the window's storage, one entry longer
	cols2                  []field.E // the back window: the weight of column cbase2+i at i (may be empty)
	cbase2                 int
	colBuf2                []field.E // the back window's storage, one entry longer

	// Row weights, likewise.
	rowFull, rowLow, rowHi []field.E
	rowK                   uint
	rowsA, rowsB           []field.E // the window: row rbase+i's operands at i
	rtag                   []int32   // row rbase+i's slot holds that row iff rtag[i] = rbase+i
	rbase                  int
	rcount                 int       // rows stored in the window (len(rowsA) of them: every slot holds its row)
	rowsA2, rowsB2         []field.E // the back window: row rbase2+i's operands at i (may be empty)
	rtag2                  []int32   // row rbase2+i's slot holds that row iff rtag2[i] = rbase2+i (−1 when folded in)
	rbase2                 int
	rcount2                int // rows stored in the back window
	backN                  int // the length of the back row window's next placement
	// accA, accB are the tensor row accumulators: accA[j] = Σ_b High_b·a_{b·len(Low)+j}
	// over the rows folded so far. uacc, when not nil, holds them instead, unreduced
	// (flush.go), and accA, accB are the scratch its sums are reduced into; without
	// uacc, the rows go straight to va, vb and accA, accB stay 0.
	accA, accB []field.E
	uacc       []uint64

	va, vb field.E
}

// walkScratch is a walker's storage, kept on the circuit between walks (fresh
// pages would be faulted in on every verification).
type walkScratch struct {
	regs                                     []uint64
	rowsA, rowsB, colBuf, accA, accB, lowBuf []field.E
	rowsA2, rowsB2, colBuf2                  []field.E
	rtag                                     []int32
	rtag2                                    []int32
	uacc                                     []uint64
}

// lowCols bounds the fixed column window (a variable for tests).
var lowCols = 1 << 15

// newFullWalk returns a walker at full weights e (rows) and w (columns) in s.
func newFullWalk(s *walkScratch, nregs int, e, w []field.E) *bilinearWalk {
	bw := newWalk(s, nregs, len(w))
	bw.colFull, bw.rowFull = w, e
	bw.low = w[:max(0, min(len(w)-1, lowCols))]
	bw.moveCols(0)
	return bw
}

// newTensorWalk returns a walker in s at tensor weights e (rows) and w (columns)
// whose High factors' eq tables are hiE and hiW. len(e.Low), len(w.Low) ≤
// maxTensorLow.
func newTensorWalk(s *walkScratch, nregs, size int, e, w Tensor, hiE, hiW []field.E) *bilinearWalk {
	bw := newWalk(s, nregs, size)
	bw.colLow, bw.colHi, bw.colK = w.Low, hiW, uint(lowLog(w.Low))
	bw.rowLow, bw.rowHi, bw.rowK = e.Low, hiE, uint(lowLog(e.Low))
	// The fixed window: whole blocks, one readable entry after them.
	nl := min(size, lowCols) &^ (len(w.Low) - 1)
	s.lowBuf = buffers.Grow(s.lowBuf, nl+1)
	bw.low = s.lowBuf[:nl]
	for b, l := 0, len(w.Low); b < nl; b += l {
		field.ScaleE(bw.low[b:b+l], w.Low, hiW[b>>bw.colK])
	}
	l := len(e.Low)
	s.accA, s.accB = buffers.Grow(s.accA, l), buffers.Grow(s.accB, l)
	bw.accA, bw.accB = s.accA[:l], s.accB[:l]
	clear(bw.accA)
	clear(bw.accB)
	if uaccFast() && l%8 == 0 {
		s.uacc = buffers.Grow(s.uacc, l/8*uaccGroupWords)
		bw.uacc = s.uacc[:l/8*uaccGroupWords]
		clear(bw.uacc)
	}
	bw.moveCols(0)
	return bw
}

func newWalk(s *walkScratch, nregs, size int) *bilinearWalk {
	n := min(walkWindow, size)
	s.regs = buffers.Grow(s.regs, 4*nregs)
	clear(s.regs)
	s.rowsA, s.rowsB = buffers.Grow(s.rowsA, n), buffers.Grow(s.rowsB, n)
	// One more entry: the assembly kernel reads 8 bytes past the window's last.
	s.colBuf = buffers.Grow(s.colBuf, n+1)
	s.rtag = buffers.Grow(s.rtag, n)
	for i := range s.rtag {
		s.rtag[i] = -1
	}
	n2 := min(backWindow, size)
	s.rowsA2, s.rowsB2 = buffers.Grow(s.rowsA2, n2), buffers.Grow(s.rowsB2, n2)
	s.colBuf2 = buffers.Grow(s.colBuf2, n2+1)
	s.rtag2 = buffers.Grow(s.rtag2, n2)
	for i := range s.rtag2 {
		s.rtag2[i] = -1
	}
	return &bilinearWalk{size: size, regs: s.regs, rowsA: s.rowsA[:0], rowsB: s.rowsB[:0], rtag: s.rtag[:0], colBuf: s.colBuf,
		rowsA2: s.rowsA2[:0], rowsB2: s.rowsB2[:0], rtag2: s.rtag2[:0], colBuf2: s.colBuf2[:n2+1], backN: backWindow}
}

// run walks code from its start.
func (bw *bilinearWalk) run(code []instr) {
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
			pc = bw.rowMiss(code, pc)
		}
	}
}

// restart readies the walker for code that may load columns and emit rows
// before the ones it has seen: the row window is folded in and both windows go
// back to the block start (the sums and registers stay). The row tags are
// cleared: a window placed again at a base it had before would otherwise take the
// rows left in its slots by the earlier code for rows of its own (while the walk
// only moves forward, a slot's old tag names a row below the window).
func (bw *bilinearWalk) restart() {
	bw.flushRows()
	bw.flushBack()
	tags := bw.rtag[:cap(bw.rtag)]
	for i := range tags {
		tags[i] = -1
	}
	bw.rbase = 0
	bw.moveCols(0)
}

// sums folds the row window and the accumulators in and returns the sums.
func (bw *bilinearWalk) sums() (va, vb field.E) {
	bw.flushRows()
	bw.flushBack()
	if bw.uacc != nil {
		uaccSums(bw.accA, bw.accB, bw.uacc)
		clear(bw.uacc)
	}
	if bw.accA != nil {
		bw.va = bw.va.Add(field.InnerProduct(bw.rowLow, bw.accA))
		bw.vb = bw.vb.Add(field.InnerProduct(bw.rowLow, bw.accB))
		clear(bw.accA)
		clear(bw.accB)
	}
	return bw.va, bw.vb
}

// colWeight is column col's weight.
func (bw *bilinearWalk) colWeight(col int) field.E {
	if bw.colFull != nil {
		return bw.colFull[col]
	}
	return bw.colLow[col&(1<<bw.colK-1)].Mul(bw.colHi[col>>bw.colK])
}

// rowWeight is row row's weight.
func (bw *bilinearWalk) rowWeight(row int) field.E {
	if bw.rowFull != nil {
		return bw.rowFull[row]
	}
	return bw.rowLow[row&(1<<bw.rowK-1)].Mul(bw.rowHi[row>>bw.rowK])
}

// colMiss serves the column load at code[pc] (outside the windows) and returns the
// step to resume at: the window moves to the column's block when the column is past
// it, and the back window to the column's when it is behind it (a column of the
// fixed window, which the kernels serve, is loaded from it here).
func (bw *bilinearWalk) colMiss(code []instr, pc int) int {
	in := code[pc]
	col := int(in.col())
	if col >= bw.cbase {
		bw.moveCols(col)
		return pc
	}
	if col < len(bw.low) {
		v := bw.low[col]
		d := 4 * int(in.dst())
		bw.regs[d], bw.regs[d+1], bw.regs[d+2] = uint64(v.C0), uint64(v.C1), uint64(v.C2)
		return pc + 1
	}
	bw.moveBackCols(col)
	return pc
}

// moveBackCols places the back column window at the run of backWindow columns
// holding col.
func (bw *bilinearWalk) moveBackCols(col int) {
	bw.cbase2 = col &^ (backWindow - 1)
	n := min(len(bw.colBuf2)-1, bw.size-bw.cbase2)
	bw.cols2 = bw.colBuf2[:n]
	if bw.colFull != nil {
		copy(bw.cols2, bw.colFull[bw.cbase2:])
		return
	}
	l := len(bw.colLow)
	for off := 0; off < n; {
		c := bw.cbase2 + off
		j := c & (l - 1)
		m := min(n-off, l-j)
		field.ScaleE(bw.cols2[off:off+m], bw.colLow[j:j+m], bw.colHi[c>>bw.colK])
		off += m
	}
}

// moveCols moves the column window to the block of col (never empty: the
// kernels rely on it).
func (bw *bilinearWalk) moveCols(col int) {
	l := 64
	if bw.colFull == nil {
		l = 1 << bw.colK
	}
	bw.cbase = col &^ (l - 1)
	bw.cols = bw.colBuf[:min(len(bw.colBuf)-1, bw.size-bw.cbase)]
	if bw.colFull != nil {
		copy(bw.cols, bw.colFull[bw.cbase:])
		return
	}
	for b := 0; b < len(bw.cols); b += l {
		field.ScaleE(bw.cols[b:b+l], bw.colLow, bw.colHi[(bw.cbase+b)>>bw.colK])
	}
}

// rowMiss serves the row at code[pc] (outside the windows) and returns the step to
// resume at: the window is folded in and moves to the row's block when the row is
// past it; when it is behind, the back window is folded in and moves to the row's
// run of backN rows.
func (bw *bilinearWalk) rowMiss(code []instr, pc int) int {
	in := code[pc]
	row := int(in.dst())
	if row < bw.rbase {
		bw.flushBack()
		bw.rbase2 = row &^ (bw.backN - 1)
		n := min(bw.backN, bw.size-bw.rbase2)
		bw.rowsA2, bw.rowsB2, bw.rtag2 = bw.rowsA2[:n], bw.rowsB2[:n], bw.rtag2[:n]
		return pc
	}
	bw.flushRows()
	l := 1
	if bw.rowFull == nil {
		l = 1 << bw.rowK
	}
	bw.rbase = row &^ (max(l, 64) - 1)
	n := min(cap(bw.rowsA), bw.size-bw.rbase)
	bw.rowsA, bw.rowsB, bw.rtag = bw.rowsA[:n], bw.rowsB[:n], bw.rtag[:n]
	return pc
}

// flushRows adds the row window's rows to the sums.
func (bw *bilinearWalk) flushRows() {
	n := len(bw.rowsA)
	if n == 0 {
		return
	}
	a, b := bw.rowsA, bw.rowsB
	// Each row is emitted once, so a window that received as many rows as it has
	// slots holds every one of its rows.
	if bw.rcount != n {
		for i, tag := range bw.rtag {
			if tag != int32(bw.rbase+i) {
				a[i], b[i] = field.Zero, field.Zero
			}
		}
	}
	bw.rcount = 0
	switch {
	case bw.rowFull != nil:
		e := bw.rowFull[bw.rbase : bw.rbase+n]
		bw.va = bw.va.Add(field.InnerProduct(e, a))
		bw.vb = bw.vb.Add(field.InnerProduct(e, b))
	case bw.uacc != nil:
		l := len(bw.accA)
		for k := 0; k < n; k += l {
			flushAcc(bw.uacc, a[k:k+l], b[k:k+l], bw.rowHi[(bw.rbase+k)>>bw.rowK])
		}
	default:
		// Without the unreduced kernel, each block's inner products with Low
		// (accumulated unreduced by the dot kernels) are scaled by its High factor:
		// one reduction per block instead of one per row.
		l := len(bw.accA)
		for k := 0; k < n; k += l {
			h := bw.rowHi[(bw.rbase+k)>>bw.rowK]
			bw.va = bw.va.Add(h.Mul(field.InnerProduct(bw.rowLow, a[k:k+l])))
			bw.vb = bw.vb.Add(h.Mul(field.InnerProduct(bw.rowLow, b[k:k+l])))
		}
	}
	bw.rowsA, bw.rowsB, bw.rtag = a[:0], b[:0], bw.rtag[:0]
}

// addRow adds row's weight times a and b to the sums.
func (bw *bilinearWalk) addRow(row int, a, b field.E) {
	wt := bw.rowWeight(row)
	bw.va = bw.va.Add(wt.Mul(a))
	bw.vb = bw.vb.Add(wt.Mul(b))
}

// flushBack adds the back row window's rows to the sums and empties it (its tags
// cleared: it may be placed again at a base it had before).
func (bw *bilinearWalk) flushBack() {
	n := len(bw.rowsA2)
	if n == 0 {
		return
	}
	a, b, tags, base := bw.rowsA2, bw.rowsB2, bw.rtag2, bw.rbase2
	bw.backN = backWindow
	if bw.rcount2 <= backSparse {
		bw.backN = backSmall
	}
	switch {
	case bw.rcount2 == 0:
	case bw.rcount2 <= backSparse:
		for i, tag := range tags {
			if tag == int32(base+i) {
				bw.addRow(base+i, a[i], b[i])
			}
		}
	default:
		if bw.rcount2 != n {
			for i, tag := range tags {
				if tag != int32(base+i) {
					a[i], b[i] = field.Zero, field.Zero
				}
			}
		}
		if bw.rowFull != nil {
			e := bw.rowFull[base : base+n]
			bw.va = bw.va.Add(field.InnerProduct(e, a))
			bw.vb = bw.vb.Add(field.InnerProduct(e, b))
			break
		}
		// Runs within one block of len(Low) rows share a High factor and go to
		// the accumulators' slots of their rows.
		l := len(bw.accA)
		for off := 0; off < n; {
			r := base + off
			j := r & (l - 1)
			m := min(n-off, l-j)
			h := bw.rowHi[r>>bw.rowK]
			if bw.uacc != nil {
				flushAcc(bw.uacc[j/8*uaccGroupWords:(j+m)/8*uaccGroupWords], a[off:off+m], b[off:off+m], h)
			} else {
				bw.va = bw.va.Add(h.Mul(field.InnerProduct(bw.rowLow[j:j+m], a[off:off+m])))
				bw.vb = bw.vb.Add(h.Mul(field.InnerProduct(bw.rowLow[j:j+m], b[off:off+m])))
			}
			off += m
		}
	}
	for i := range tags {
		tags[i] = -1
	}
	bw.rcount2 = 0
	bw.rowsA2, bw.rowsB2, bw.rtag2 = a[:0], b[:0], tags[:0]
}

// bilinearGo is the portable walk kernel: it runs code from pc until the code
// ends or a step falls outside a window, and returns that step and the exit.
func bilinearGo(bw *bilinearWalk, code []instr, pc int) (int, int) {
	r := bw.regs
	cols, cbase, low, cols2, cbase2 := bw.cols, bw.cbase, bw.low, bw.cols2, bw.cbase2
	rowsA, rowsB, rtag, rbase := bw.rowsA, bw.rowsB, bw.rtag, bw.rbase
	rowsA2, rowsB2, rtag2, rbase2 := bw.rowsA2, bw.rowsB2, bw.rtag2, bw.rbase2
	for ; pc < len(code); pc++ {
		in := code[pc]
		switch in.op() {
		case opCol:
			col := int(in.col())
			var v field.E
			if i := col - cbase; uint(i) < uint(len(cols)) {
				v = cols[i]
			} else if col < len(low) {
				v = low[col]
			} else if j := col - cbase2; uint(j) < uint(len(cols2)) {
				v = cols2[j]
			} else {
				return pc, walkColMiss
			}
			d := r[4*in.dst():][:3]
			d[0], d[1], d[2] = uint64(v.C0), uint64(v.C1), uint64(v.C2)
		case opXor:
			d, x, y := r[4*in.dst():][:3], r[4*in.x():][:3], r[4*in.y():][:3]
			d[0], d[1], d[2] = x[0]^y[0], x[1]^y[1], x[2]^y[2]
		default:
			row := int(in.dst())
			i := row - rbase
			x, y := r[4*in.x():][:3], r[4*in.y():][:3]
			if uint(i) >= uint(len(rowsA)) {
				j := row - rbase2
				if uint(j) >= uint(len(rowsA2)) {
					return pc, walkRowMiss
				}
				rowsA2[j] = field.E{C0: field.K(x[0]), C1: field.K(x[1]), C2: field.K(x[2])}
				rowsB2[j] = field.E{C0: field.K(y[0]), C1: field.K(y[1]), C2: field.K(y[2])}
				rtag2[j] = int32(row)
				bw.rcount2++
				continue
			}
			rowsA[i] = field.E{C0: field.K(x[0]), C1: field.K(x[1]), C2: field.K(x[2])}
			rowsB[i] = field.E{C0: field.K(y[0]), C1: field.K(y[1]), C2: field.K(y[2])}
			rtag[i] = int32(row)
			bw.rcount++
		}
	}
	return pc, walkDone
}

package ntt

import (
	"math/bits"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/par"
)

// Tuning of the interleaved transform. None of these changes an output bit.
const (
	// scratchWords is the per-worker gather buffer of a top-layer group (256 KiB, so a
	// group stays in L2 while its layers run).
	scratchWords = 1 << 15
	// maxGroupLog is the widest gathered radix: one pass over the codeword runs up to
	// this many layers.
	maxGroupLog = 6
	// minSubLog is the fewest rows (log2) a sub-block keeps when it is split further
	// only to give every worker one.
	minSubLog = 6
	// deepChunkWords is the run of contiguous words one in-place butterfly call covers in
	// the deep phase, when rows are whole.
	deepChunkWords = 512
	// minChunkWords is the fewest words of rows a worker takes at once in a top pass.
	minChunkWords = 1 << 14
	// stripWords bounds the rows a worker transposes from lane-major message blocks
	// before it runs their top-layer groups (2 MiB).
	stripWords = 1 << 18
	// minStripRows is the fewest rows a strip is cut down to for balance.
	minStripRows = 16
)

// subTargetLog is log2 of the bytes of a deep-phase sub-block, which one worker
// transforms through all remaining layers while it stays cache resident.
var subTargetLog = 18

// subMaxLog bounds (log2 bytes) how far a sub-block may grow to save a top pass; a
// larger sub-block's first deep pass splits it into blocks that are then finished one by
// one at the target size.
const subMaxLog = 23

// source supplies the message rows (replica 0) to the first pass of an encode: row k's
// n active words are words[k·stride + off ..][:n].
type source struct {
	words       []uint64
	stride, off int
	n           int
	rows        int  // message rows
	inPlace     bool // words is the engine's own buffer, replica 0 holding the message
}

// gather writes message rows row0..row0+c−1 to out, row k at out[k·outStride ..][:n].
func (s *source) gather(out []uint64, outStride, row0, c int) {
	if s.stride == s.n && outStride == s.n {
		copy(out[:c*s.n], s.words[row0*s.n+s.off:(row0+c)*s.n+s.off])
		return
	}
	for k := range c {
		src := s.words[(row0+k)*s.stride+s.off:]
		copy(out[k*outStride:k*outStride+s.n], src[:s.n])
	}
}

// transposeTileWords bounds a transpose tile (256 KiB): large enough that every lane
// contributes a long contiguous burst per tile, small enough to stay in L2.
const transposeTileWords = 1 << 15

// transposeLanes writes n lane-major blocks of `rows` words (block b = msg[b·rows ..])
// into the first `rows` rows of buf (rows of s words): column s−1−b takes block b and
// columns 0..s−n−1 are zeroed. Each lane contributes a contiguous burst per row tile.
// The reps−1 runs of `rows` rows after them (reps ≥ 1) take copies of the first.
func transposeLanes(buf []uint64, s int, msg []uint64, n, rows, reps int, w par.Workers) {
	tile := transposeTileRows(s, rows)
	w.Range(rows/tile, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			r0 := t * tile
			transposeRows(buf, s, msg, n, rows, r0, tile)
			for k := 1; k < reps; k++ {
				copy(buf[(k*rows+r0)*s:(k*rows+r0+tile)*s], buf[r0*s:(r0+tile)*s])
			}
		}
	})
}

// transposeTileRows returns the rows of a transpose tile of rows of s words (a power of
// two, at most rows).
func transposeTileRows(s, rows int) int { return min(rows, pow2Floor(transposeTileWords/s)) }

// transposeRows is transposeLanes for rows r0..r0+tile−1 only.
func transposeRows(buf []uint64, s int, msg []uint64, n, rows, r0, tile int) {
	out := buf[r0*s : (r0+tile)*s]
	if n < s {
		for k := range tile {
			clear(out[k*s : k*s+s-n])
		}
	}
	transposeTile(out, s, msg, n, rows, r0, tile)
}

// transposeTile writes rows r0..r0+tile−1 of the transpose into out (tile rows of s
// words): column s−1−b takes msg[b·rows + r0 ..].
func transposeTile(out []uint64, s int, msg []uint64, n, rows, r0, tile int) {
	if Kernels.Level() >= cpu.AVX2VPCLMUL {
		transposeTileAsm(out, s, msg, n, rows, r0, tile)
		return
	}
	transposeTileGeneric(out, s, msg, n, rows, r0, tile, 0)
}

// transposeTileGeneric is transposeTile for lanes fromLane..n−1.
func transposeTileGeneric(out []uint64, s int, msg []uint64, n, rows, r0, tile, fromLane int) {
	for b := fromLane; b < n; b++ {
		col := s - 1 - b
		for k, x := range msg[b*rows+r0 : b*rows+r0+tile] {
			out[k*s+col] = x
		}
	}
}

// engine runs layers start..logD−1 of the forward transform over an interleaved buffer:
// buf holds 2^logD rows of s words, and the transform acts on columns c0..s−1 of every row
// (columns below c0 are zero lanes; an encode writes them as zeros). When src is set, the
// buffer content is ignored and replaced by 2^start replicas of the message (the state
// after the first `start` layers on a zero-padded coefficient vector). When lanes is set,
// the message is n lane-major blocks of src.rows words that the engine first transposes
// into replica 0 (src is then the buffer itself, in place).
type engine struct {
	p       *Plan
	buf     []uint64
	s, c0   int
	n       int
	start   int
	src     *source
	lanes   []uint64
	w       par.Workers
	scratch [][]uint64
	// done, when set, is called with each range of rows once it is final (RowsDone).
	done RowsDone
}

func (e *engine) run() {
	logD := e.p.logD
	rowLog := bits.Len(uint(e.s*8) - 1)
	subLog := max(0, min(subTargetLog-rowLog, logD))
	nTop := logD - subLog
	if rest := nTop - e.start; rest > 0 {
		// Save a whole pass over the buffer when larger sub-blocks (up to 2^subMaxLog
		// bytes) let the top layers fit one pass fewer.
		passes := (rest + maxGroupLog - 1) / maxGroupLog
		if fewer := e.start + maxGroupLog*(passes-1); logD-fewer <= subMaxLog-rowLog {
			nTop = fewer
		}
	}
	if wl := bits.Len(uint(e.w.N()) - 1); nTop < wl {
		nTop = max(nTop, min(wl, logD-minSubLog))
	}
	first := e.start
	fill := e.src != nil && nTop <= e.start
	if e.lanes != nil && nTop <= first {
		// No top pass to transpose the message run by run: the deep phase's fill
		// reads replica 0 whole. A fill in place would finish the sub-blocks of
		// replica 0 only after all others, alone; with several workers every replica
		// is written here instead, and the sub-blocks are all independent.
		reps := 1
		if e.w.N() > 1 {
			reps, fill = 1<<e.start, false
		}
		transposeLanes(e.buf, e.s, e.lanes, e.n, e.src.rows, reps, e.w)
	}
	if nTop > first {
		e.scratch = make([][]uint64, e.w.N())
		for layer := first; layer < nTop; {
			// Balance the passes: 7 layers go as 4 + 3, not 6 + 1.
			rest := nTop - layer
			passes := (rest + maxGroupLog - 1) / maxGroupLog
			layer += e.topPass(layer, (rest+passes-1)/passes, layer == first && e.src != nil)
		}
		first = nTop
		for _, b := range e.scratch {
			if b != nil {
				e.p.scratch.Put(&b)
			}
		}
	}
	// The deep phase hands its sub-blocks to done, even when it has no layer left.
	if first < logD || fill || e.done != nil {
		e.deepPhase(min(nTop, first), first, fill)
	}
}

// pow2Floor returns the largest power of two ≤ max(x, 1).
func pow2Floor(x int) int {
	if x < 1 {
		return 1
	}
	return 1 << (bits.Len(uint(x)) - 1)
}

// fillRows writes rows row0..row0+c−1 of the replicated message (replica 0 rows are
// left alone when the source is the buffer itself).
func (e *engine) fillRows(row0, c int) {
	rows := e.src.rows
	for row := row0; row < row0+c; {
		r := row & (rows - 1)
		k := min(rows-r, row0+c-row)
		if !e.src.inPlace || row >= rows {
			e.src.gather(e.buf[row*e.s+e.c0:], e.s, r, k)
			e.zeroPrefix(row, k)
		}
		row += k
	}
}

func (e *engine) zeroPrefix(row, c int) {
	if e.c0 == 0 {
		return
	}
	for k := range c {
		clear(e.buf[(row+k)*e.s : (row+k)*e.s+e.c0])
	}
}

// topPass runs layers layer..layer+j−1 in one sweep over the buffer: each group of 2^j
// row runs (c rows each, 2^{logD−layer−j} rows apart) is gathered into the worker's
// scratch, transformed, and written back. With fromSrc the runs are read from the
// message instead (layer = start: block b is replica b). It returns the layers run,
// which is j unless the scratch cannot hold 2^j rows.
func (e *engine) topPass(layer, j int, fromSrc bool) int {
	logD := e.p.logD
	j = min(j, bits.Len(uint(scratchWords/e.n))-1)
	j = max(j, 1)
	blockRows := 1 << (logD - layer)
	seg := blockRows >> j
	c := 1
	for c < seg && (c*2)<<j*e.n <= scratchWords {
		c *= 2
	}
	perBlock := seg / c
	units := perBlock << layer
	segLen := c * e.n
	if fromSrc && e.lanes != nil {
		// The message is transposed into replica 0 one strip at a time (the rows at
		// the same offset r..r+tile−1 in every segment), and the strip's groups run
		// right after, on the same worker: the rows come back from that worker's own
		// cache, never from the other core's, and the workers need no barrier.
		tile := min(seg, pow2Floor(stripWords/(e.s<<j)))
		// Several strips per worker, so that the workers finish together, as long as
		// a strip keeps runs of at least minStripRows message words per lane.
		for tile > minStripRows && seg/tile < 4*e.w.N() {
			tile /= 2
		}
		tile = max(tile, c)
		e.w.For(seg/tile, func(w, lo, hi int) {
			for t := lo; t < hi; t++ {
				r := t * tile
				for i := range 1 << j {
					transposeRows(e.buf, e.s, e.lanes, e.n, e.src.rows, i*seg+r, tile)
				}
				e.unitRange(w, layer, j, fromSrc, blockRows, seg, c, perBlock, segLen, r/c<<layer, (r+tile)/c<<layer)
			}
		}, par.PerWorker(4))
		return j
	}
	e.topUnits(layer, j, fromSrc, blockRows, seg, c, perBlock, segLen, 0, units)
	return j
}

// topUnits runs the groups [from, to) of a top pass, handed out a few at a time (at
// least minChunkWords of rows) so that the workers finish together.
func (e *engine) topUnits(layer, j int, fromSrc bool, blockRows, seg, c, perBlock, segLen, from, to int) {
	blocks := 1 << layer
	opts := []par.Option{par.PerWorker(to - from), par.MinChunk(minChunkWords / (segLen << j))}
	if fromSrc {
		opts = append(opts, par.Grain(blocks))
	}
	e.w.For(to-from, func(w, lo, hi int) {
		e.unitRange(w, layer, j, fromSrc, blockRows, seg, c, perBlock, segLen, lo+from, hi+from)
	}, opts...)
}

// unitRange runs the groups [lo, hi) of a top pass on worker w. With fromSrc the range
// holds whole runs of message rows (a multiple of the 2^layer blocks).
func (e *engine) unitRange(w, layer, j int, fromSrc bool, blockRows, seg, c, perBlock, segLen, lo, hi int) {
	blocks := 1 << layer
	if e.scratch[w] == nil {
		if b, ok := e.p.scratch.Get().(*[]uint64); ok {
			e.scratch[w] = *b
		} else {
			e.scratch[w] = make([]uint64, scratchWords)
		}
	}
	scratch := e.scratch[w]
	var tw [1 << maxGroupLog]uint64
	var segs [1 << maxGroupLog][]uint64
	for i := range 1 << j {
		segs[i] = scratch[i*segLen : (i+1)*segLen]
	}
	// A fused group reads its rows straight from the message or the buffer in its
	// first sub-pass and writes them back in its last: whole rows and contiguous
	// message rows.
	fused := e.n == e.s && (!fromSrc || (e.src.stride == e.n && e.src.off == 0))
	var dsts, srcs [1 << maxGroupLog][]uint64
	lastBlock := -1
	for u := lo; u < hi; u++ {
		b, r0 := u/perBlock, (u%perBlock)*c
		if fromSrc {
			// The blocks are replicas of the message: the groups of one run of
			// message rows go one after another (chunks hold whole runs), so that
			// the message rows come from cache after the first, and block 0 goes
			// last, so that a message in place in block 0 is read by every other
			// block before block 0 overwrites it.
			b, r0 = blocks-1-u%blocks, (u/blocks)*c
		}
		if b != lastBlock {
			e.p.groupTwiddles(tw[:], layer, b, j)
			lastBlock = b
		}
		if fused {
			for i := range 1 << j {
				inBlock := i*seg + r0
				row := b*blockRows + inBlock
				dsts[i] = e.buf[row*e.s : (row+c)*e.s]
				srcs[i] = dsts[i]
				if fromSrc {
					srcs[i] = e.src.words[inBlock*e.n : (inBlock+c)*e.n]
				}
			}
			radixIO(dsts[:1<<j], srcs[:1<<j], segs[:1<<j], j, tw[:])
			continue
		}
		for i := range 1 << j {
			inBlock := i*seg + r0
			row := b*blockRows + inBlock
			switch {
			case fromSrc:
				e.src.gather(segs[i], e.n, inBlock, c)
			case e.n == e.s:
				copy(segs[i], e.buf[row*e.s:(row+c)*e.s])
			default:
				for k := range c {
					copy(segs[i][k*e.n:(k+1)*e.n], e.buf[(row+k)*e.s+e.c0:(row+k+1)*e.s])
				}
			}
		}
		radix(segs[:1<<j], j, tw[:])
		for i := range 1 << j {
			row := b*blockRows + i*seg + r0
			if e.n == e.s {
				copy(e.buf[row*e.s:(row+c)*e.s], segs[i])
				continue
			}
			for k := range c {
				copy(e.buf[(row+k)*e.s+e.c0:(row+k+1)*e.s], segs[i][k*e.n:(k+1)*e.n])
			}
			if fromSrc {
				e.zeroPrefix(row, c)
			}
		}
	}
}

// deepMaxLog is the widest in-place deep-phase radix (log2): two radix-4 sub-passes.
const deepMaxLog = 4

// deepRadix returns the radix (log2) of the next deep-phase pass with rem layers left:
// passes of four layers, two radix-4 sub-passes each, at most one odd sub-layer, and a
// last pass of two layers.
func deepRadix(rem int) int {
	// The last pass is radix 4 when it can be, run block after block by fwd4Blocks.
	switch rem {
	case 1, 3:
		return 1
	case 2, 4:
		return 2
	case 5, 7:
		return 3
	}
	return 4
}

// radix applies the 2^j·j/2 butterflies of a radix-2^j group to its 2^j segments;
// tw holds the group's twiddles breadth first (see Plan.groupTwiddles). Sub-layers go
// in pairs through the radix-4 kernel, an odd last one alone.
func radix(segs [][]uint64, j int, tw []uint64) {
	radixLayers(segs, j, tw, 0)
}

// radixFrom is radix (j ≥ 2) whose first radix-4 sub-pass reads the group's input
// from src instead of segs (src[i] is segs[i] or overlaps no segment).
func radixFrom(segs, src [][]uint64, j int, tw []uint64) {
	dist := 1 << (j - 1)
	half := dist >> 1
	for i := range half {
		o := [4][]uint64{segs[i], segs[i+half], segs[i+dist], segs[i+dist+half]}
		x := [4][]uint64{src[i], src[i+half], src[i+dist], src[i+dist+half]}
		fwd4io(&o, &x, tw[0], tw[1], tw[2])
	}
	radixLayers(segs, j, tw, 2)
}

// radixLayers runs sub-layers d0..j−1 of radix.
func radixLayers(segs [][]uint64, j int, tw []uint64, d0 int) {
	d := d0
	for ; d+1 < j; d += 2 {
		dist := 1 << (j - 1 - d)
		half := dist >> 1
		base, base1 := (1<<d)-1, (1<<(d+1))-1
		for i := range 1 << j {
			if i&(dist|half) != 0 {
				continue
			}
			fwd4(segs[i], segs[i+half], segs[i+dist], segs[i+dist+half],
				tw[base+i>>(j-d)], tw[base1+i>>(j-d-1)], tw[base1+(i+dist)>>(j-d-1)])
		}
	}
	if d < j {
		base := (1 << d) - 1
		for i := 0; i < 1<<j; i += 2 {
			fwd(segs[i], segs[i+1], tw[base+i>>1])
		}
	}
}

// radixIO is radix reading the group's segments from src and writing them to dst
// (dst[i] is src[i] or overlaps no other segment), with scr as the working copy between
// the first and the last sub-pass. An odd j runs its radix-2 sub-layer first.
func radixIO(dst, src, scr [][]uint64, j int, tw []uint64) {
	in := src
	d := 0
	if j%2 == 1 {
		out := scr
		if j == 1 {
			out = dst
		}
		dist := 1 << (j - 1)
		for i := range dist {
			fwdio(out[i], out[i+dist], in[i], in[i+dist], tw[0])
		}
		in, d = scr, 1
	}
	for ; d < j; d += 2 {
		out := scr
		if d+2 == j {
			out = dst
		}
		dist := 1 << (j - 1 - d)
		half := dist >> 1
		base, base1 := (1<<d)-1, (1<<(d+1))-1
		for i := range 1 << j {
			if i&(dist|half) != 0 {
				continue
			}
			t0, t1, t2 := tw[base+i>>(j-d)], tw[base1+i>>(j-d-1)], tw[base1+(i+dist)>>(j-d-1)]
			if d != 0 && d+2 != j {
				fwd4(scr[i], scr[i+half], scr[i+dist], scr[i+dist+half], t0, t1, t2)
				continue
			}
			o := [4][]uint64{out[i], out[i+half], out[i+dist], out[i+dist+half]}
			x := [4][]uint64{in[i], in[i+half], in[i+dist], in[i+dist+half]}
			fwd4io(&o, &x, t0, t1, t2)
		}
		in = scr
	}
}

// deepPhase runs layers first..logD−1 as 2^nSub independent sub-transforms over
// contiguous row ranges, each done in place by one worker while it stays in cache. With
// fill, each sub-block first copies in its rows of the message replicas (first is then
// the encode's start layer and no layer has run yet).
func (e *engine) deepPhase(nSub, first int, fill bool) {
	subs := 1 << nSub
	if fill && e.src.inPlace {
		// Sub-blocks holding replica-0 rows are transformed only after every other
		// sub-block has copied its replicas from them.
		zeroSubs := max(1, e.src.rows>>(e.p.logD-nSub))
		e.deepSubs(nSub, first, fill, zeroSubs, subs)
		e.deepSubs(nSub, first, fill, 0, zeroSubs)
		return
	}
	e.deepSubs(nSub, first, fill, 0, subs)
}

// deepSubs runs the sub-blocks [from, to) of deepPhase.
func (e *engine) deepSubs(nSub, first int, fill bool, from, to int) {
	logD := e.p.logD
	subRows := 1 << (logD - nSub)
	// One sub-block per chunk, so that the workers finish together.
	e.w.Range(to-from, func(lo, hi int) {
		var st deepState
		// The four-row-block twiddles are recycled through the plan so that a warm
		// encode does not allocate them.
		btw, ok := e.p.blockTwiddles.Get().(*[]uint64)
		if !ok {
			btw = new([]uint64)
		}
		st.btw = *btw
		defer func() {
			*btw = st.btw
			e.p.blockTwiddles.Put(btw)
		}()
		// With whole rows and contiguous message rows the fill is fused into the first
		// radix-4 sub-pass, which reads the message rows itself.
		st.fuse = fill && e.n == e.s && e.src.stride == e.n && e.src.off == 0 && logD-first >= 2
		for sb := lo + from; sb < hi+from; sb++ {
			if fill && !st.fuse {
				e.fillRows(sb*subRows, subRows)
			}
			e.deepRange(&st, sb*subRows, subRows, first, fill)
		}
	}, par.PerWorker(to-from))
}

// deepState is a deep-phase worker's scratch.
type deepState struct {
	tw         [1 << deepMaxLog]uint64
	segs, srcs [1 << deepMaxLog][]uint64
	btw        []uint64 // a range's four-row-block twiddles
	fuse       bool     // the first layer reads the message rows (fused fill)
}

// deepRange runs layers layer..logD−1 over rows row0..row0+rows−1 (whole blocks of
// layer `layer`) and hands the rows to done. Once the range's blocks are independent
// and the range is larger than a sub-block target (2^subTargetLog bytes), each block is
// finished before the next while it stays in cache. fill marks the first layer of a
// filled sub-block, whose blocks are replicas read in place.
func (e *engine) deepRange(st *deepState, row0, rows, layer int, fill bool) {
	logD := e.p.logD
	for ; layer < logD; fill = false {
		blockRows := 1 << (logD - layer)
		if !fill && blockRows < rows && rows*e.s*8 > 1<<subTargetLog {
			for b := row0; b < row0+rows; b += blockRows {
				e.deepRange(st, b, blockRows, layer, false)
			}
			return
		}
		fused := st.fuse && fill
		j := deepRadix(logD - layer)
		if fused && j < 2 {
			j = min(logD-layer, 3) // the fused fill reads through a radix-4 sub-pass
		}
		seg := blockRows >> j
		blocksHere := rows / blockRows
		if j == 2 && blockRows == 4 && e.n == e.s && !fused {
			// Four-row blocks back to back: one kernel call for the range.
			if cap(st.btw) < 3*blocksHere {
				st.btw = make([]uint64, 3*blocksHere)
			}
			t := st.btw[:3*blocksHere]
			for lb := range blocksHere {
				gb := row0/blockRows + lb
				t[3*lb] = e.p.twiddle(layer, gb)
				t[3*lb+1] = e.p.twiddle(layer+1, 2*gb)
				t[3*lb+2] = e.p.twiddle(layer+1, 2*gb+1)
			}
			fwd4Blocks(e.buf[row0*e.s:(row0+rows)*e.s], e.s, t)
			layer += j
			continue
		}
		segs, srcs, tw := st.segs[:1<<j], st.srcs[:1<<j], st.tw[:]
		for k := range blocksHere {
			// Descending, so that a fused fill reads replica 0 before its own
			// block transforms it in place.
			lb := blocksHere - 1 - k
			e.p.groupTwiddles(tw, layer, row0/blockRows+lb, j)
			b0 := row0 + lb*blockRows
			if e.n == e.s {
				c := min(seg, pow2Floor(deepChunkWords/e.s))
				for r0 := 0; r0 < seg; r0 += c {
					for i := range segs {
						row := b0 + i*seg + r0
						segs[i] = e.buf[row*e.s : (row+c)*e.s]
					}
					if fused {
						// Block lb is one replica: its row i·seg + r0 is that
						// message row.
						for i := range srcs {
							k := i*seg + r0
							srcs[i] = e.src.words[k*e.n : (k+c)*e.n]
						}
						radixFrom(segs, srcs, j, tw)
						continue
					}
					radix(segs, j, tw)
				}
				continue
			}
			for r0 := range seg {
				for i := range segs {
					row := b0 + i*seg + r0
					segs[i] = e.buf[row*e.s+e.c0 : (row+1)*e.s]
				}
				radix(segs, j, tw)
			}
		}
		layer += j
	}
	if e.done != nil {
		e.done(row0, row0+rows)
	}
}

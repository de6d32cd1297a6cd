package circuit

import "slices"

// Segments of a large program, for forward walks on several cores. A cut at step p
// splits the code into [.., p) and [p, ..). The registers live at p (written before
// p, read at or after it) are all a walk of [p, ..) needs from before p; their
// values come from the cut's slice: the steps before p (column loads and XORs only)
// on which those registers depend, in program order. Running the slice and then
// [p, ..) in a fresh register file gives the same register values over [p, ..) as
// the whole walk, since every step of the slice reads only values defined by
// earlier slice steps. A walk whose inputs are all known in advance (Bilinear, not
// Solve) can thus run its segments at once, each worker from its own slice.

// segment is one run of the code and the slice that sets up its registers.
type segment struct {
	lo, hi int     // code[lo:hi]
	slice  []instr // the steps before lo that set the registers live at lo
	// cols has bit b set when the segment (its steps or its slice) loads a column
	// of block b, the columns [b·size/64, (b+1)·size/64): a backward walk of it
	// adds to no other column.
	cols uint64
}

// colBlocks is the number of column blocks a segment's cols tells apart.
const colBlocks = 64

// colBlockShift returns log2 of a column block's length for a block of 2^logSize
// columns (one column a block below 2^6).
func colBlockShift(logSize int) uint { return uint(max(0, logSize-6)) }

// setColBlocks sets each segment's cols for a block of 2^logSize columns.
func setColBlocks(code []instr, segs []segment, logSize int) {
	shift := colBlockShift(logSize)
	for k := range segs {
		s := &segs[k]
		for _, part := range [][]instr{code[s.lo:s.hi], s.slice} {
			for _, in := range part {
				if in.op() == opCol {
					s.cols |= 1 << (in.col() >> shift)
				}
			}
		}
	}
}

// minSegmentSteps is the least program length cut into segments.
var minSegmentSteps = 1 << 20

// maxSliceShare bounds a cut's slice, as a share of the segment it sets up.
var maxSliceShare = 0.15

// planSegments cuts code into up to n segments of about equal length at steps whose
// slices are short, trying a few candidate cuts around each even split and keeping
// the one with the shortest slice. It returns nil when the program is too short or
// no candidate's slice is short enough. It costs two passes over the program and a
// walk of each candidate's slice.
func planSegments(code []instr, nregs, n int) []segment {
	if n < 2 || len(code) < minSegmentSteps {
		return nil
	}
	per := len(code) / n
	// Candidate cuts around each even split, in increasing order.
	var cands []int
	for k := 1; k < n; k++ {
		for d := -candidateCuts; d <= candidateCuts; d++ {
			if p := k*per + d*per/16; p > 0 && p < len(code) && (len(cands) == 0 || p > cands[len(cands)-1]) {
				cands = append(cands, p)
			}
		}
	}
	// Forward: the step that last wrote each operand (def[2i], def[2i+1]) and, at
	// each candidate, the step that last wrote each register.
	def := make([]int32, 2*len(code))
	last := make([]int32, nregs)
	for i := range last {
		last[i] = -1
	}
	lastAt := make([][]int32, len(cands))
	next := 0
	for i, in := range code {
		for next < len(cands) && cands[next] == i {
			lastAt[next] = append([]int32(nil), last...)
			next++
		}
		if in.op() != opCol {
			def[2*i], def[2*i+1] = last[in.x()], last[in.y()]
		}
		if in.op() != opRow {
			last[in.dst()] = int32(i)
		}
	}
	// Backward: the registers live at each candidate.
	liveAt := make([][]bool, len(cands))
	live := make([]bool, nregs)
	next = len(cands) - 1
	for i := len(code) - 1; i >= 0 && next >= 0; i-- {
		in := code[i]
		if in.op() != opRow {
			live[in.dst()] = false
		}
		if in.op() != opCol {
			live[in.x()], live[in.y()] = true, true
		}
		for next >= 0 && cands[next] == i {
			liveAt[next] = append([]bool(nil), live...)
			liveAt[next][0] = false // register 0 is the constant zero
			next--
		}
	}
	segs := []segment{{lo: 0}}
	limit := int(maxSliceShare * float64(per))
	seen := make([]uint64, (len(code)+63)/64)
	for k := 1; k < n; k++ {
		best, bestLen := -1, 0
		var bestSlice []instr
		for c, p := range cands {
			if p < k*per-per/2 || p > k*per+per/2 || p <= segs[len(segs)-1].lo {
				continue
			}
			s := sliceOf(code, def, lastAt[c], liveAt[c], limit, seen)
			if s != nil && (best < 0 || len(s) < bestLen) {
				best, bestLen, bestSlice = p, len(s), s
			}
		}
		if best < 0 {
			return nil
		}
		segs[len(segs)-1].hi = best
		segs = append(segs, segment{lo: best, slice: bestSlice})
	}
	segs[len(segs)-1].hi = len(code)
	return segs
}

// candidateCuts is how many candidate cuts are tried on each side of an even split
// (per/16 apart).
const candidateCuts = 1

// sliceOf returns the slice of a cut given, for each register, the step that last
// wrote it before the cut (last) and whether it is live there (live): the steps
// reached from the live registers' writers through their operands' writers, in
// program order; nil when more than limit. seen is an all-zero bitmap over the steps,
// left all zero.
func sliceOf(code []instr, def, last []int32, live []bool, limit int, seen []uint64) []instr {
	var steps []int32
	mark := func(i int32) bool {
		if seen[i/64]>>(i%64)&1 == 1 {
			return false
		}
		seen[i/64] |= 1 << (i % 64)
		steps = append(steps, i)
		return true
	}
	defer func() {
		for _, i := range steps {
			seen[i/64] = 0
		}
	}()
	for r, l := range live {
		if l && last[r] >= 0 {
			mark(last[r])
		}
	}
	for k := 0; k < len(steps); k++ { // steps doubles as the work list
		i := steps[k]
		if code[i].op() != opXor {
			continue
		}
		for _, d := range [2]int32{def[2*i], def[2*i+1]} {
			if d >= 0 && mark(d) && len(steps) > limit {
				return nil
			}
		}
	}
	sorted := slices.Clone(steps)
	slices.Sort(sorted)
	out := make([]instr, len(sorted))
	for k, i := range sorted {
		out[k] = code[i]
	}
	return out
}

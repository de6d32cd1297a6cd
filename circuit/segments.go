package circuit

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
}

// minSegmentSteps is the least program length cut into segments.
var minSegmentSteps = 1 << 20

// maxSliceShare bounds a cut's slice, as a share of the segment it sets up.
var maxSliceShare = 0.15

// planSegments cuts code into up to n segments of about equal length at steps whose
// slices are short, trying a few candidate cuts around each even split and keeping
// the one with the shortest slice. It returns nil when the program is too short or
// no candidate's slice is short enough.
func planSegments(code []instr, nregs, n int) []segment {
	if n < 2 || len(code) < minSegmentSteps {
		return nil
	}
	per := len(code) / n
	// Candidate cuts around each even split, and the registers live at each (one
	// backward pass over the program).
	type cand struct {
		p    int
		live []bool
	}
	var cands [][]cand
	want := map[int]bool{}
	for k := 1; k < n; k++ {
		var cs []cand
		for d := -8; d <= 8; d++ {
			if p := k*per + d*per/64; p > 0 && p < len(code) && !want[p] {
				want[p] = true
				cs = append(cs, cand{p: p})
			}
		}
		cands = append(cands, cs)
	}
	liveAt := map[int][]bool{}
	live := make([]bool, nregs)
	for i := len(code) - 1; i >= 0; i-- {
		in := code[i]
		if in.op() != opRow {
			live[in.dst()] = false
		}
		if in.op() != opCol {
			live[in.x()], live[in.y()] = true, true
		}
		if want[i] {
			l := make([]bool, nregs)
			copy(l, live)
			l[0] = false // register 0 is the constant zero
			liveAt[i] = l
		}
	}
	segs := []segment{{lo: 0}}
	for _, cs := range cands {
		best, bestLen := -1, 0
		var bestSlice []instr
		for _, c := range cs {
			if c.p <= segs[len(segs)-1].lo {
				continue
			}
			s := sliceAt(code, liveAt[c.p], c.p, int(maxSliceShare*float64(per)))
			if s != nil && (best < 0 || len(s) < bestLen) {
				best, bestLen, bestSlice = c.p, len(s), s
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

// sliceAt returns the slice of the cut at p (see the file comment) given the
// registers live there (consumed), or nil when it would be longer than limit steps.
func sliceAt(code []instr, need []bool, p, limit int) []instr {
	n := 0
	for _, l := range need {
		if l {
			n++
		}
	}
	var rev []instr
	for i := p - 1; i >= 0 && n > 0; i-- {
		in := code[i]
		if in.op() == opRow || !need[in.dst()] {
			continue
		}
		need[in.dst()] = false
		n--
		rev = append(rev, in)
		if len(rev) > limit {
			return nil
		}
		if in.op() == opXor {
			for _, r := range [2]uint32{in.x(), in.y()} {
				if r != 0 && !need[r] {
					need[r] = true
					n++
				}
			}
		}
	}
	out := make([]instr, len(rev))
	for i, in := range rev {
		out[len(rev)-1-i] = in
	}
	return out
}

package recursion

import (
	"math/bits"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// Grinding blocks (segment G of docs/recursion.md §4.2): one proof-of-work check of a
// child's transcript. From the chaining value cv at the check, the base is
// Compress(cv, [0, 0, 0, 5]); the nonce's compression Compress(base, [nonce, 6]) must
// have its low QueryGrindingBits bits zero. The block takes cv and the nonce (three
// words) as inputs and materialises those low bits, which the verifier pins to zero;
// cv is pinned to the revealed chaining value and the nonce to the one the transcript
// block absorbs after it.

// GrindLogSize is log2 of a grinding block's columns.
const GrindLogSize = 15

// GrindBlock is the block circuit with its column layout (compiled for a prover on
// first need, described for a verifier, as QueryBlock).
type GrindBlock struct {
	*circuit.Circuit
	blockForms
	CV, Nonce int // input bases: 256 bits, 192 bits
	Low       int // base of the materialised low bits of the nonce compression's word 0
	Bits      int
	nr        bool
}

// Tags of the transcript's grinding compressions (transcript.Step blocks).
const (
	grindBaseTag  = 5
	grindNonceTag = 6
)

const grindName = "recursion-grind"

// NewGrindBlock builds the block for open.QueryGrindingBits bits.
func NewGrindBlock() *GrindBlock {
	gb := grindLayout()
	gb.compile()
	return gb
}

func grindLayout() *GrindBlock {
	gb := &GrindBlock{Bits: open.QueryGrindingBits, CV: 1, Nonce: 1 + 256}
	gb.Low = (gb.Nonce + 192 + 63) &^ 63
	gb.describe(grindName)
	return gb
}

// LogSize is log2 of the block's columns.
func (gb *GrindBlock) LogSize() int { return GrindLogSize }

func (gb *GrindBlock) compile() *circuit.Circuit { return gb.compiled(&gb.Circuit) }

// describe sets the block's forms under its name.
func (gb *GrindBlock) describe(name string) {
	gb.describeForms(name, GrindLogSize, func(ev *circuit.Evaluator) { describeGrind[circuit.EvalWire](ev, gb) },
		func(b *circuit.Builder) { describeGrind[circuit.Wire](b, gb) })
}

func describeGrind[W comparable, B circuit.Ops[W]](b B, gb *GrindBlock) {
	cols := NewCols(gb.CV, 1<<GrindLogSize)
	cv, _ := input[W](b, cols, "cv", 256)
	nonce, _ := input[W](b, cols, "nonce", 192)
	cols.advance(gb.Low + 64)
	word := func(v uint64) []W {
		w := make([]W, 64)
		for i := range w {
			w[i] = circuit.Const(b, uint(v>>i))
		}
		return w
	}
	var m [16]circuit.WordOf[W]
	copy(m[:8], wordsOf(cv))
	blk := append(append(append(word(0), word(0)...), word(0)...), word(grindBaseTag)...)
	copy(m[8:], wordsOf(blk))
	base := compressAt(b, cols, paramIVWords[W](b), m, 64, true)
	copy(m[:8], base[:])
	copy(m[8:], wordsOf(append(append([]W(nil), nonce...), word(grindNonceTag)...)))
	out := compressAt(b, cols, paramIVWords[W](b), m, 64, true)
	low := flatWords(out[:2])
	for i := range gb.Bits {
		circuit.Linear(b, gb.Low+i, low[i])
	}
}

// SetGrind writes lane j's inputs from a grinding check's two steps (the base's, then
// the nonce's, as transcript.Verifier.Trace reports them).
func (gb *GrindBlock) SetGrind(w []uint64, j uint, baseStep, nonceStep transcript.Step) {
	for k, v := range baseStep.In {
		setLane(w, j, gb.CV+64*k, v, 64)
	}
	for k := range 3 {
		setLane(w, j, gb.Nonce+64*k, nonceStep.Block[k], 64)
	}
}

// LowBits reads lane j's materialised low bits (bit i of the result is bit i of the
// nonce compression's first word).
func (gb *GrindBlock) LowBits(w []uint64, j uint) uint64 {
	var v uint64
	for i := range gb.Bits {
		v |= (w[gb.Low+i] >> j & 1) << i
	}
	return v
}

// GrindCheck is one grinding check as the verifier knows it: the chaining value it
// starts from and the nonce (both revealed).
type GrindCheck struct {
	CV    [4]uint64
	Nonce field.E
}

// PinWindow is the window of a grinding block's public term: the chaining value, the
// nonce and the low bits (pinned to zero).
func (gb *GrindBlock) PinWindow() lincheck.Window {
	end := gb.Low + gb.Bits
	log := bits.Len(uint(end - 1))
	w := lincheck.Window{Log: log, Mask: make([]uint64, max(1, (1<<log)/64))}
	for _, r := range [][2]int{{gb.CV, 256}, {gb.Nonce, 192}, {gb.Low, gb.Bits}} {
		for c := r[0]; c < r[0]+r[1]; c++ {
			w.Mask[c/64] |= 1 << (c % 64)
		}
	}
	return w
}

// PinTable is the checks' public table (the low bits' entries are zero).
func (gb *GrindBlock) PinTable(checks []GrindCheck) *lincheck.Table {
	w := gb.PinWindow()
	t := &lincheck.Table{W: w, Rows: make([][]uint64, len(checks))}
	for i, c := range checks {
		row := make([]uint64, len(w.Mask))
		for k, v := range c.CV {
			setBits(row, gb.CV+64*k, v, 64)
		}
		for k, v := range []field.K{c.Nonce.C0, c.Nonce.C1, c.Nonce.C2} {
			setBits(row, gb.Nonce+64*k, uint64(v), 64)
		}
		t.Rows[i] = row
	}
	return t
}

// GrindSegment is the prover's segment of a child's grinding checks (the trace's
// pairs of steps, base then nonce).
func (gb *GrindBlock) GrindSegment(steps []transcript.Step) flows.Segment {
	w := gb.PinWindow()
	n := len(steps) / 2
	return flows.Segment{Circuit: gb.compile(), N: n, Public: &w,
		Fill: fillSlots(gb.compile(), n, func(v []uint64, lane uint, s int) error {
			gb.SetGrind(v, lane, steps[2*s], steps[2*s+1])
			return nil
		})}
}

// GrindShape is the verifier's view of the same segment.
func (gb *GrindBlock) GrindShape(checks []GrindCheck) flows.SegmentShape {
	return flows.SegmentShape{Circuit: gb.Matrices(), N: len(checks), Public: gb.PinTable(checks)}
}

// NewGrindBlockNR builds the grinding block without reveal (docs/recursion.md §6.4):
// the same check with the chaining value and the nonce on whole words (from column
// 64), tied by relations to the transcript blocks; its public term pins only the low
// bits (zero).
func NewGrindBlockNR() *GrindBlock {
	gb := grindLayoutNR()
	gb.compile()
	return gb
}

const grindNameNR = "recursion-grind-nr"

func grindLayoutNR() *GrindBlock {
	gb := &GrindBlock{Bits: open.QueryGrindingBits, CV: 64, Nonce: 64 + 256}
	gb.Low = (gb.Nonce + 192 + 63) &^ 63
	gb.nr = true
	gb.describe(grindNameNR)
	return gb
}

// NRWindow is the no-reveal block's public window: the low bits only.
func (gb *GrindBlock) NRWindow() lincheck.Window {
	end := gb.Low + gb.Bits
	log := bits.Len(uint(end - 1))
	w := lincheck.Window{Log: log, Mask: make([]uint64, max(1, (1<<log)/64))}
	for c := gb.Low; c < end; c++ {
		w.Mask[c/64] |= 1 << (c % 64)
	}
	return w
}

// NRSegment and NRShape are the no-reveal segment of a child's grinding checks (the
// trace's pairs of steps) and the verifier's view of n checks (its table all zero).
func (gb *GrindBlock) NRSegment(steps []transcript.Step) flows.Segment {
	seg := gb.GrindSegment(steps)
	w := gb.NRWindow()
	seg.Public = &w
	return seg
}

func (gb *GrindBlock) NRShape(n int) flows.SegmentShape {
	w := gb.NRWindow()
	t := &lincheck.Table{W: w, Rows: make([][]uint64, n)}
	for i := range t.Rows {
		t.Rows[i] = make([]uint64, len(w.Mask))
	}
	return flows.SegmentShape{Circuit: gb.Matrices(), N: n, Public: t}
}

// Word is the column word of in-block column col (a multiple of 64) of slot slot.
func (gb *GrindBlock) Word(slot, col int) int { return slot<<(GrindLogSize-6) + col/64 }

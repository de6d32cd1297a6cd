package recursion

import (
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Transcript blocks (segment T of docs/recursion.md §4.2): a run of a child's
// Fiat–Shamir duplex steps, each one BLAKE2s compression of the chaining value and a
// 32-byte block (three data words and a domain tag: transcript.Compress). A block
// takes the chaining value it starts from and every step's data and tag as inputs and
// materialises the chaining value after every step; the verifier pins the first
// input and the last output to the revealed boundary values, the tags to the child's
// transcript schedule, and the squeezed outputs to the revealed challenges.

// TranscriptSteps is the number of duplex steps in one transcript block.
const TranscriptSteps = 16

// TranscriptLogSize is log2 of a transcript block's columns.
const TranscriptLogSize = 18

// TranscriptBlock is the block circuit with its column layout (compiled for a
// prover on first need, described for a verifier, as QueryBlock).
type TranscriptBlock struct {
	*circuit.Circuit
	blockForms
	// Input bases: per step its 4 words (three data words and the tag: 256 bits, from
	// column 64), the starting chaining value (256 bits, word 0 low first), the steps'
	// squeeze flags (one bit each) and their claimed challenges (192 bits each).
	CV, Data, Squeeze, Challenge int
	// Out is the base of the TranscriptSteps materialised chaining values (256 bits
	// each); ZeroOut and ZeroData the bases of the per-step checks that must be zero:
	// flag·(output words 0..2 + claimed challenge) and flag·(data words 0..2).
	Out, ZeroOut, ZeroData int
}

const transcriptName = "recursion-transcript"

// NewTranscriptBlock builds the block.
func NewTranscriptBlock() *TranscriptBlock {
	tb := transcriptLayout()
	tb.compile()
	return tb
}

// transcriptLayout computes the layout (no rows). The steps' data start on a word
// (column 64), so that a step's three data words are three packed words of the
// block: linear claims on the child's stream read them there (ChildStream,
// StreamChecks.LinearClaims); the outputs start on a word too (the chaining values
// at grinding checks are read there).
func transcriptLayout() *TranscriptBlock {
	tb := &TranscriptBlock{Data: 64}
	tb.CV = tb.Data + 256*TranscriptSteps
	tb.Squeeze = tb.CV + 256
	tb.Challenge = tb.Squeeze + TranscriptSteps
	tb.Out = (tb.Challenge + 192*TranscriptSteps + 63) &^ 63
	tb.ZeroOut = tb.Out + 256*TranscriptSteps
	tb.ZeroData = tb.ZeroOut + 192*TranscriptSteps
	tb.describeForms(transcriptName, TranscriptLogSize, func(ev *circuit.Evaluator) { describeTranscript[circuit.EvalWire](ev, tb) },
		func(b *circuit.Builder) { describeTranscript[circuit.Wire](b, tb) })
	return tb
}

// LogSize is log2 of the block's columns.
func (tb *TranscriptBlock) LogSize() int { return TranscriptLogSize }

func (tb *TranscriptBlock) compile() *circuit.Circuit { return tb.compiled(&tb.Circuit) }

// describeTranscript emits the block's rows on any backend and returns the product
// rows' count.
func describeTranscript[W comparable, B circuit.Ops[W]](b B, tb *TranscriptBlock) int {
	cols := NewCols(tb.Data, 1<<TranscriptLogSize)
	data, _ := input[W](b, cols, "data", 256*TranscriptSteps)
	cv, _ := input[W](b, cols, "cv", 256)
	sq, _ := input[W](b, cols, "squeeze", TranscriptSteps)
	ch, _ := input[W](b, cols, "challenge", 192*TranscriptSteps)
	rowsStart := tb.ZeroData + 192*TranscriptSteps
	cols.advance(rowsStart)
	for s := range TranscriptSteps {
		var m [16]circuit.WordOf[W]
		copy(m[:8], wordsOf(cv))
		copy(m[8:], wordsOf(data[256*s:256*s+256]))
		h := compressAt(b, cols, paramIVWords[W](b), m, 64, true)
		out := flatWords(h[:])
		next := make([]W, 256)
		for i, w := range out {
			next[i] = circuit.Linear(b, tb.Out+256*s+i, w)
		}
		// A squeeze step absorbs zeros and its output's first three words are the
		// challenge: both checked only where the flag is set.
		for i := range 192 {
			b.Row(tb.ZeroOut+192*s+i, sq[s], b.Xor(next[i], ch[192*s+i]))
			b.Row(tb.ZeroData+192*s+i, sq[s], data[256*s+i])
		}
		cv = next
	}
	if cols.Next() > 1<<TranscriptLogSize {
		panic(fmt.Sprintf("recursion: transcript block needs %d columns", cols.Next()))
	}
	return cols.Next() - rowsStart + (256+2*192)*TranscriptSteps
}

// SetTranscript writes lane j's inputs for run r: its starting chaining value, its
// steps' blocks, squeeze flags and challenges.
func (tb *TranscriptBlock) SetTranscript(w []uint64, j uint, r *TranscriptRun) {
	set := func(base int, v uint64, n int) { setLane(w, j, base, v, n) }
	for k, v := range r.CV {
		set(tb.CV+64*k, v, 64)
	}
	for s := range TranscriptSteps {
		for k, v := range r.Blocks[s] {
			set(tb.Data+256*s+64*k, v, 64)
		}
		if r.Squeeze[s] {
			set(tb.Squeeze+s, 1, 1)
			for k := range 3 {
				set(tb.Challenge+192*s+64*k, r.Outs[s][k], 64)
			}
		}
	}
}

// ChainingValues reads lane j's materialised chaining values.
func (tb *TranscriptBlock) ChainingValues(w []uint64, j uint) [TranscriptSteps][4]uint64 {
	var out [TranscriptSteps][4]uint64
	for s := range out {
		for k := range 4 {
			var v uint64
			base := tb.Out + 256*s + 64*k
			for i := range 64 {
				v |= (w[base+i] >> j & 1) << i
			}
			out[s][k] = v
		}
	}
	return out
}

// TranscriptRun is one block's worth of a child's transcript: the chaining value it
// starts from, its steps' blocks and outputs, and which steps squeeze a challenge
// (the last block of a chain continues with zero blocks past Steps).
type TranscriptRun struct {
	CV      [4]uint64
	Blocks  [TranscriptSteps][4]uint64
	Outs    [TranscriptSteps][4]uint64
	Squeeze [TranscriptSteps]bool
	Steps   int // real steps in the run
}

// squeezeBlock is the block a transcript squeeze absorbs: zeros and its tag.
var squeezeBlock = [4]uint64{0, 0, 0, 4}

// TranscriptRuns cuts a chain of on-chain steps into blocks of TranscriptSteps.
func TranscriptRuns(chain []transcript.Step) []TranscriptRun {
	var runs []TranscriptRun
	for lo := 0; lo < len(chain); lo += TranscriptSteps {
		r := TranscriptRun{CV: chain[lo].In, Steps: min(TranscriptSteps, len(chain)-lo)}
		cv := r.CV
		for i := range TranscriptSteps {
			if i < r.Steps {
				r.Blocks[i] = chain[lo+i].Block
				r.Squeeze[i] = r.Blocks[i] == squeezeBlock
			}
			cv = transcript.Compress(cv, r.Blocks[i])
			r.Outs[i] = cv
		}
		runs = append(runs, r)
	}
	return runs
}

// PinWindow is the window of a transcript block's public term: the starting chaining
// value, every step's tag, squeeze flag and claimed challenge, the last chaining value,
// and the zero checks.
func (tb *TranscriptBlock) PinWindow() lincheck.Window {
	end := tb.ZeroData + 192*TranscriptSteps
	log := bits.Len(uint(end - 1))
	w := lincheck.Window{Log: log, Mask: make([]uint64, (1<<log)/64)}
	pin := func(base, n int) {
		for c := base; c < base+n; c++ {
			w.Mask[c/64] |= 1 << (c % 64)
		}
	}
	pin(tb.CV, 256)
	for s := range TranscriptSteps {
		pin(tb.Data+256*s+192, 64)
	}
	pin(tb.Squeeze, TranscriptSteps)
	pin(tb.Challenge, 192*TranscriptSteps)
	pin(tb.Out+256*(TranscriptSteps-1), 256)
	pin(tb.ZeroOut, 2*192*TranscriptSteps)
	return w
}

// PinTable is the table the verifier builds from what it knows of each run: where
// it starts and ends (revealed boundary chaining values), the transcript's schedule
// (tags and squeeze positions) and the revealed challenges.
func (tb *TranscriptBlock) PinTable(runs []TranscriptRun) *lincheck.Table {
	win := tb.PinWindow()
	t := &lincheck.Table{W: win, Rows: make([][]uint64, len(runs))}
	for i := range runs {
		r := &runs[i]
		row := make([]uint64, len(win.Mask))
		set := func(base int, v uint64, n int) { setBits(row, base, v, n) }
		for k, v := range r.CV {
			set(tb.CV+64*k, v, 64)
		}
		for s := range TranscriptSteps {
			set(tb.Data+256*s+192, r.Blocks[s][3], 64)
			if r.Squeeze[s] {
				set(tb.Squeeze+s, 1, 1)
				for k := range 3 {
					set(tb.Challenge+192*s+64*k, r.Outs[s][k], 64)
				}
			}
		}
		for k, v := range r.Outs[TranscriptSteps-1] {
			set(tb.Out+256*(TranscriptSteps-1)+64*k, v, 64)
		}
		t.Rows[i] = row
	}
	return t
}

// TranscriptSegment is the prover's segment of a child's transcript runs.
func (tb *TranscriptBlock) TranscriptSegment(runs []TranscriptRun) flows.Segment {
	w := tb.PinWindow()
	return flows.Segment{Circuit: tb.compile(), N: len(runs), Public: &w,
		Fill: fillSlots(tb.compile(), len(runs), func(v []uint64, lane uint, s int) error {
			tb.SetTranscript(v, lane, &runs[s])
			return nil
		})}
}

// TranscriptShape is the verifier's view of the same segment, its table built from
// what the verifier knows of the runs (boundaries, schedule, challenges).
func (tb *TranscriptBlock) TranscriptShape(runs []TranscriptRun) flows.SegmentShape {
	return flows.SegmentShape{Circuit: tb.Matrices(), N: len(runs), Public: tb.PinTable(runs)}
}

// ScheduleWindow is the window of a transcript block's public term when nothing of
// the child is revealed (docs/recursion.md §6.4): every step's tag and squeeze flag,
// and the zero checks. The chaining values at the block's ends are tied by relations
// (ChainRelations) and the challenges are read from the outputs.
func (tb *TranscriptBlock) ScheduleWindow() lincheck.Window {
	end := tb.ZeroData + 192*TranscriptSteps
	log := bits.Len(uint(end - 1))
	w := lincheck.Window{Log: log, Mask: make([]uint64, (1<<log)/64)}
	pin := func(base, n int) {
		for c := base; c < base+n; c++ {
			w.Mask[c/64] |= 1 << (c % 64)
		}
	}
	for s := range TranscriptSteps {
		pin(tb.Data+256*s+192, 64)
	}
	pin(tb.Squeeze, TranscriptSteps)
	pin(tb.ZeroOut, 2*192*TranscriptSteps)
	return w
}

// ScheduleTable is ScheduleWindow's table for a child's on-chain steps, TranscriptSteps
// to a run (the last run's steps past the end absorb zero blocks, tag 0).
func (tb *TranscriptBlock) ScheduleTable(steps []TapeStep) *lincheck.Table {
	win := tb.ScheduleWindow()
	n := (len(steps) + TranscriptSteps - 1) / TranscriptSteps
	t := &lincheck.Table{W: win, Rows: make([][]uint64, n)}
	for r := range t.Rows {
		row := make([]uint64, len(win.Mask))
		for s := range TranscriptSteps {
			if i := TranscriptSteps*r + s; i < len(steps) {
				setBits(row, tb.Data+256*s+192, steps[i].Tag, 64)
				if steps[i].Kind == StepSqueeze {
					setBits(row, tb.Squeeze+s, 1, 1)
				}
			}
		}
		t.Rows[r] = row
	}
	return t
}

// ScheduleSegment is the prover's segment of a child's transcript runs under
// ScheduleWindow.
func (tb *TranscriptBlock) ScheduleSegment(runs []TranscriptRun) flows.Segment {
	seg := tb.TranscriptSegment(runs)
	w := tb.ScheduleWindow()
	seg.Public = &w
	return seg
}

// ScheduleShape is the verifier's view of it.
func (tb *TranscriptBlock) ScheduleShape(steps []TapeStep) flows.SegmentShape {
	t := tb.ScheduleTable(steps)
	return flows.SegmentShape{Circuit: tb.Matrices(), N: len(t.Rows), Public: t}
}

// ChainRelations tie a child's runs (segment seg, slots runOffset to runOffset+runs)
// into one chain: the first starts at start (the chaining value after the child's
// label), each other at the last chaining value of the one before.
func (tb *TranscriptBlock) ChainRelations(seg, runOffset, runs int, start [4]uint64) []flows.Relation {
	wordBits := TranscriptLogSize - 6
	cv := func(r, k int) int { return tb.CV/64 + k + (runOffset+r)<<wordBits }
	last := func(r, k int) int { return (tb.Out+256*(TranscriptSteps-1))/64 + k + (runOffset+r)<<wordBits }
	var out []flows.Relation
	for k, v := range start {
		out = append(out, flows.Relation{Value: field.FromK(field.K(v)), Terms: []flows.RelationTerm{{Segment: seg, Word: cv(0, k), Coeff: field.One}}})
	}
	for r := 1; r < runs; r++ {
		for k := range 4 {
			out = append(out, flows.Relation{Terms: []flows.RelationTerm{
				{Segment: seg, Word: last(r-1, k), Coeff: field.One}, {Segment: seg, Word: cv(r, k), Coeff: field.One}}})
		}
	}
	return out
}

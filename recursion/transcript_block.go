package recursion

import (
	"fmt"

	"github.com/leanpipe/leanpipe/circuit"
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

// TranscriptBlock is the compiled block with its column layout.
type TranscriptBlock struct {
	*circuit.Circuit
	// Input bases: the starting chaining value (256 bits, word 0 low first), then per
	// step its 4 words (three data words and the tag: 256 bits).
	CV, Data int
	// Out is the base of the TranscriptSteps materialised chaining values (256 bits each).
	Out  int
	Rows int
}

// NewTranscriptBlock builds the block.
func NewTranscriptBlock() *TranscriptBlock {
	b := circuit.NewBuilder("recursion-transcript", TranscriptLogSize, 0)
	cols := NewCols(1, 1<<TranscriptLogSize)
	tb := &TranscriptBlock{}
	input := func(name string, n int) []circuit.Wire {
		base := cols.Next()
		cols.next += n
		b.Input(name, base, n)
		w := make([]circuit.Wire, n)
		for i := range w {
			w[i] = b.Col(base + i)
		}
		return w
	}
	tb.CV = cols.Next()
	cv := input("cv", 256)
	tb.Data = cols.Next()
	data := input("data", 256*TranscriptSteps)
	start := cols.Next()
	tb.Out = start
	// The outputs are materialised as they are made: the next step reads the columns,
	// so no linear form outlives one step.
	outs := make([][]circuit.Wire, TranscriptSteps)
	next := start
	rowsStart := start + 256*TranscriptSteps
	cols.advance(rowsStart)
	for s := range TranscriptSteps {
		var m [16]circuit.Word
		copy(m[:8], wordsOf(cv))
		copy(m[8:], wordsOf(data[256*s:256*s+256]))
		h := compressAt(b, cols, paramIVWords(b), m, 64, true)
		out := flatWords(h[:])
		outs[s] = make([]circuit.Wire, 256)
		for i, w := range out {
			outs[s][i] = b.Linear(next+i, w)
		}
		next += 256
		cv = outs[s]
	}
	tb.Rows = cols.Next() - rowsStart + 256*TranscriptSteps
	if cols.Next() > 1<<TranscriptLogSize {
		panic(fmt.Sprintf("recursion: transcript block needs %d columns", cols.Next()))
	}
	tb.Circuit = b.Compile()
	return tb
}

// SetTranscript writes lane j's inputs: the starting chaining value and per step the
// 4-word block (three data words, then the tag), as transcript.Compress takes them.
func (tb *TranscriptBlock) SetTranscript(w []uint64, j uint, cv [4]uint64, blocks [TranscriptSteps][4]uint64) {
	set := func(base int, v uint64) {
		for i := range 64 {
			w[base+i] |= (v >> i & 1) << j
		}
	}
	for k, v := range cv {
		set(tb.CV+64*k, v)
	}
	for s, blk := range blocks {
		for k, v := range blk {
			set(tb.Data+256*s+64*k, v)
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

// TranscriptRun is one block's inputs: the chaining value it starts from and its
// steps' blocks (the last block of a chain continues with zero blocks, which the
// verifier leaves unpinned).
type TranscriptRun struct {
	CV     [4]uint64
	Blocks [TranscriptSteps][4]uint64
	Steps  int // real steps in the run
}

// TranscriptRuns cuts a chain of on-chain steps into blocks of TranscriptSteps.
func TranscriptRuns(chain []transcript.Step) []TranscriptRun {
	var runs []TranscriptRun
	for lo := 0; lo < len(chain); lo += TranscriptSteps {
		r := TranscriptRun{CV: chain[lo].In, Steps: min(TranscriptSteps, len(chain)-lo)}
		for i := range r.Steps {
			r.Blocks[i] = chain[lo+i].Block
		}
		runs = append(runs, r)
	}
	return runs
}

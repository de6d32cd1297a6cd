package recursion

import (
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

var testTranscriptBlock = sync.OnceValue(NewTranscriptBlock)

func TestTranscriptBlock(t *testing.T) {
	tb := testTranscriptBlock()
	r := testrand.New(t)
	w := make([]uint64, tb.Size())
	w[tb.ConstCol()] = ^uint64(0)
	type lane struct {
		cv     [4]uint64
		blocks [TranscriptSteps][4]uint64
	}
	lanes := make([]lane, 64)
	for j := range lanes {
		for k := range lanes[j].cv {
			lanes[j].cv[k] = r.Uint64()
		}
		for s := range lanes[j].blocks {
			for k := range 3 {
				lanes[j].blocks[s][k] = r.Uint64()
			}
			lanes[j].blocks[s][3] = uint64(1 + r.IntN(6)) // a domain tag
		}
		tb.SetTranscript(w, uint(j), lanes[j].cv, lanes[j].blocks)
	}
	tb.Solve(w, nil, nil)
	if row := tb.Satisfied(w); row >= 0 {
		t.Fatalf("row %d violated", row)
	}
	for j, l := range lanes {
		got := tb.ChainingValues(w, uint(j))
		cv := l.cv
		for s := range TranscriptSteps {
			cv = transcript.Compress(cv, l.blocks[s])
			if got[s] != cv {
				t.Fatalf("lane %d step %d: %x, want %x", j, s, got[s], cv)
			}
		}
	}
	// A flipped bit of a step's chaining value violates its row.
	w[tb.Out+256*3+17] ^= 1 << 9
	if tb.Satisfied(w) < 0 {
		t.Fatal("a flipped chaining-value bit satisfied every row")
	}
	t.Logf("%d steps: %d product rows, %d inputs, of 2^%d columns", TranscriptSteps, tb.Rows, len(tb.Inputs()), TranscriptLogSize)
}

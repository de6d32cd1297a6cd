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

// TestTranscriptBlocksReplayChild: a real child's transcript, cut into blocks, is
// reproduced by the block circuit step by step, and the steps account for every
// compression its verifier ran.
func TestTranscriptBlocksReplayChild(t *testing.T) {
	p := proveChild(t, 4, 2, 31)
	v, err := ChildValuesOf(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	chain, grind, err := ChildTrace(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Measure(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(chain)+len(grind), l.TranscriptTotal-l.TranscriptConstant; got != want {
		t.Fatalf("%d steps traced, the ledger counts %d", got, want)
	}
	if len(grind) != 2*len(l.Levels) {
		t.Fatalf("%d grinding steps for %d levels", len(grind), len(l.Levels))
	}
	runs := TranscriptRuns(chain)
	tb := testTranscriptBlock()
	w := make([]uint64, tb.Size())
	for lo := 0; lo < len(runs); lo += 64 {
		clear(w)
		w[tb.ConstCol()] = ^uint64(0)
		hi := min(len(runs), lo+64)
		for j := lo; j < hi; j++ {
			tb.SetTranscript(w, uint(j-lo), runs[j].CV, runs[j].Blocks)
		}
		tb.Solve(w, nil, nil)
		for j := lo; j < hi; j++ {
			got := tb.ChainingValues(w, uint(j-lo))
			for i := range runs[j].Steps {
				if want := chain[TranscriptSteps*j+i].Out; got[i] != want {
					t.Fatalf("run %d step %d: %x, want %x", j, i, got[i], want)
				}
			}
		}
	}
	t.Logf("%d on-chain steps in %d blocks, %d grinding steps", len(chain), len(runs), len(grind))
}

package recursion

import (
	"slices"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"

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
		tb.SetTranscript(w, uint(j), &TranscriptRun{CV: lanes[j].cv, Blocks: lanes[j].blocks, Steps: TranscriptSteps})
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
	t.Logf("%d steps: %d rows (inputs and the constant included), %d inputs, of 2^%d columns", TranscriptSteps, tb.NumRows(), len(tb.Inputs()), TranscriptLogSize)
}

// TestTranscriptBlocksReplayChild: a real child's transcript, cut into blocks, is
// reproduced by the block circuit step by step, and the steps account for every
// compression its verifier ran.
func TestTranscriptBlocksReplayChild(t *testing.T) {
	p, v := childWithValues(t, 4, 2, 31)
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
			tb.SetTranscript(w, uint(j-lo), &runs[j])
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
	// Every zero check of a real child's blocks is zero: squeezes absorb zeros and
	// their outputs are the challenges the runs carry.
	for lo := 0; lo < len(runs); lo += 64 {
		clear(w)
		w[tb.ConstCol()] = ^uint64(0)
		hi := min(len(runs), lo+64)
		for j := lo; j < hi; j++ {
			tb.SetTranscript(w, uint(j-lo), &runs[j])
		}
		tb.Solve(w, nil, nil)
		for c := tb.ZeroOut; c < tb.ZeroData+192*TranscriptSteps; c++ {
			if w[c] != 0 {
				t.Fatalf("zero check column %d is %x", c, w[c])
			}
		}
	}
	squeezes := 0
	for _, r := range runs {
		for s := range r.Steps {
			if r.Squeeze[s] {
				squeezes++
			}
		}
	}
	if squeezes == 0 {
		t.Fatal("no squeeze steps found in a child's transcript")
	}
	t.Logf("%d on-chain steps (%d squeezes) in %d blocks, %d grinding steps", len(chain), squeezes, len(runs), len(grind))
}

// TestTranscriptSegmentPinned proves a real child's transcript as a segment of
// transcript blocks pinned to its boundaries, schedule and challenges. Another
// challenge in the verifier's table, a squeeze that absorbs data, a claimed
// challenge that is not the step's output, or runs out of order, are rejected.
func TestTranscriptSegmentPinned(t *testing.T) {
	skipProofs(t, "proves a child's transcript blocks (2^23 columns)")
	p, v := childWithValues(t, 4, 2, 71)
	chain, _, err := ChildTrace(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	runs := TranscriptRuns(chain)
	tb := testTranscriptBlock()
	const label = "recursion-transcript-segment"
	prove := func(rs []TranscriptRun) *transcript.Proof {
		pr, err := flows.ProveSegments(label, nil, []flows.Segment{tb.TranscriptSegment(rs)}, nil, 2, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	verify := func(pr *transcript.Proof, rs []TranscriptRun) error {
		_, err := flows.VerifySegments(pr, label, nil, []flows.SegmentShape{tb.TranscriptShape(rs)}, nil, 2)
		return err
	}
	honest := prove(runs)
	if err := verify(honest, runs); err != nil {
		t.Fatal(err)
	}
	// The first run after the first with a squeeze, and its first squeeze step.
	k, at := -1, -1
	for i := 1; i < len(runs) && k < 0; i++ {
		if at = slices.Index(runs[i].Squeeze[:], true); at >= 0 {
			k = i
		}
	}
	if k < 0 {
		t.Fatal("no squeeze after the first run")
	}
	copyRuns := func() []TranscriptRun { return append([]TranscriptRun(nil), runs...) }
	// Another revealed challenge.
	other := copyRuns()
	other[k].Outs[at][1] ^= 1
	if err := verify(honest, other); err == nil {
		t.Fatal("another revealed challenge verified")
	}
	// A prover whose squeeze absorbs data (a ground challenge): the chain from there
	// is recomputed honestly, so only the zero checks and the pins stand in the way.
	ground := copyRuns()
	r := &ground[k]
	r.Blocks[at][0] = 12345
	cv := r.CV
	for s := range TranscriptSteps {
		cv = transcript.Compress(cv, r.Blocks[s])
		r.Outs[s] = cv
	}
	if err := verify(prove(ground), runs); err == nil {
		t.Fatal("a squeeze absorbing data verified against the true schedule and challenges")
	}
	if err := verify(prove(ground), ground); err == nil {
		t.Fatal("a squeeze absorbing data verified against its own challenges")
	}
	// Runs out of order.
	swapped := copyRuns()
	swapped[1], swapped[2] = swapped[2], swapped[1]
	if err := verify(honest, swapped); err == nil {
		t.Fatal("runs out of order verified")
	}
	t.Logf("%d runs, proof %d bytes", len(runs), len(honest.MarshalWire()))
}

package open

import (
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// panickyOpen is a prover transcript whose Merkle opening panics.
type panickyOpen struct{ *transcript.Prover }

func (panickyOpen) Open(*merkle.Tree, []int) [][]uint64 { panic("open: injected") }

// The Merkle openings run on a goroutine of their own beside the query weight
// table: a panic there comes back as the proof's *par.PanicError, at every worker
// count, and the process lives on.
func TestOpenPanicIsAnError(t *testing.T) {
	rng := testrand.New(t)
	in := newInstance(rng, 16, 1, 14, 1)
	for _, workers := range []int{1, 2} {
		c, err := commit.Commit(in.committed(), in.stackLog, in.rate, par.New(nil, workers))
		if err != nil {
			t.Fatal(err)
		}
		tr := panickyOpen{transcript.NewProver(testLabel, nil)}
		err = ProveStacked(tr, c, in.place, in.ring(true), in.points, par.New(nil, workers))
		var pe *par.PanicError
		if !errors.As(err, &pe) || pe.Value != "open: injected" {
			t.Fatalf("workers %d: got %v, want the injected panic as a *par.PanicError", workers, err)
		}
	}
}

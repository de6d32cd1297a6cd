package open

import (
	"context"

	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/stages/commit"
)

// Job is the opening stage's input: the proof transcript (positioned after the ring
// switch), the level-0 commitment, where the ring claim's variables sit in the stack,
// the ring claim, any extra point claims, and optionally a Scratch to reuse (its
// Config, when set, must be the commitment's; nil derives it).
type Job struct {
	Transcript ProverTranscript
	Commitment *commit.Committed
	Placement  Placement
	Ring       RingClaim
	Points     []PointClaim
	Scratch    *Scratch
}

// Opened is the opening stage's output: the transcript now holds the whole proof.
type Opened struct{}

// NewStage returns the graph stage "open": the stacked WHIR opening
// (Scratch.ProveStacked) on the granted workers.
func NewStage() graph.Stage[Job, Opened] {
	return graph.Stage[Job, Opened]{
		Name:       "open",
		MinWorkers: 1,
		Run: func(_ context.Context, w graph.Workers, j Job) (Opened, error) {
			s := j.Scratch
			if s == nil {
				s = new(Scratch)
			}
			return Opened{}, s.ProveStacked(j.Transcript, j.Commitment, j.Placement, j.Ring, j.Points, w)
		},
	}
}

package zerocheck

import (
	"context"

	"github.com/leanpipe/leanpipe/graph"
)

// Job is the zerocheck stage's input: the proof transcript (positioned after the
// commitment), the input vectors and optional reusable buffers.
type Job struct {
	Transcript ProverTranscript
	Input      Input
	Buffers    *Buffers
}

// NewStage returns the graph stage that runs ProveWith with the granted worker count.
func NewStage() graph.Stage[Job, Result] {
	return graph.Stage[Job, Result]{
		Name:       "zerocheck",
		MinWorkers: 1,
		Run: func(_ context.Context, w graph.Workers, j Job) (Result, error) {
			return ProveWith(j.Transcript, j.Input, w, j.Buffers)
		},
	}
}

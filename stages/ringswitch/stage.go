package ringswitch

import (
	"context"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
)

// Job is the ring switch stage's input: the proof transcript (positioned after the
// lincheck's slice values), the lincheck's point and 64 slice values, the buffer for
// the dense ring weight (2^len(Point) entries; nil allocates) and optionally a
// Scratch to reuse.
type Job struct {
	Transcript Transcript
	Point, S   []field.E
	Weights    []field.E
	Scratch    *Scratch
}

// NewStage returns the graph stage "ringswitch": Prove on the granted workers.
func NewStage() graph.Stage[Job, Claim] {
	return graph.Stage[Job, Claim]{
		Name:       "ringswitch",
		MinWorkers: 1,
		Run: func(_ context.Context, w graph.Workers, j Job) (Claim, error) {
			s := j.Scratch
			if s == nil {
				s = new(Scratch)
			}
			c := s.Prove(j.Transcript, j.Point, j.S, j.Weights, w)
			return c, nil // a worker failure fails the stage in the graph
		},
	}
}

package lincheck

import (
	"context"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
)

// Job is the lincheck stage's input: the proof transcript (positioned after the
// zerocheck), the circuit, the packed witness q with its live slot count, the
// zerocheck's claims and optionally a Scratch to reuse (nil allocates).
type Job struct {
	Transcript ProverTranscript
	Circuit    Circuit
	Q          []field.K
	Live       int
	Claims     ZerocheckClaims
	// Public is the public-input term's window (nil: none; see ProvePublic).
	Public  *Window
	Scratch *Scratch
}

// NewStage returns the graph stage "lincheck": Prove on the granted workers. The
// Claim's slices belong to the Scratch when one is given (valid until its next use).
func NewStage() graph.Stage[Job, Claim] {
	return graph.Stage[Job, Claim]{
		Name:       "lincheck",
		MinWorkers: 1,
		Run: func(_ context.Context, w graph.Workers, j Job) (Claim, error) {
			s := j.Scratch
			if s == nil {
				s = new(Scratch)
			}
			c := s.ProvePublic(j.Transcript, j.Circuit, j.Q, j.Live, j.Claims, j.Public, w)
			return c, nil // a worker failure fails the stage in the graph
		},
	}
}

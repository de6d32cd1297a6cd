package commit

import (
	"context"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
)

// Job is the commit stage's input: the stack (its leading lane blocks, see
// Committed.Stack), its shape, and optionally a Committed to reuse (nil allocates;
// its Plans are kept).
type Job struct {
	Stack      []field.K
	StackLog   int
	LogInvRate int
	Into       *Committed
}

// NewStage returns the graph stage "commit": CommitInto on the granted workers. It
// returns Into (or a new Committed), also alongside an error so that a reused
// Committed can be handed back; the flow sends the root on its transcript.
func NewStage() graph.Stage[Job, *Committed] {
	return graph.Stage[Job, *Committed]{
		Name:       "commit",
		MinWorkers: 1,
		Run: func(_ context.Context, w graph.Workers, j Job) (*Committed, error) {
			c := j.Into
			if c == nil {
				c = new(Committed)
			}
			return c, CommitInto(c, j.Stack, j.StackLog, j.LogInvRate, w)
		},
	}
}

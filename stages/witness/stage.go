package witness

import (
	"context"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
)

// Job is the witness stage's input: the compressions and the caller-owned buffers
// to fill (each at least Words(NLog(len(Blocks))) words; A and B may be nil).
type Job struct {
	Blocks  []Compression
	W, A, B []field.K
}

// Batch is the witness stage's output: the filled buffers (the same slices as the
// Job's, cut to Words(NLog)) and the batch shape.
type Batch struct {
	N, NLog int
	W, A, B []field.K
}

// NewStage returns the graph stage that runs FillAB with the granted worker count.
func NewStage() graph.Stage[Job, Batch] {
	return graph.Stage[Job, Batch]{
		Name:       "witness",
		MinWorkers: 1,
		Run: func(ctx context.Context, w graph.Workers, in Job) (Batch, error) {
			if len(in.Blocks) == 0 {
				return Batch{}, ErrNoBlocks
			}
			nLog := NLog(len(in.Blocks))
			if err := FillAB(in.W, in.A, in.B, in.Blocks, nLog, w); err != nil {
				return Batch{}, err
			}
			n := Words(nLog)
			cut := func(s []field.K) []field.K {
				if s == nil {
					return nil
				}
				return s[:n]
			}
			return Batch{N: len(in.Blocks), NLog: nLog, W: cut(in.W), A: cut(in.A), B: cut(in.B)}, nil
		},
	}
}

package witness

import (
	"context"
	"errors"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/par"
)

// Writer writes the packed witness of 2^nLog instance slots and its packed A0·w and
// B0·w rows into wit, a and b (a and b may be nil). The bytes written must not depend
// on the workers.
type Writer func(w par.Workers, nLog int, wit, a, b []field.K) error

// Compressions is the Writer of a batch of BLAKE2s compressions (FillAB).
func Compressions(blocks []Compression) Writer {
	return func(w par.Workers, nLog int, wit, a, b []field.K) error {
		return FillAB(wit, a, b, blocks, nLog, w)
	}
}

// ErrNoWriter reports a witness job without a Writer.
var ErrNoWriter = errors.New("witness: job has no writer")

// Job is the witness stage's input: N live instances in 2^NLog slots, the writer of
// their witness, and the caller-owned buffers to fill, each exactly the packed
// witness's length for the writer's circuit (Words(NLog) for BLAKE2s; A and B may be
// nil).
type Job struct {
	N, NLog int
	Write   Writer
	W, A, B []field.K
}

// Batch is the witness stage's output: the filled buffers (the Job's slices) and the
// batch shape.
type Batch struct {
	N, NLog int
	W, A, B []field.K
}

// NewStage returns the graph stage "witness": it runs the Job's Writer on the
// granted workers.
func NewStage() graph.Stage[Job, Batch] {
	return graph.Stage[Job, Batch]{
		Name:       "witness",
		MinWorkers: 1,
		Run: func(_ context.Context, w graph.Workers, in Job) (Batch, error) {
			switch {
			case in.N <= 0:
				return Batch{}, ErrNoBlocks
			case in.Write == nil:
				return Batch{}, ErrNoWriter
			}
			if err := in.Write(w, in.NLog, in.W, in.A, in.B); err != nil {
				return Batch{}, err
			}
			return Batch{N: in.N, NLog: in.NLog, W: in.W, A: in.A, B: in.B}, nil
		},
	}
}

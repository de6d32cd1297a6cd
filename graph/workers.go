package graph

import (
	"context"

	"github.com/leanpipe/leanpipe/par"
)

// Workers is the worker grant a stage runs with: the parallel runtime's value
// (package par), bound to the stage's context. A panic in any of its goroutines, or
// the context's cancellation, is recorded there and fails the stage when it returns.
type Workers = par.Workers

// NewWorkers returns n ≥ 1 workers bound to ctx.
func NewWorkers(ctx context.Context, n int) Workers { return par.New(ctx, n) }

// PanicError is a panic recovered inside a stage or one of its workers.
type PanicError = par.PanicError

// Protect runs fn and turns a panic into a *PanicError.
func Protect(fn func() error) error { return par.Protect(fn) }

package graph

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
)

// Workers is the worker count a stage was granted and the way it fans out: every
// goroutine started through it recovers its own panic and reports it as an error.
type Workers struct {
	n   int
	ctx context.Context
}

// NewWorkers returns a fan-out helper with n ≥ 1 workers bound to ctx.
func NewWorkers(ctx context.Context, n int) Workers {
	if n < 1 {
		n = 1
	}
	return Workers{n: n, ctx: ctx}
}

// N is the number of workers granted.
func (w Workers) N() int {
	if w.n < 1 {
		return 1
	}
	return w.n
}

// PanicError is a panic recovered inside a stage or one of its workers.
type PanicError struct {
	Value any
	Stack []byte
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Run calls fn(i) for i in [0, N()) on N() goroutines and waits. It returns the
// first error in worker order; a panic in fn becomes a *PanicError.
func (w Workers) Run(fn func(worker int) error) error {
	n := w.N()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = Protect(func() error { return fn(i) })
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if w.ctx != nil {
		return w.ctx.Err()
	}
	return nil
}

// Range splits [0, n) into N() contiguous chunks and calls fn(lo, hi) for each on its
// own worker. Chunk boundaries depend only on n and N().
func (w Workers) Range(n int, fn func(lo, hi int) error) error {
	k := w.N()
	if k > n {
		k = n
	}
	if k <= 1 {
		if n == 0 {
			return nil
		}
		return Protect(func() error { return fn(0, n) })
	}
	return Workers{n: k, ctx: w.ctx}.Run(func(i int) error {
		return fn(i*n/k, (i+1)*n/k)
	})
}

// Protect runs fn and turns a panic into a *PanicError.
func Protect(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return fn()
}

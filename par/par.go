package par

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Workers is the number of goroutines a kernel may use, bound to a context and to a
// shared failure record. The zero value is one worker with no context and no failure
// record (a panic in a chunk propagates to the caller). Copies (and
// values made by Limit) share the failure record: after a panic in any chunk, or once
// the context is done, every later chunk is skipped, and Err reports why.
//
// Kernels never depend on which worker computes which chunk: results are written to
// disjoint outputs or summed in chunk order (see Sum), so the values computed with
// any worker count are the same.
type Workers struct {
	n   int
	ctx context.Context
	st  *state
}

type state struct {
	failed atomic.Bool
	mu     sync.Mutex
	err    error
}

// New returns n ≥ 1 workers bound to ctx (nil means no cancellation).
func New(ctx context.Context, n int) Workers {
	return Workers{n: max(1, n), ctx: ctx, st: new(state)}
}

// Serial is one worker with no context; its failures are still recorded.
func Serial() Workers { return New(nil, 1) }

// N is the number of workers granted (at least 1).
func (w Workers) N() int { return max(1, w.n) }

// Context returns the context the workers are bound to (context.Background if none).
func (w Workers) Context() context.Context {
	if w.ctx == nil {
		return context.Background()
	}
	return w.ctx
}

// Limit returns at most k workers sharing w's context and failure record.
func (w Workers) Limit(k int) Workers {
	w.n = max(1, min(w.N(), k))
	return w
}

// Err returns the first failure recorded (a *PanicError), or the context's cause once
// it is done, or nil.
func (w Workers) Err() error {
	if w.st != nil && w.st.failed.Load() {
		w.st.mu.Lock()
		defer w.st.mu.Unlock()
		return w.st.err
	}
	if w.ctx != nil && w.ctx.Err() != nil {
		return context.Cause(w.ctx)
	}
	return nil
}

// Stopped reports whether work should stop: a failure was recorded or the context is
// done. Long sequential loops in a kernel check it between steps.
func (w Workers) Stopped() bool {
	if w.st != nil && w.st.failed.Load() {
		return true
	}
	if w.ctx != nil {
		select {
		case <-w.ctx.Done():
			return true
		default:
		}
	}
	return false
}

// Fail records err as the workers' failure (the first one wins) and stops them.
func (w Workers) Fail(err error) {
	if w.st == nil || err == nil {
		return
	}
	w.st.mu.Lock()
	if w.st.err == nil {
		w.st.err = err
		w.st.failed.Store(true)
	}
	w.st.mu.Unlock()
}

// PanicError is a panic recovered in a kernel's goroutine or a stage.
type PanicError struct {
	Value any
	Stack []byte
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Protect runs fn and turns a panic into a *PanicError.
func Protect(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return fn()
}

// Option tunes how a range is cut into chunks.
type Option func(*opts)

type opts struct {
	grain, minChunk, perWorker int
}

// Grain makes every chunk boundary a multiple of g (the last chunk ends at n).
func Grain(g int) Option { return func(o *opts) { o.grain = max(1, g) } }

// MinChunk keeps chunks at least m items long, so small ranges use fewer workers
// (down to one, inline).
func MinChunk(m int) Option { return func(o *opts) { o.minChunk = max(1, m) } }

// PerWorker cuts the range into about k chunks per worker (default 8). More chunks
// balance better on a busy machine and react sooner to cancellation; fewer chunks
// save per-chunk set-up.
func PerWorker(k int) Option { return func(o *opts) { o.perWorker = max(1, k) } }

// plan returns the chunk length (a multiple of the grain) and the chunk count for n
// items.
func (w Workers) plan(n int, options []Option) (size, chunks, workers int) {
	o := opts{grain: 1, minChunk: 1, perWorker: 8}
	for _, f := range options {
		f(&o)
	}
	units := (n + o.grain - 1) / o.grain
	minUnits := max(1, (o.minChunk+o.grain-1)/o.grain)
	target := max(1, min(w.N()*o.perWorker, units/minUnits))
	per := (units + target - 1) / target
	size = per * o.grain
	chunks = (n + size - 1) / size
	return size, chunks, min(w.N(), chunks)
}

// Chunks returns how many chunks Range, For and Sum cut n items into with these
// options (the number of partial results Sum combines).
func (w Workers) Chunks(n int, options ...Option) int {
	if n <= 0 {
		return 0
	}
	_, c, _ := w.plan(n, options)
	return c
}

// For calls fn(worker, lo, hi) for chunks [lo, hi) covering [0, n), handed out on
// demand to at most N() goroutines (the caller's is worker 0); worker < N() names the
// goroutine, so fn may keep per-worker scratch, and a worker may run several chunks.
// A chunk is skipped once the workers are Stopped; a panic in fn is recorded (see
// Err) and stops the remaining chunks. For returns when every goroutine is done.
func (w Workers) For(n int, fn func(worker, lo, hi int), options ...Option) {
	if n <= 0 {
		return
	}
	size, chunks, _ := w.plan(n, options)
	w.spread(chunks, func(worker, c int) {
		lo := c * size
		fn(worker, lo, min(lo+size, n))
	})
}

// Loop is one loop of ForAll: N items cut into chunks as For cuts them with Opts,
// Fn called on each.
type Loop struct {
	N    int
	Fn   func(worker, lo, hi int)
	Opts []Option
}

// ForAll runs the chunks of several loops on the same goroutines (at most N(), the
// caller's worker 0), handed out on demand in order: every chunk of loops[0], then
// every chunk of loops[1], and so on. A goroutine that finds no chunk left in a loop
// goes on with the next loop's, so that a later loop of fine chunks fills the time
// an earlier loop's coarse, uneven chunks leave idle (a walk's last segment). The
// loops must be independent: chunks of different loops run at once. Stopping and
// panics are as in For; ForAll returns when every goroutine is done.
func (w Workers) ForAll(loops ...Loop) {
	// first[i] is loop i's first chunk in the order handed out, size[i] its chunk
	// length; first[len(loops)] is the chunk count.
	first, size := make([]int, len(loops)+1), make([]int, len(loops))
	for i, l := range loops {
		chunks := 0
		if l.N > 0 {
			size[i], chunks, _ = w.plan(l.N, l.Opts)
		}
		first[i+1] = first[i] + chunks
	}
	w.spread(first[len(loops)], func(worker, c int) {
		i := 0
		for c >= first[i+1] {
			i++
		}
		lo := (c - first[i]) * size[i]
		loops[i].Fn(worker, lo, min(lo+size[i], loops[i].N))
	})
}

// spread calls do(worker, c) for every chunk c < chunks, handed out on demand to at
// most N() goroutines (the caller's is worker 0): For's runtime.
func (w Workers) spread(chunks int, do func(worker, c int)) {
	var next atomic.Int64
	run := func(worker int) {
		defer w.recover()
		for {
			c := int(next.Add(1)) - 1
			if c >= chunks || w.Stopped() {
				return
			}
			if h := chunkHook.Load(); h != nil {
				(*h)(w.Context())
			}
			do(worker, c)
		}
	}
	k := min(w.N(), chunks)
	if k <= 1 {
		run(0)
		return
	}
	var wg sync.WaitGroup
	for worker := 1; worker < k; worker++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(worker)
		}()
	}
	run(0)
	wg.Wait()
}

// Range is For without the worker index.
func (w Workers) Range(n int, fn func(lo, hi int), options ...Option) {
	w.For(n, func(_, lo, hi int) { fn(lo, hi) }, options...)
}

// Run calls fn(i) once for each i < N(), concurrently as far as the workers go,
// recording a panic as For does.
func (w Workers) Run(fn func(worker int)) {
	w.For(w.N(), func(_, i, _ int) { fn(i) }, PerWorker(1))
}

func (w Workers) recover() {
	if r := recover(); r != nil {
		if w.st == nil {
			panic(r)
		}
		w.Fail(&PanicError{Value: r, Stack: debug.Stack()})
	}
}

// Clear sets every element of v to its zero value, chunks of it on the workers (a
// large buffer's clearing streams memory, which one core does not saturate).
func Clear[T any](w Workers, v []T, options ...Option) {
	w.Range(len(v), func(lo, hi int) { clear(v[lo:hi]) }, options...)
}

// Sum returns the chunk results of fn over [0, n) combined with add in chunk order
// (zero when n ≤ 0 or when stopped before any chunk ran), so the value never depends on
// the worker count for an associative add.
func Sum[T any](w Workers, n int, add func(a, b T) T, fn func(lo, hi int) T, options ...Option) T {
	var zero T
	if n <= 0 {
		return zero
	}
	size, chunks, _ := w.plan(n, options)
	if chunks == 1 {
		var out T
		w.For(n, func(_, lo, hi int) { out = fn(lo, hi) }, options...)
		return out
	}
	parts := make([]T, chunks)
	w.For(n, func(_, lo, hi int) { parts[lo/size] = fn(lo, hi) }, options...)
	out := parts[0]
	for _, p := range parts[1:] {
		out = add(out, p)
	}
	return out
}

var chunkHook atomic.Pointer[func(context.Context)]

// SetChunkHook installs fn to run before every chunk of every For, Range, Run and Sum,
// on the chunk's goroutine with the workers' context; a panic in fn is handled like a
// panic in the chunk. Tests inject faults with it; it returns a function restoring
// the previous hook. Nil removes the hook.
func SetChunkHook(fn func(ctx context.Context)) (restore func()) {
	var p *func(context.Context)
	if fn != nil {
		p = &fn
	}
	old := chunkHook.Swap(p)
	return func() { chunkHook.Store(old) }
}

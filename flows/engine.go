package flows

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/graph"
)

// Engine proves requests of any registered flow on stage graphs. It keeps buffer
// pools, a shape cache and a scheduler across proofs, so that after a warm-up proof a
// request of a known shape reuses its memory. Several proofs, of one flow or of
// several, may run through one Engine at once; they share its cores through the
// scheduler.
type Engine struct {
	sched *graph.Scheduler
	cache *graph.ShapeCache
	res   *Resources

	mu     sync.Mutex
	graphs map[Flow]*flowGraph
}

// flowGraph is one flow's prover wired as a graph.
type flowGraph struct {
	g   *graph.Graph
	in  graph.Port[Request]
	out graph.Port[Proved]
}

// EngineOptions configure an Engine; the zero value is the defaults, and negative
// values are errors.
type EngineOptions struct {
	// Cores is the number of cores the scheduler grants (0 = runtime.NumCPU()).
	Cores int
	// CacheBytes bounds the shape cache (0 = 256 MiB).
	CacheBytes int64
	// InFlight is how many proofs the caller runs at once (0 = 1); it sizes the
	// buffer pools so that warm proofs reuse every buffer.
	InFlight int
}

// NewEngine returns an engine.
func NewEngine(o EngineOptions) (*Engine, error) {
	if o.Cores < 0 || o.CacheBytes < 0 || o.InFlight < 0 {
		return nil, fmt.Errorf("%w: engine options %+v: negative", ErrInput, o)
	}
	if o.Cores == 0 {
		o.Cores = runtime.NumCPU()
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = 256 << 20
	}
	cache, err := graph.NewShapeCache(o.CacheBytes)
	if err != nil {
		return nil, err
	}
	return &Engine{
		sched:  graph.NewScheduler(o.Cores),
		cache:  cache,
		res:    NewResources(cache, o.InFlight),
		graphs: map[Flow]*flowGraph{},
	}, nil
}

// Close releases the engine's cache.
func (e *Engine) Close() { e.cache.Close() }

// Scheduler is the engine's core scheduler.
func (e *Engine) Scheduler() *graph.Scheduler { return e.sched }

// Resources are the engine's cache, pools and scratch, for composing custom graphs
// from a flow's stages (see FlockStages).
func (e *Engine) Resources() *Resources { return e.res }

// PoolStats reports the K and E buffer pools' counters.
func (e *Engine) PoolStats() (k, ext buffers.Stats) { return e.res.K.Stats(), e.res.E.Stats() }

// CacheStats reports the shape cache's hits and misses.
func (e *Engine) CacheStats() (hits, misses int64) { return e.cache.Stats() }

// graphFor returns flow f's graph, wiring it on first use.
func (e *Engine) graphFor(f Flow) *flowGraph {
	e.mu.Lock()
	defer e.mu.Unlock()
	if fg, ok := e.graphs[f]; ok {
		return fg
	}
	g := graph.New()
	in := graph.Input[Request](g, "request")
	out := graph.Wire(g, f.Prover(e.res), in)
	fg := &flowGraph{g: g, in: in, out: out}
	e.graphs[f] = fg
	return fg
}

// Prove runs one request through its flow's graph. Proof bytes do not depend on the
// cores granted, on other proofs in flight, or on the pools' state.
// The zero values of req's Flow and LogInvRate are the defaults; a nil context or
// input is an error wrapping ErrInput.
func (e *Engine) Prove(ctx context.Context, req Request) (Proved, error) {
	if err := req.check(ctx); err != nil {
		return Proved{}, err
	}
	start := time.Now()
	req = req.withDefaults()
	fg := e.graphFor(req.Flow)
	res, err := fg.g.Run(ctx, e.sched, graph.Feed(fg.in, req))
	if err != nil {
		Release(res)
		return Proved{}, fmt.Errorf("flows: %w", err)
	}
	p, _ := graph.Value(res, fg.out)
	p.Spans = res.Spans
	p.Wall = time.Since(start)
	return p, nil
}

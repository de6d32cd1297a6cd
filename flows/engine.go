package flows

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/reduce"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Request is one batch to prove.
type Request struct {
	Blocks     []witness.Compression
	LogInvRate int
}

// Proved is a finished batch proof with its run record.
type Proved struct {
	Shape Shape
	Proof *transcript.Proof
	Spans []graph.Span
	Wall  time.Duration
}

// Engine proves batches on the stage graph. It keeps buffer pools, a shape cache and
// a scheduler across proofs, so that after a warm-up proof a batch of a known shape
// reuses its memory. Several proofs may run through one Engine at once; they share
// its cores through the scheduler.
type Engine struct {
	sched *graph.Scheduler
	cache *graph.ShapeCache
	kpool *buffers.Pool[field.K]
	epool *buffers.Pool[field.E]
	g     *graph.Graph
	in    graph.Port[Request]
	out   graph.Port[Proved]
}

// EngineOptions configure an Engine.
type EngineOptions struct {
	// Cores is the number of cores the scheduler grants (0 = runtime.NumCPU()).
	Cores int
	// CacheBytes bounds the shape cache (0 = 64 MiB).
	CacheBytes int64
}

// NewEngine builds the batch graph.
func NewEngine(o EngineOptions) (*Engine, error) {
	if o.Cores <= 0 {
		o.Cores = runtime.NumCPU()
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = 64 << 20
	}
	cache, err := graph.NewShapeCache(o.CacheBytes)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		sched: graph.NewScheduler(o.Cores),
		cache: cache,
		kpool: buffers.NewPool[field.K](4),
		epool: buffers.NewPool[field.E](4),
	}
	e.build()
	return e, nil
}

// Close releases the engine's cache.
func (e *Engine) Close() { e.cache.Close() }

// Scheduler is the engine's core scheduler.
func (e *Engine) Scheduler() *graph.Scheduler { return e.sched }

// PoolStats reports the K and E buffer pools' counters.
func (e *Engine) PoolStats() (k, ext buffers.Stats) { return e.kpool.Stats(), e.epool.Stats() }

// CacheStats reports the shape cache's hits and misses.
func (e *Engine) CacheStats() (hits, misses int64) { return e.cache.Stats() }

// The typed edges of the batch graph. Each carries the proof's buffers forward;
// ownership moves with the value, and the last stage returns them to the pools.
type (
	planned struct {
		sh      Shape
		blocks  []witness.Compression
		stack   *buffers.Buf[field.K] // q_flock at offset 0, zero padded
		a, b    *buffers.Buf[field.K] // A·w and B·w, packed like w
		weights *buffers.Buf[field.E] // the ring weight over the column
	}
	witnessed struct{ *planned }
	committed struct {
		*planned
		com *commit.Committed
		tr  *transcript.Prover
	}
	zerochecked struct {
		*committed
		claims zerocheck.Result
	}
	linchecked struct {
		*committed
		claim reduce.LincheckClaim
	}
)

func (p *planned) words() int { return witness.Words(p.sh.NLog) }

// release returns every buffer still held (safe to call twice).
func (p *planned) release() {
	for _, b := range []**buffers.Buf[field.K]{&p.stack, &p.a, &p.b} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
	if p.weights != nil {
		p.weights.Release()
		p.weights = nil
	}
}

// SizeBytes reports the buffers carried, for spans.
func (p *planned) SizeBytes() int64 {
	var t int64
	for _, b := range []*buffers.Buf[field.K]{p.stack, p.a, p.b} {
		if b != nil {
			t += b.SizeBytes()
		}
	}
	return t
}

func (e *Engine) build() {
	g := graph.New()
	in := graph.Input[Request](g, "request")
	plan := graph.Then(g, graph.Stage[Request, *planned]{Name: "plan", MaxWorkers: 1, Run: e.plan}, in)
	wit := graph.Then(g, graph.Stage[*planned, witnessed]{Name: "witness", Run: e.witness}, plan)
	com := graph.Then(g, graph.Stage[witnessed, committed]{Name: "commit", Run: e.commit}, wit)
	zc := graph.Then(g, graph.Stage[committed, zerochecked]{Name: "zerocheck", Run: e.zerocheck}, com)
	lc := graph.Then(g, graph.Stage[zerochecked, linchecked]{Name: "lincheck", Run: e.lincheck}, zc)
	out := graph.Then(g, graph.Stage[linchecked, Proved]{Name: "open", Run: e.open}, lc)
	e.g, e.in, e.out = g, in, out
}

// Prove runs one batch through the graph. Proof bytes do not depend on the cores
// granted.
func (e *Engine) Prove(ctx context.Context, req Request) (Proved, error) {
	start := time.Now()
	res, err := e.g.Run(ctx, e.sched, graph.Feed(e.in, req))
	if err != nil {
		// Return whatever the failed run still holds to the pools.
		for _, v := range res.Unconsumed() {
			if h, ok := v.(interface{ release() }); ok {
				h.release()
			}
		}
		return Proved{}, fmt.Errorf("flows: %w", err)
	}
	p, _ := graph.Value(res, e.out)
	p.Spans = res.Spans
	p.Wall = time.Since(start)
	return p, nil
}

func (e *Engine) plan(ctx context.Context, _ graph.Workers, req Request) (*planned, error) {
	sh, err := BatchShape(len(req.Blocks), req.LogInvRate)
	if err != nil {
		return nil, err
	}
	// Shape-keyed precomputation: the WHIR configuration of the stack.
	if _, err := graph.Shape(ctx, e.cache, fmt.Sprintf("whir/%d/%d", sh.StackLog, sh.LogInvRate), 1<<10, func() (*open.Config, error) {
		return open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	}); err != nil {
		return nil, err
	}
	words := witness.Words(sh.NLog)
	p := &planned{sh: sh, blocks: req.Blocks}
	p.stack = e.kpool.Get(1 << sh.StackLog)
	// Only the padding beyond the column needs zeros: the witness overwrites the rest.
	clear(p.stack.Data()[words:])
	p.a, p.b = e.kpool.Get(words), e.kpool.Get(words)
	p.weights = e.epool.Get(1 << sh.Mu)
	return p, nil
}

func (e *Engine) witness(_ context.Context, w graph.Workers, p *planned) (witnessed, error) {
	n := p.words()
	if err := witness.FillAB(p.stack.Data()[:n], p.a.Data(), p.b.Data(), p.blocks, p.sh.NLog, w.N()); err != nil {
		p.release()
		return witnessed{}, err
	}
	return witnessed{p}, nil
}

func (e *Engine) commit(_ context.Context, w graph.Workers, p witnessed) (committed, error) {
	com, err := commit.Commit(p.stack.Data(), p.sh.StackLog, p.sh.LogInvRate, w.N())
	if err != nil {
		p.release()
		return committed{}, err
	}
	tr := transcript.NewProver([]byte(Label), nil)
	halves := commit.RootHalves(com.Root())
	tr.SendMany(halves[:])
	return committed{planned: p.planned, com: com, tr: tr}, nil
}

func (e *Engine) zerocheck(_ context.Context, w graph.Workers, c committed) (zerochecked, error) {
	n := c.words()
	res, err := zerocheck.Prove(c.tr, zerocheck.Input{
		A: c.a.Data(), B: c.b.Data(), C: c.stack.Data()[:n],
		M: c.sh.M(), LogInstance: circuit.BLAKE2s().LogSize(), Live: c.sh.N,
	}, w.N())
	// A·w and B·w are read by the zerocheck only: hand them back now.
	c.a.Release()
	c.b.Release()
	c.a, c.b = nil, nil
	if err != nil {
		c.release()
		return zerochecked{}, err
	}
	return zerochecked{committed: &c, claims: res}, nil
}

func (e *Engine) lincheck(_ context.Context, w graph.Workers, z zerochecked) (linchecked, error) {
	n := z.words()
	claim := reduce.LincheckProve(z.tr, circuit.BLAKE2s(), z.stack.Data()[:n], z.sh.N, reduce.ZerocheckClaims(z.claims), w.N())
	return linchecked{committed: z.committed, claim: claim}, nil
}

// open is the reference's "opening" stage: ring switching (Φ drawn, the dense weight
// built) and the stacked WHIR opening.
func (e *Engine) open(_ context.Context, w graph.Workers, l linchecked) (Proved, error) {
	defer l.release()
	ring := reduce.RingSwitchProve(l.tr, l.claim.Point, l.claim.S, l.weights.Data(), w.N())
	if err := open.ProveStacked(l.tr, l.com, open.Placement{Variables: l.sh.Mu, Offset: 0}, ring, nil, w.N()); err != nil {
		return Proved{}, err
	}
	return Proved{Shape: l.sh, Proof: l.tr.Proof()}, nil
}

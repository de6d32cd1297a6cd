package flows

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/ntt"
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
	// zcBufs are the zerocheck's tables, one set per proof in flight.
	zcBufs freeList[zerocheck.Buffers]
	// whir is the opening's fold scratch, one per proof in flight.
	whir freeList[open.Scratch]
	// lin and ring are the lincheck's and the ring switch's scratch.
	lin  freeList[reduce.LincheckScratch]
	ring freeList[reduce.RingScratch]
	// coms are level-0 commitments (codeword and Merkle nodes), one per proof in flight.
	coms freeList[commit.Committed]
}

// freeList keeps reusable scratch values for proofs in flight.
type freeList[T any] struct {
	mu   sync.Mutex
	free []*T
}

func (f *freeList[T]) get() *T {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.free); n > 0 {
		v := f.free[n-1]
		f.free = f.free[:n-1]
		return v
	}
	return new(T)
}

func (f *freeList[T]) put(v *T) {
	f.mu.Lock()
	f.free = append(f.free, v)
	f.mu.Unlock()
}

// EngineOptions configure an Engine.
type EngineOptions struct {
	// Cores is the number of cores the scheduler grants (0 = runtime.NumCPU()).
	Cores int
	// CacheBytes bounds the shape cache (0 = 256 MiB).
	CacheBytes int64
	// InFlight is how many proofs the caller runs at once (0 = 1); it sizes the
	// buffer pools so that warm proofs reuse every buffer.
	InFlight int
}

// NewEngine builds the batch graph.
func NewEngine(o EngineOptions) (*Engine, error) {
	if o.Cores <= 0 {
		o.Cores = runtime.NumCPU()
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = 256 << 20
	}
	cache, err := graph.NewShapeCache(o.CacheBytes)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		sched: graph.NewScheduler(o.Cores),
		cache: cache,
		// Per proof in flight: the stack, A·w and B·w (one size class once mu ≥ 15)
		// and the ring weight.
		kpool: buffers.NewPool[field.K](3 * max(o.InFlight, 1)),
		epool: buffers.NewPool[field.E](max(o.InFlight, 1)),
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
// ownership moves with the value, and the last stage (or Release, after a failed run)
// returns them to the pools. A custom stage inserted between two batch stages takes
// and returns the same edge type, reading it through the accessors.
type (
	Planned struct {
		sh      Shape
		blocks  []witness.Compression
		stack   *buffers.Buf[field.K] // q_flock: the committed lane blocks of the stack
		a, b    *buffers.Buf[field.K] // A·w and B·w, packed like w
		weights *buffers.Buf[field.E] // the ring weight over the column
	}
	Witnessed struct{ *Planned }
	Committed struct {
		*Planned
		com *commit.Committed
		tr  *transcript.Prover
	}
	Zerochecked struct {
		*Committed
		claims zerocheck.Result
	}
	Linchecked struct {
		*Committed
		claim reduce.LincheckClaim
		lin   *reduce.LincheckScratch // holds claim's point and slices until the ring switch
	}
)

func (p *Planned) words() int { return witness.Words(p.sh.NLog) }

// release returns every buffer still held (safe to call twice).
func (p *Planned) release() {
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
func (p *Planned) SizeBytes() int64 {
	var t int64
	for _, b := range []*buffers.Buf[field.K]{p.stack, p.a, p.b} {
		if b != nil {
			t += b.SizeBytes()
		}
	}
	return t
}

// Shape is the batch's geometry.
func (p *Planned) Shape() Shape { return p.sh }

// Witness is the packed witness q_flock (2^Mu K words), valid until the edge's
// buffers are released.
func (p *Planned) Witness() []field.K { return p.stack.Data()[:p.words()] }

// Root is the commitment root sent first on the transcript.
func (c Committed) Root() merkle.Digest { return c.com.Root() }

// Claims are the zerocheck's output claims.
func (z Zerochecked) Claims() zerocheck.Result { return z.claims }

// Claim is the lincheck's output: the point and the 64 slice values (views into the
// lincheck's scratch, valid until the Open stage has run).
func (l Linchecked) Claim() reduce.LincheckClaim { return l.claim }

// BatchStages are the batch flow's stages bound to one Engine's pools and cache, in
// protocol order. Wire them with graph.Then, optionally with stages of your own in
// between, and run the graph with the Engine's Scheduler; after a failed run, call
// Release on its Result.
type BatchStages struct {
	Plan      graph.Stage[Request, *Planned]
	Witness   graph.Stage[*Planned, Witnessed]
	Commit    graph.Stage[Witnessed, Committed]
	Zerocheck graph.Stage[Committed, Zerochecked]
	Lincheck  graph.Stage[Zerochecked, Linchecked]
	Open      graph.Stage[Linchecked, Proved]
}

// Stages returns the engine's batch stages.
func (e *Engine) Stages() BatchStages {
	return BatchStages{
		Plan:      graph.Stage[Request, *Planned]{Name: "plan", MaxWorkers: 1, Run: e.plan},
		Witness:   graph.Stage[*Planned, Witnessed]{Name: "witness", Run: e.witness},
		Commit:    graph.Stage[Witnessed, Committed]{Name: "commit", Run: e.commit},
		Zerocheck: graph.Stage[Committed, Zerochecked]{Name: "zerocheck", Run: e.zerocheck},
		Lincheck:  graph.Stage[Zerochecked, Linchecked]{Name: "lincheck", Run: e.lincheck},
		Open:      graph.Stage[Linchecked, Proved]{Name: "open", Run: e.open},
	}
}

// Release returns to the pools every buffer a failed or cancelled run left on its edges.
func Release(res *graph.Result) {
	for _, v := range res.Unconsumed() {
		if h, ok := v.(interface{ release() }); ok {
			h.release()
		}
	}
}

func (e *Engine) build() {
	st := e.Stages()
	g := graph.New()
	in := graph.Input[Request](g, "request")
	plan := graph.Then(g, st.Plan, in)
	wit := graph.Then(g, st.Witness, plan)
	com := graph.Then(g, st.Commit, wit)
	zc := graph.Then(g, st.Zerocheck, com)
	lc := graph.Then(g, st.Lincheck, zc)
	out := graph.Then(g, st.Open, lc)
	e.g, e.in, e.out = g, in, out
}

// Prove runs one batch through the graph. Proof bytes do not depend on the cores
// granted.
func (e *Engine) Prove(ctx context.Context, req Request) (Proved, error) {
	start := time.Now()
	res, err := e.g.Run(ctx, e.sched, graph.Feed(e.in, req))
	if err != nil {
		Release(res)
		return Proved{}, fmt.Errorf("flows: %w", err)
	}
	p, _ := graph.Value(res, e.out)
	p.Spans = res.Spans
	p.Wall = time.Since(start)
	return p, nil
}

func (e *Engine) plan(ctx context.Context, _ graph.Workers, req Request) (*Planned, error) {
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
	p := &Planned{sh: sh, blocks: req.Blocks}
	// The committed stack is the column's lane blocks: a short stack's zero lanes are
	// never encoded, so only q_flock itself is held (the witness overwrites it all).
	p.stack = e.kpool.Get(words)
	p.a, p.b = e.kpool.Get(words), e.kpool.Get(words)
	p.weights = e.epool.Get(1 << sh.Mu)
	return p, nil
}

func (e *Engine) witness(_ context.Context, w graph.Workers, p *Planned) (Witnessed, error) {
	n := p.words()
	if err := witness.FillAB(p.stack.Data()[:n], p.a.Data(), p.b.Data(), p.blocks, p.sh.NLog, w.N()); err != nil {
		p.release()
		return Witnessed{}, err
	}
	return Witnessed{p}, nil
}

// plans returns the NTT plans from the engine's shape cache, recording hits and
// misses on the span of the stage running under ctx.
func (e *Engine) plans(ctx context.Context) commit.PlanSource {
	return func(logD int) *ntt.Plan {
		p, _ := graph.Shape(ctx, e.cache, fmt.Sprintf("ntt/%d", logD), int64(8*(logD*logD+2<<(logD/2))), func() (*ntt.Plan, error) {
			return ntt.NewPlan(logD), nil
		})
		return p
	}
}

func (e *Engine) commit(ctx context.Context, w graph.Workers, p Witnessed) (Committed, error) {
	com := e.coms.get()
	com.Plans = e.plans(ctx)
	err := commit.CommitInto(com, p.stack.Data(), p.sh.StackLog, p.sh.LogInvRate, w.N())
	if err != nil {
		e.coms.put(com)
		p.release()
		return Committed{}, err
	}
	tr := transcript.NewProver([]byte(Label), nil)
	halves := commit.RootHalves(com.Root())
	tr.SendMany(halves[:])
	return Committed{Planned: p.Planned, com: com, tr: tr}, nil
}

func (e *Engine) zerocheck(_ context.Context, w graph.Workers, c Committed) (Zerochecked, error) {
	n := c.words()
	bufs := e.zcBufs.get()
	res, err := zerocheck.ProveWith(c.tr, zerocheck.Input{
		A: c.a.Data(), B: c.b.Data(), C: c.stack.Data()[:n],
		M: c.sh.M(), LogInstance: circuit.BLAKE2s().LogSize(), Live: c.sh.N,
	}, w.N(), bufs)
	e.zcBufs.put(bufs)
	// A·w and B·w are read by the zerocheck only: hand them back now.
	c.a.Release()
	c.b.Release()
	c.a, c.b = nil, nil
	if err != nil {
		c.release()
		return Zerochecked{}, err
	}
	return Zerochecked{Committed: &c, claims: res}, nil
}

func (e *Engine) lincheck(_ context.Context, w graph.Workers, z Zerochecked) (Linchecked, error) {
	n := z.words()
	lin := e.lin.get()
	claim := lin.Prove(z.tr, circuit.BLAKE2s(), z.stack.Data()[:n], z.sh.N, reduce.ZerocheckClaims(z.claims), w.N())
	return Linchecked{Committed: z.Committed, claim: claim, lin: lin}, nil
}

// open is the reference's "opening" stage: ring switching (Φ drawn, the dense weight
// built) and the stacked WHIR opening.
func (e *Engine) open(ctx context.Context, w graph.Workers, l Linchecked) (Proved, error) {
	defer l.release()
	rs := e.ring.get()
	ring := rs.Prove(l.tr, l.claim.Point, l.claim.S, l.weights.Data(), w.N())
	e.ring.put(rs)
	e.lin.put(l.lin) // the ring claim copied the point: the lincheck scratch is free
	l.lin = nil
	scratch := e.whir.get()
	scratch.Plans = e.plans(ctx)
	err := scratch.ProveStacked(l.tr, l.com, open.Placement{Variables: l.sh.Mu, Offset: 0}, ring, nil, w.N())
	e.whir.put(scratch)
	e.coms.put(l.com) // the proof keeps copies of the opened rows, never the codeword
	if err != nil {
		return Proved{}, err
	}
	return Proved{Shape: l.sh, Proof: l.tr.Proof()}, nil
}

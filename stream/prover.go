package stream

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/sysmem"
	"github.com/reugn/go-streams"
	"golang.org/x/sync/semaphore"
)

// Engine proves batches; *flows.Engine is one. Several Prove calls run at once.
type Engine interface {
	Prove(ctx context.Context, req flows.Request) (flows.Proved, error)
}

// Options configure a Prover.
type Options struct {
	// InFlight is K, the most proofs running at once on the Engine; 0 means 2.
	InFlight int
	// Pending bounds the jobs taken from the source and not yet handed downstream
	// (waiting, proving, or done and waiting for their turn); 0 means 4·InFlight.
	// When it is reached the Prover stops reading its inlet.
	Pending int
	// MemoryBudget bounds the summed estimates (flows.Flow.Estimate) of the proofs running at once, in
	// bytes; a job whose estimate alone exceeds it is refused. 0 means no budget.
	// Jobs are admitted in order, so a large job waiting for budget also holds
	// back the smaller jobs behind it.
	MemoryBudget int64
	// BudgetFrom says what set MemoryBudget, for the error of a refused job (e.g.
	// "--memory-budget").
	BudgetFrom string
	// MaxN is the most instances a job may ask for (0 or above its flow's MaxN:
	// the flow's MaxN); MaxInputBytes the largest input file (0 = 1 GiB).
	MaxN          int
	MaxInputBytes int64
	// Grace is how long in-flight proofs may run on after the context ends before
	// they are abandoned (0: abandon at once).
	Grace time.Duration
	// Cores is the number of cores of the Engine, for utilisation (0 = NumCPU).
	Cores int
	// Flow is the flow of jobs that name none ("": flows.DefaultName).
	Flow string
	// Verify checks every proof with the verifier before its result is reported
	// (a proof that does not verify becomes an error result).
	Verify bool
	// Merger, when set, makes the merge jobs' proofs (merge.go); without it a merge
	// job is an error result.
	Merger *Merger
	// UniqueIDs refuses a job whose id an earlier job of the stream had (running or
	// finished) with an ErrBusy result naming the id, so that no proof file is
	// overwritten (serve sets it; the queue's workers, which see a job again on
	// redelivery, do not). The ids are kept for the Prover's life.
	UniqueIDs bool
}

func (o Options) withDefaults() Options {
	if o.InFlight <= 0 {
		o.InFlight = 2
	}
	if o.Pending <= 0 {
		o.Pending = 4 * o.InFlight
	}
	o.Pending = max(o.Pending, o.InFlight)
	if o.MaxN < 0 {
		o.MaxN = 0
	}
	if o.MaxInputBytes <= 0 {
		o.MaxInputBytes = 1 << 30
	}
	if o.Cores <= 0 {
		o.Cores = runtime.NumCPU()
	}
	return o
}

// Prover is the proving flow: Envelope[Job] in, Envelope[Result] out, one result
// per job, in job order (a job with Unordered set leaves as soon as it is done).
// Up to InFlight jobs overlap on the Engine. When ctx ends it stops taking work:
// jobs still arriving get ErrAbandoned results, and running proofs get Grace to
// finish before they are cancelled (or Abort is called).
type Prover struct {
	eng     Engine
	opt     Options
	in, out chan any
	ctx     context.Context // intake
	work    context.Context // proving
	abort   context.CancelFunc
	pending *semaphore.Weighted // jobs between intake and hand-off
	slots   *semaphore.Weighted // proofs running
	budget  *semaphore.Weighted // estimated bytes of the proofs running
	metrics *collector
	obs     Observer // nil: none (WithObserver)

	mu     sync.Mutex
	active map[string]bool // ids in flight
	used   map[string]bool // ids admitted so far (UniqueIDs)
}

var _ streams.Flow = (*Prover)(nil)

// NewProver starts a proving flow on eng.
func NewProver(ctx context.Context, eng Engine, o Options) *Prover {
	o = o.withDefaults()
	work, abort := context.WithCancel(context.WithoutCancel(ctx))
	p := &Prover{
		eng: eng, opt: o, ctx: ctx, work: work, abort: abort,
		in: make(chan any), out: make(chan any),
		pending: semaphore.NewWeighted(int64(o.Pending)),
		slots:   semaphore.NewWeighted(int64(o.InFlight)),
		metrics: newCollector(eng, o),
		active:  map[string]bool{},
		used:    map[string]bool{},
		obs:     observerOf(ctx),
	}
	if p.obs != nil {
		p.obs.Attach(p)
	}
	if o.MemoryBudget > 0 {
		p.budget = semaphore.NewWeighted(o.MemoryBudget)
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-work.Done():
			return
		}
		if o.Grace > 0 {
			t := time.NewTimer(o.Grace)
			defer t.Stop()
			select {
			case <-t.C:
			case <-work.Done():
				return
			}
		}
		abort()
	}()
	go p.run()
	return p
}

// Abort cancels the running proofs now (their jobs get ErrAbandoned results).
func (p *Prover) Abort() { p.abort() }

// In is the flow's inlet (Envelope[Job] values).
func (p *Prover) In() chan<- any { return p.in }

// Out is the flow's outlet (Envelope[Result] values).
func (p *Prover) Out() <-chan any { return p.out }

// Via streams the results into the next flow.
func (p *Prover) Via(f streams.Flow) streams.Flow {
	go transmit(p, f)
	return f
}

// To streams the results into a sink and waits for it to finish.
func (p *Prover) To(s streams.Sink) {
	transmit(p, s)
	s.AwaitCompletion()
}

// Metrics returns the metrics so far (final once the outlet is closed).
func (p *Prover) Metrics() Metrics { return p.metrics.snapshot() }

type finished struct {
	ord       uint64 // arrival order at the Prover
	res       Result
	unordered bool
	held      bool   // holds a pending place
	id        string // the job id reserved, if any
	flow      string // the flow the job resolved to, if it got that far
}

func (p *Prover) run() {
	done := make(chan finished, p.opt.InFlight)
	var wg sync.WaitGroup
	emitted := make(chan struct{})
	go p.emit(done, emitted)

	var ord uint64
	for {
		env, ok := recv[Job](p.in)
		if !ok {
			break
		}
		f := finished{ord: ord, unordered: env.Val.Unordered}
		ord++
		if p.ctx.Err() == nil && p.pending.Acquire(p.ctx, 1) == nil {
			f.held = true
		}
		p.metrics.accepted()
		job, seq := env.Val, env.Seq
		f.flow = flowName(&job) // resolved by ParseJob, if it got that far
		switch {
		case !f.held:
			f.res = failed(seq, job.ID, fmt.Errorf("%w: job %s: %v", ErrAbandoned, job.ID, context.Cause(p.ctx)))
		case env.Err != nil:
			f.res = failed(seq, job.ID, env.Err)
		default:
			cost, reserved, err := p.admit(&job)
			f.flow = flowName(&job)
			if reserved {
				f.id = job.ID
			}
			if err != nil {
				f.res = failed(seq, job.ID, err)
				break
			}
			wg.Add(1)
			go func(f finished) {
				defer wg.Done()
				f.res = p.prove(seq, job, cost)
				done <- f
			}(f)
			continue
		}
		done <- f
	}
	wg.Wait()
	close(done)
	<-emitted
	p.abort()
}

// admit checks the job's limits (without doing work), reserves its id and waits for
// a proving slot and its memory budget. It returns the budgeted cost and whether the id was reserved
// (it stays reserved until the job's result is handed on).
func (p *Prover) admit(job *Job) (cost int64, reserved bool, err error) {
	if job.Flow == "" {
		job.Flow = p.opt.Flow
	}
	if err := job.check(p.opt.MaxN); err != nil {
		return 0, false, err
	}
	if job.isMerge() {
		return p.admitMerge(job)
	}
	fits := func(n int) bool {
		return n <= job.maxN(p.opt.MaxN) && job.flow.Check(n, job.LogInvRate) == nil &&
			(p.budget == nil || job.flow.Estimate(n, job.LogInvRate) <= p.opt.MemoryBudget)
	}
	n, err := job.size(p.opt.MaxInputBytes, fits)
	if err != nil {
		return 0, false, err
	}
	if maxN := job.maxN(p.opt.MaxN); n > maxN {
		return 0, false, fmt.Errorf("%w: job %s: %d instances (want 1..%d)", ErrLimit, job.ID, n, maxN)
	}
	if err := job.flow.Check(n, job.LogInvRate); err != nil {
		return 0, false, fmt.Errorf("%w: job %s: %v", ErrJob, job.ID, err)
	}
	cost = job.flow.Estimate(n, job.LogInvRate)
	if p.budget != nil && cost > p.opt.MemoryBudget {
		from := ""
		if p.opt.BudgetFrom != "" {
			from = ", " + p.opt.BudgetFrom
		}
		return 0, false, fmt.Errorf("%w: job %s: %d instances of %s at log_inv_rate %d need an estimated %s, over the memory budget of %s%s",
			ErrLimit, job.ID, n, job.flow.Name(), job.LogInvRate, sysmem.Format(cost), sysmem.Format(p.opt.MemoryBudget), from)
	}
	return p.reserve(job, cost)
}

// reserve reserves an admitted job's id and waits for a proving slot and cost bytes
// of the memory budget.
func (p *Prover) reserve(job *Job, cost int64) (int64, bool, error) {
	p.mu.Lock()
	busy, used := p.active[job.ID], p.opt.UniqueIDs && p.used[job.ID]
	if !busy && !used {
		p.active[job.ID] = true
		if p.opt.UniqueIDs {
			p.used[job.ID] = true
		}
	}
	p.mu.Unlock()
	if used && !busy {
		return 0, false, fmt.Errorf("%w: job %s: the id %q was already used in this stream; give each job its own id", ErrBusy, job.ID, job.ID)
	}
	if busy {
		return 0, false, fmt.Errorf("%w: job %s: another job with this id has not finished", ErrBusy, job.ID)
	}
	p.metrics.waiting(+1)
	defer p.metrics.waiting(-1)
	if err := p.slots.Acquire(p.ctx, 1); err != nil {
		return 0, true, fmt.Errorf("%w: job %s: %v", ErrAbandoned, job.ID, context.Cause(p.ctx))
	}
	if p.budget != nil {
		if err := p.budget.Acquire(p.ctx, cost); err != nil {
			p.slots.Release(1)
			return 0, true, fmt.Errorf("%w: job %s: %v", ErrAbandoned, job.ID, context.Cause(p.ctx))
		}
	}
	return cost, true, nil
}

// flowName is the name of the flow a job resolved to ("" when not resolved).
func flowName(j *Job) string {
	if j.flow == nil {
		return ""
	}
	return j.flow.Name()
}

func (p *Prover) release(id string) {
	p.mu.Lock()
	delete(p.active, id)
	p.mu.Unlock()
}

// prove loads and proves one admitted job and encodes its proof.
func (p *Prover) prove(seq uint64, job Job, cost int64) Result {
	start := time.Now()
	p.metrics.running(+1, cost)
	defer func() {
		// Count the proof out before its slot and budget can admit the next one.
		p.metrics.running(-1, -cost)
		if p.budget != nil {
			p.budget.Release(cost)
		}
		p.slots.Release(1)
	}()
	if err := p.work.Err(); err != nil {
		return failed(seq, job.ID, fmt.Errorf("%w: job %s: %v", ErrAbandoned, job.ID, err))
	}
	if job.isMerge() {
		return p.proveMerge(seq, job, start)
	}
	input, err := job.load(p.opt.MaxInputBytes, job.maxN(p.opt.MaxN))
	if err != nil {
		return failed(seq, job.ID, err)
	}
	req := flows.Request{Flow: job.flow, Input: input, LogInvRate: job.LogInvRate}
	proved, err := p.eng.Prove(p.work, req)
	if err != nil {
		if p.work.Err() != nil {
			err = fmt.Errorf("%w: job %s: %v", ErrAbandoned, job.ID, err)
		} else if bad := new(aggregate.InvalidSignatures); errors.As(err, &bad) {
			err = &inputError{msg: fmt.Sprintf("%v: job %s: %s", ErrJob, job.ID, DescribeInput(bad)), cause: err}
		} else {
			err = fmt.Errorf("stream: job %s: %w", job.ID, err)
		}
		return failed(seq, job.ID, err)
	}
	if p.opt.Verify {
		if _, err := job.flow.Verify(proved.Proof, proved.Statement); err != nil {
			return failed(seq, job.ID, fmt.Errorf("stream: job %s: the proof does not verify: %w", job.ID, err))
		}
	}
	data := flows.EncodeProof(proved.Proof, job.Format)
	r := Result{
		Seq: seq, ID: job.ID, OK: true, Flow: job.flow.Name(), N: input.Len(), Bytes: len(data), Form: job.Format,
		MS:   float64(time.Since(start).Microseconds()) / 1e3,
		Meta: flows.NewMetaFor(job.flow, proved.Statement, job.Format), Data: data, Proved: proved,
	}
	for _, form := range job.Extras() {
		r.Extra = append(r.Extra, Encoded{Meta: flows.NewMetaFor(job.flow, proved.Statement, form), Data: flows.EncodeProof(proved.Proof, form)})
	}
	p.metrics.proved(proved, job.flow.Name(), input.Len())
	if p.obs != nil {
		p.obs.Proved(r, start)
	}
	return r
}

// emit restores job order and hands results downstream; a job's pending place is
// freed once its result has been taken.
func (p *Prover) emit(done <-chan finished, emitted chan<- struct{}) {
	defer close(emitted)
	defer close(p.out)
	var next uint64
	held := map[uint64]finished{}
	gone := map[uint64]bool{} // unordered results already sent
	send := func(f finished) {
		if f.id != "" {
			p.release(f.id)
		}
		p.out <- Envelope[Result]{Seq: f.res.Seq, Val: f.res}
		p.metrics.emitted(f.res, f.flow)
		if f.held {
			p.pending.Release(1)
		}
	}
	for f := range done {
		if f.unordered {
			send(f)
			gone[f.ord] = true
		} else {
			held[f.ord] = f
		}
		for {
			if gone[next] {
				delete(gone, next)
				next++
				continue
			}
			h, ok := held[next]
			if !ok {
				break
			}
			delete(held, next)
			send(h)
			next++
		}
	}
}

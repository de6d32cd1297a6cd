package stream

import (
	"context"
	"sort"
	"time"
)

// Observer watches the Provers started under a context made with WithObserver, for
// metrics and traces (package observe implements it). It reads the Prover's own
// counters (Counts) and the Engine's spans (Result.Proved.Spans); it keeps no
// count of its own that could disagree with them. Its methods must be quick and
// safe for concurrent calls.
type Observer interface {
	// Attach is called once when a Prover starts, before it takes a job.
	Attach(p *Prover)
	// Proved is called once for every proof made, before its result goes
	// downstream: r is the job's result (r.Proved holds the Engine's spans) and
	// start the moment the job's work began (loading its input).
	Proved(r Result, start time.Time)
}

type observerKey struct{}

// WithObserver returns a context under which every Prover started (NewProver)
// reports to o.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observerOf(ctx context.Context) Observer {
	o, _ := ctx.Value(observerKey{}).(Observer)
	return o
}

// Counts are a Prover's live counters: the numbers behind Metrics, cheap to read at
// any time (no memory statistics, no per-stage sums).
type Counts struct {
	// Running is the proofs running now; Pending the jobs accepted and not yet
	// handed downstream (waiting, proving, or done and waiting for their turn:
	// what Options.Pending bounds); Waiting the admitted jobs waiting for a
	// proving slot or memory budget.
	Running, Pending, Waiting int
	// Jobs are the results handed downstream so far, per flow, in flow-name order.
	Jobs []FlowCount
}

// FlowCount is the results of one flow's jobs. Flow is the flow the job resolved to
// (empty for a job refused before its flow was known: unreadable, or naming no
// registered flow).
type FlowCount struct {
	Flow      string
	OK, Error int64
}

// Counts returns the Prover's counters now.
func (p *Prover) Counts() Counts {
	c := p.metrics
	c.mu.Lock()
	defer c.mu.Unlock()
	out := Counts{Running: c.nRunning, Pending: c.depth, Waiting: c.nWaiting, Jobs: make([]FlowCount, 0, len(c.byFlow))}
	for _, fc := range c.byFlow {
		out.Jobs = append(out.Jobs, *fc)
	}
	sort.Slice(out.Jobs, func(i, j int) bool { return out.Jobs[i].Flow < out.Jobs[j].Flow })
	return out
}

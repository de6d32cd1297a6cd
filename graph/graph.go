package graph

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Stage is a named, typed unit of work with an appetite for cores.
type Stage[In, Out any] struct {
	Name string
	// MinWorkers and MaxWorkers bound the worker count the scheduler grants
	// (MinWorkers ≥ 1; MaxWorkers 0 means as many as the scheduler has).
	MinWorkers, MaxWorkers int
	// Run does the work with exactly w.N() workers.
	Run func(ctx context.Context, w Workers, in In) (Out, error)
}

// Graph is a reusable plan of stages wired by typed ports. Build it once, run it many
// times; it is not safe to add nodes while it runs.
type Graph struct {
	nodes []*node
	names map[string]bool
}

type nodeKind int

const (
	kindStage nodeKind = iota
	kindInput
	kindSlot
	kindJoin
)

type node struct {
	id       int
	name     string
	kind     nodeKind
	min, max int
	deps     []*node
	fed      int // kindSlot: times fed
	exec     func(ctx context.Context, w Workers, in []any) (any, error)
}

// Port is the typed output of a node; consumers take it as their input.
type Port[T any] struct {
	g *Graph
	n *node
}

// Name is the name of the node producing the port.
func (p Port[T]) Name() string { return p.n.name }

// New returns an empty graph.
func New() *Graph { return &Graph{names: map[string]bool{}} }

func (g *Graph) add(n *node) {
	if n.name == "" {
		panic("graph: a node needs a name")
	}
	if g.names[n.name] {
		panic(fmt.Sprintf("graph: duplicate node name %q", n.name))
	}
	g.names[n.name] = true
	n.id = len(g.nodes)
	g.nodes = append(g.nodes, n)
}

func (g *Graph) own(n *node) {
	if n == nil || n.id >= len(g.nodes) || g.nodes[n.id] != n {
		panic("graph: port belongs to another graph")
	}
}

// Input declares a graph input of type T, bound at run time with Feed.
func Input[T any](g *Graph, name string) Port[T] {
	n := &node{name: name, kind: kindInput}
	g.add(n)
	return Port[T]{g, n}
}

// Then adds stage st consuming in and returns its output port.
func Then[In, Out any](g *Graph, st Stage[In, Out], in Port[In]) Port[Out] {
	g.own(in.n)
	if st.Run == nil {
		panic(fmt.Sprintf("graph: stage %q has no Run", st.Name))
	}
	n := &node{name: st.Name, kind: kindStage, min: max(1, st.MinWorkers), max: st.MaxWorkers, deps: []*node{in.n}}
	if n.max != 0 && n.max < n.min {
		panic(fmt.Sprintf("graph: stage %q has MaxWorkers < MinWorkers", st.Name))
	}
	n.exec = func(ctx context.Context, w Workers, v []any) (any, error) {
		return st.Run(ctx, w, v[0].(In))
	}
	g.add(n)
	return Port[Out]{g, n}
}

// Pair is the value of a two-way join.
type Pair[A, B any] struct {
	A A
	B B
}

// SizeBytes is the size of both halves, for spans.
func (p Pair[A, B]) SizeBytes() int64 { return sizeOf([]any{p.A, p.B}) }

// Join2 combines two ports into one carrying both values.
func Join2[A, B any](g *Graph, name string, a Port[A], b Port[B]) Port[Pair[A, B]] {
	g.own(a.n)
	g.own(b.n)
	n := &node{name: name, kind: kindJoin, deps: []*node{a.n, b.n}}
	n.exec = func(_ context.Context, _ Workers, v []any) (any, error) {
		return Pair[A, B]{v[0].(A), v[1].(B)}, nil
	}
	g.add(n)
	return Port[Pair[A, B]]{g, n}
}

// Slot declares a forward edge: the returned port can be consumed now and must be fed
// exactly once, later, with the returned function. Validate reports unfed or
// multiply fed slots and cycles formed through slots.
func Slot[T any](g *Graph, name string) (Port[T], func(Port[T])) {
	n := &node{name: name, kind: kindSlot}
	n.exec = func(_ context.Context, _ Workers, v []any) (any, error) { return v[0], nil }
	g.add(n)
	feed := func(src Port[T]) {
		g.own(src.n)
		n.fed++
		n.deps = append(n.deps, src.n)
	}
	return Port[T]{g, n}, feed
}

// Validation errors.
var (
	ErrCycle    = errors.New("graph: cycle")
	ErrUnfed    = errors.New("graph: input not fed")
	ErrMultiFed = errors.New("graph: edge has more than one producer")
)

// Validate checks that every slot is fed exactly once and that there is no cycle.
func (g *Graph) Validate() error {
	for _, n := range g.nodes {
		if n.kind == kindSlot && n.fed == 0 {
			return fmt.Errorf("%w: slot %q", ErrUnfed, n.name)
		}
		if n.kind == kindSlot && n.fed > 1 {
			return fmt.Errorf("%w: slot %q is fed %d times", ErrMultiFed, n.name, n.fed)
		}
	}
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(g.nodes))
	var visit func(n *node, path []string) error
	visit = func(n *node, path []string) error {
		switch color[n.id] {
		case grey:
			return fmt.Errorf("%w through %v", ErrCycle, append(path, n.name))
		case black:
			return nil
		}
		color[n.id] = grey
		for _, d := range n.deps {
			if err := visit(d, append(path, n.name)); err != nil {
				return err
			}
		}
		color[n.id] = black
		return nil
	}
	for _, n := range g.nodes {
		if err := visit(n, nil); err != nil {
			return err
		}
	}
	return nil
}

// Binding is a value for a graph input, made with Feed.
type Binding struct {
	n *node
	v any
}

// Feed binds value v to input port p for one run.
func Feed[T any](p Port[T], v T) Binding { return Binding{p.n, v} }

// Result holds the values and spans of one run.
type Result struct {
	values     []any
	done       []bool
	consumedBy []bool // a consumer of the node's value finished
	kind       []nodeKind
	Spans      []Span
}

// Unconsumed returns the values stages produced in a failed or cancelled run that no
// consumer finished with, so their owner can release what they hold.
func (r *Result) Unconsumed() []any {
	if r == nil {
		return nil
	}
	var out []any
	for id, done := range r.done {
		if !done || r.consumedBy[id] || r.kind[id] != kindStage {
			continue
		}
		out = append(out, r.values[id])
	}
	return out
}

// Value returns the value a port carried in a run.
func Value[T any](r *Result, p Port[T]) (T, bool) {
	var zero T
	if r == nil || p.n.id >= len(r.values) || !r.done[p.n.id] {
		return zero, false
	}
	v, ok := r.values[p.n.id].(T)
	return v, ok
}

// StageError is the error of a failed stage, naming it.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return fmt.Sprintf("stage %s: %v", e.Stage, e.Err) }
func (e *StageError) Unwrap() error { return e.Err }

// Run executes the graph with the given input bindings, granting cores from s. It
// returns the first stage error (as a *StageError); the remaining stages are
// cancelled. Spans are recorded for every stage that ran, failed or not.
func (g *Graph) Run(ctx context.Context, s *Scheduler, bindings ...Binding) (*Result, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if s == nil {
		s = NewScheduler(1)
	}
	res := &Result{values: make([]any, len(g.nodes)), done: make([]bool, len(g.nodes))}
	bound := make([]bool, len(g.nodes))
	for _, b := range bindings {
		g.own(b.n)
		if b.n.kind != kindInput {
			return nil, fmt.Errorf("graph: %q is not an input", b.n.name)
		}
		if bound[b.n.id] {
			return nil, fmt.Errorf("%w: input %q bound twice", ErrMultiFed, b.n.name)
		}
		bound[b.n.id] = true
		res.values[b.n.id] = b.v
		res.done[b.n.id] = true
	}
	for _, n := range g.nodes {
		if n.kind == kindInput && !bound[n.id] {
			return nil, fmt.Errorf("%w: input %q", ErrUnfed, n.name)
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	finished := make([]chan struct{}, len(g.nodes))
	for i := range finished {
		finished[i] = make(chan struct{})
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel(err)
		}
		mu.Unlock()
	}
	for _, n := range g.nodes {
		if n.kind == kindInput {
			close(finished[n.id])
			continue
		}
		wg.Add(1)
		go func(n *node) {
			defer wg.Done()
			defer close(finished[n.id])
			in := make([]any, len(n.deps))
			for i, d := range n.deps {
				select {
				case <-finished[d.id]:
				case <-ctx.Done():
					return
				}
				mu.Lock()
				ok := res.done[d.id]
				in[i] = res.values[d.id]
				mu.Unlock()
				if !ok {
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
			if n.kind != kindStage {
				out, _ := n.exec(ctx, NewWorkers(ctx, 1), in)
				mu.Lock()
				res.values[n.id], res.done[n.id] = out, true
				mu.Unlock()
				return
			}
			slots, err := s.acquireSlots(ctx, n.min, n.max)
			if err != nil {
				return
			}
			out, span, err := runStage(ctx, n.name, len(slots), sizeOf(in), func(sctx context.Context, w Workers) (any, error) {
				return n.exec(sctx, w, in)
			})
			span.Cores = slots
			s.releaseSlots(slots)
			mu.Lock()
			res.Spans = append(res.Spans, span)
			if err == nil {
				res.values[n.id], res.done[n.id] = out, true
			}
			mu.Unlock()
			if err != nil {
				fail(&StageError{Stage: n.name, Err: err})
			}
		}(n)
	}
	wg.Wait()
	res.consumedBy = make([]bool, len(g.nodes))
	res.kind = make([]nodeKind, len(g.nodes))
	for _, n := range g.nodes {
		res.kind[n.id] = n.kind
		if res.done[n.id] {
			for _, d := range n.deps {
				res.consumedBy[d.id] = true
			}
		}
	}
	sortSpans(res.Spans)
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil {
		return res, context.Cause(ctx)
	}
	return res, nil
}

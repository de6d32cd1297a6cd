package graph

import (
	"context"
	"fmt"
)

// Chain is an ordered sequence of stages from In to Out, type-checked as it is built
// (each stage's input type is the previous stage's output type). It is the one
// definition of a prover sequence: Run executes it directly, stage after stage on
// the caller's workers, and Wire adds it to a Graph as one node per stage. Both run
// the same stage functions in the same order.
type Chain[In, Out any] struct {
	steps []step
}

// step is a stage with its types erased; the Chain's constructors keep them sound.
type step struct {
	name     string
	min, max int
	run      func(ctx context.Context, w Workers, in any) (any, error)
}

func erase[In, Out any](st Stage[In, Out]) step {
	if st.Run == nil {
		panic(fmt.Sprintf("graph: stage %q has no Run", st.Name))
	}
	if st.Name == "" {
		panic("graph: a stage needs a name")
	}
	return step{
		name: st.Name, min: max(1, st.MinWorkers), max: st.MaxWorkers,
		run: func(ctx context.Context, w Workers, in any) (any, error) {
			return st.Run(ctx, w, in.(In))
		},
	}
}

// Begin starts a chain with stage st.
func Begin[In, Out any](st Stage[In, Out]) Chain[In, Out] {
	return Chain[In, Out]{steps: []step{erase(st)}}
}

// Append returns c followed by stage st.
func Append[In, Mid, Out any](c Chain[In, Mid], st Stage[Mid, Out]) Chain[In, Out] {
	steps := append(c.steps[:len(c.steps):len(c.steps)], erase(st))
	return Chain[In, Out]{steps: steps}
}

// Concat returns a followed by b.
func Concat[In, Mid, Out any](a Chain[In, Mid], b Chain[Mid, Out]) Chain[In, Out] {
	steps := append(a.steps[:len(a.steps):len(a.steps)], b.steps...)
	return Chain[In, Out]{steps: steps}
}

// Names lists the chain's stages in order.
func (c Chain[In, Out]) Names() []string {
	out := make([]string, len(c.steps))
	for i, s := range c.steps {
		out[i] = s.name
	}
	return out
}

// Len is the number of stages.
func (c Chain[In, Out]) Len() int { return len(c.steps) }

// Run executes the chain directly on the caller's goroutine: each stage gets w
// limited to its MaxWorkers, a panic in a stage (or recorded by its workers) becomes
// that stage's *StageError, and the context is checked between stages. It returns
// the spans of the stages that ran. On failure, the value the failing stage was given
// is returned as leftover so its owner can release what it holds (nil on success).
func (c Chain[In, Out]) Run(ctx context.Context, w Workers, in In) (out Out, spans []Span, leftover any, err error) {
	if w.N() < 1 {
		w = NewWorkers(ctx, 1)
	}
	var v any = in
	for _, s := range c.steps {
		if err := ctx.Err(); err != nil {
			return out, spans, v, context.Cause(ctx)
		}
		n := w.N()
		if s.max > 0 && s.max < n {
			n = s.max
		}
		next, span, e := runStage(ctx, s.name, n, sizeOf([]any{v}), func(sctx context.Context, sw Workers) (any, error) {
			return s.run(sctx, sw, v)
		})
		spans = append(spans, span)
		if e != nil {
			return out, spans, v, &StageError{Stage: s.name, Err: e}
		}
		v = next
	}
	return v.(Out), spans, nil, nil
}

// Wire adds the chain's stages to g after port in and returns the last stage's port.
func Wire[In, Out any](g *Graph, c Chain[In, Out], in Port[In]) Port[Out] {
	g.own(in.n)
	prev := in.n
	for _, s := range c.steps {
		s := s
		n := &node{name: s.name, kind: kindStage, min: s.min, max: s.max, deps: []*node{prev}}
		if n.max != 0 && n.max < n.min {
			panic(fmt.Sprintf("graph: stage %q has MaxWorkers < MinWorkers", s.name))
		}
		n.exec = func(ctx context.Context, w Workers, v []any) (any, error) {
			return s.run(ctx, w, v[0])
		}
		g.add(n)
		prev = n
	}
	return Port[Out]{g, prev}
}

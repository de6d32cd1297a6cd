package flows

import (
	"context"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

// proveFilled runs the batch flow's stages with the witness stage replaced by one
// that installs a given committed stack (the packed witness at offset 0: its lane
// blocks, or the whole 2^StackLog words with the zero lanes included) and the packed
// A·w, B·w — possibly a bad witness the real witness stage would never write.
func proveFilled(sh Shape, stack, a, b []field.K, workers int) (*transcript.Proof, error) {
	res := NewResources(nil, 1)
	st := Batch.Stages(res)
	install := graph.Stage[*Planned, Witnessed]{Name: "witness", Run: func(_ context.Context, _ graph.Workers, p *Planned) (Witnessed, error) {
		p.stack.Release()
		p.stack = res.K.Get(len(stack))
		copy(p.stack.Data(), stack)
		copy(p.a, a)
		copy(p.b, b)
		return Witnessed{p}, nil
	}}
	reduced := graph.Append(graph.Append(graph.Append(graph.Append(graph.Append(
		graph.Begin(st.Plan), install), st.Commit), st.Zerocheck), st.Lincheck), st.RingSwitch)
	chain := graph.Append(reduced, st.Open)
	ctx := context.Background()
	req := Request{Flow: Batch, Input: Blocks(make([]witness.Compression, sh.N)), LogInvRate: sh.LogInvRate}
	p, _, _, err := chain.Run(ctx, graph.NewWorkers(ctx, workers), req)
	if err != nil {
		return nil, err
	}
	return p.Proof, nil
}

// Command rootfile is an example of composing a custom flow from leanpipe's stages: the
// BLAKE2s batch flow with one extra stage, between the commitment and the zerocheck,
// that writes the commitment root (hex) to a file as soon as it is known.
//
//	go run ./examples/rootfile -n 300 -root root.hex -out batch.proof.bin
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"os"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
)

// writeRoot is the custom stage: it passes the committed batch through unchanged and
// writes its root.
func writeRoot(path string) graph.Stage[flows.Committed, flows.Committed] {
	return graph.Stage[flows.Committed, flows.Committed]{
		Name:       "write-root",
		MaxWorkers: 1,
		Run: func(_ context.Context, _ graph.Workers, c flows.Committed) (flows.Committed, error) {
			root := c.Root()
			return c, os.WriteFile(path, []byte(hex.EncodeToString(root[:])+"\n"), 0o644)
		},
	}
}

// proveWithRoot builds the custom graph on an engine and proves one batch.
func proveWithRoot(e *flows.Engine, req flows.Request, rootPath string) (flows.Proved, []graph.Span, error) {
	st := flows.Batch.Stages(e.Resources())
	g := graph.New()
	in := graph.Input[flows.Request](g, "request")
	planned := graph.Then(g, st.Plan, in)
	witnessed := graph.Then(g, st.Witness, planned)
	committed := graph.Then(g, st.Commit, witnessed)
	rooted := graph.Then(g, writeRoot(rootPath), committed)
	zerochecked := graph.Then(g, st.Zerocheck, rooted)
	linchecked := graph.Then(g, st.Lincheck, zerochecked)
	switched := graph.Then(g, st.RingSwitch, linchecked)
	proved := graph.Then(g, st.Open, switched)

	res, err := g.Run(context.Background(), e.Scheduler(), graph.Feed(in, req))
	if err != nil {
		flows.Release(res)
		return flows.Proved{}, nil, err
	}
	p, _ := graph.Value(res, proved)
	return p, res.Spans, nil
}

func main() {
	n := flag.Int("n", 300, "compressions to prove (generated, pinned)")
	seed := flag.Uint64("seed", 1, "seed of the generated compressions")
	rootPath := flag.String("root", "root.hex", "file the commitment root is written to")
	out := flag.String("out", "batch.proof.bin", "proof file (wire form)")
	flag.Parse()

	e, err := flows.NewEngine(flows.EngineOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer e.Close()
	p, spans, err := proveWithRoot(e, flows.Request{Input: flows.Blocks(flows.Generate(*n, *seed)), LogInvRate: 1}, *rootPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	meta := flows.NewMetaFor(flows.Batch, p.Statement, flows.FormatWire)
	if err := flows.WriteProof(*out, p.Proof, meta); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	graph.WriteTable(os.Stdout, fmt.Sprintf("%d compressions with a root file", *n), spans)
}

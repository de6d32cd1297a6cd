package witness

import (
	"context"
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

func TestStage(t *testing.T) {
	r := testrand.New(t)
	blocks := edgeBlocks(r, 11)
	g := graph.New()
	in := graph.Input[Job](g, "blocks")
	out := graph.Then(g, NewStage(), in)
	n := Words(4)
	job := Job{N: len(blocks), NLog: NLog(len(blocks)), Write: Compressions(blocks), W: make([]field.K, n), A: make([]field.K, n), B: make([]field.K, n)}
	res, err := g.Run(context.Background(), graph.NewScheduler(2), graph.Feed(in, job))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := graph.Value(res, out)
	if !ok || got.N != 11 || got.NLog != 4 || len(got.W) != n || len(got.A) != n {
		t.Fatalf("batch shape %d %d %d", got.N, got.NLog, len(got.W))
	}
	want := make([]field.K, n)
	if err := Fill(want, blocks, 4, par.New(nil, 1)); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got.W[i] != want[i] {
			t.Fatalf("stage output differs at word %d", i)
		}
	}
	checkBatch(t, got.W, got.A, got.B, blocks, 4)
	if _, err := g.Run(context.Background(), graph.NewScheduler(1), graph.Feed(in, Job{})); !errors.Is(err, ErrNoBlocks) {
		t.Fatalf("empty job: %v", err)
	}
	if _, err := g.Run(context.Background(), graph.NewScheduler(1), graph.Feed(in, Job{N: 1, NLog: 0})); !errors.Is(err, ErrNoWriter) {
		t.Fatalf("job without a writer: %v", err)
	}
}

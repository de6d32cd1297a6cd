package reduce

import (
	"context"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

func TestStageMatchesProveAndVerify(t *testing.T) {
	rng := testrand.New(t)
	lc := newLincheckCase(rng, 8, 4, 6)

	direct := &fakeTranscript{}
	dl, dr := Prove(direct, lc.c, lc.q, lc.live, lc.zc, nil, par.New(nil, 1))

	g := graph.New()
	in := graph.Input[Job](g, "claims")
	out := graph.Then(g, NewStage(), in)
	staged := &fakeTranscript{}
	job := Job{Transcript: staged, Circuit: lc.c, W: lc.q, Live: lc.live, Claims: lc.zc}
	res, err := g.Run(context.Background(), graph.NewScheduler(2), graph.Feed(in, job))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := graph.Value(res, out)
	if !ok {
		t.Fatal("no stage output")
	}
	if !equalEs(staged.stream, direct.stream) || got.Ring.Target != dr.Target || !equalEs(got.Lincheck.S, dl.S) ||
		!equalEs(got.Ring.Weights, dr.Weights) {
		t.Fatal("stage output differs from Prove")
	}
	vl, vr, err := Verify(direct.verifierCopy(), lc.c, lc.zc)
	if err != nil {
		t.Fatal(err)
	}
	if !equalEs(vl.Point, dl.Point) || vr.Target != dr.Target || vr.Weights != nil {
		t.Fatal("Verify disagrees with Prove")
	}
	x := randEs(rng, len(vl.Point))
	if vr.WeightAt(x) != field.EvalMLE(dr.Weights, x) {
		t.Fatal("verifier weight is not the MLE of the prover's table")
	}
}

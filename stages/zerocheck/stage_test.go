package zerocheck

import (
	"context"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

func TestStageMatchesProve(t *testing.T) {
	rng := testrand.New(t)
	in := randInput(rng, 16, 14, 2)
	want, wantRes := proveStream(t, in, 1)

	g := graph.New()
	port := graph.Input[Job](g, "job")
	out := graph.Then(g, NewStage(), port)
	p := transcript.NewProver(testLabel, nil)
	res, err := g.Run(context.Background(), graph.NewScheduler(2), graph.Feed(port, Job{Transcript: p, Input: in}))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := graph.Value(res, out)
	if !ok {
		t.Fatal("no stage output")
	}
	sameStream(t, "stage", p.Proof().Stream, want)
	if !sameResult(got, wantRes) {
		t.Fatal("stage result differs from Prove")
	}
}

// Verify never panics, whatever the stream and m.
func FuzzVerify(f *testing.F) {
	f.Add([]byte{1, 2, 3}, 14)
	f.Add(make([]byte, 24*100), 16)
	f.Add(make([]byte, 24*90), 13)
	f.Fuzz(func(t *testing.T, data []byte, m int) {
		if m > 40 {
			m %= 40
		}
		stream := make([]field.E, len(data)/24)
		for i := range stream {
			stream[i], _ = field.EFromBytes(data[24*i : 24*i+24])
		}
		_, _ = verifyStream(stream, m)
	})
}

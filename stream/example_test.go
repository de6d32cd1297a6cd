package stream_test

import (
	"context"
	"fmt"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
)

// Library use: jobs on a Go channel, proofs overlapping on one Engine, results in
// job order to a function (add stream.NewProofFiles(dir) between Prover and sink to
// write proof files).
func Example() {
	eng, err := flows.NewEngine(flows.EngineOptions{})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	ctx := context.Background()
	jobs := make(chan stream.Job)
	go func() {
		defer close(jobs)
		jobs <- stream.Job{ID: "first", Value: flows.Generate(12, 1)}
		jobs <- stream.Job{ID: "too-big", N: flows.MaxBatch + 1}
		jobs <- stream.Job{ID: "third", Value: flows.Generate(5, 2), Format: "raw"}
	}()
	p := stream.NewProver(ctx, eng, stream.Options{InFlight: 2})
	m := stream.Run(stream.NewChanSource(ctx, jobs), p, nil, stream.NewFuncSink(func(r stream.Result) {
		if r.OK {
			fmt.Printf("%d %s: proved %d compressions (%s, verifies: %v)\n", r.Seq, r.ID, r.N, r.Form,
				flows.VerifyBatch(r.Proved.Proof, r.N, r.Meta.LogInvRate) == nil)
		} else {
			fmt.Printf("%d %s: %v\n", r.Seq, r.ID, r.Err)
		}
	}))
	fmt.Printf("%d accepted, %d proved, %d refused\n", m.Accepted, m.OK, m.Refused)
	// Output:
	// 0 first: proved 12 compressions (wire, verifies: true)
	// 1 too-big: stream: job over the limits: job too-big: 1048577 instances, at most 1048576
	// 2 third: proved 5 compressions (raw, verifies: true)
	// 3 accepted, 2 proved, 1 refused
}

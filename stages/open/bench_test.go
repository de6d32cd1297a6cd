package open

import (
	"fmt"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// BenchmarkProveStacked measures the stacked opening (one eq-weighted ring claim
// on the whole stack) after a rate-1/2 commitment, excluding the commitment, with
// a reused Scratch (steady state of a long-running prover).
func BenchmarkProveStacked(b *testing.B) {
	rng := testrand.New(b)
	for _, log := range []int{20, 22} {
		in := newInstance(rng, log, 1, log, 0)
		for _, workers := range []int{1, 2} {
			c, err := commit.Commit(in.stack, log, 1, par.New(nil, workers))
			if err != nil {
				b.Fatal(err)
			}
			ring := in.ring(true)
			weights := append([]field.E(nil), ring.Weights...)
			var s Scratch
			b.Run(fmt.Sprintf("log=%d/workers=%d", log, workers), func(b *testing.B) {
				var cpu time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					copy(ring.Weights, weights) // the prover takes the full-stack column's weights over
					b.StartTimer()
					start := processCPU()
					tr := transcript.NewProver(testLabel, nil)
					if err := s.ProveStacked(tr, c, in.place, ring, nil, par.New(nil, workers)); err != nil {
						b.Fatal(err)
					}
					cpu += processCPU() - start
				}
				b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkVerifyStacked measures the verifier on a 2^20 opening.
func BenchmarkVerifyStacked(b *testing.B) {
	rng := testrand.New(b)
	in := newInstance(rng, 20, 1, 18, 1)
	proof := in.prove(b, 2)
	for b.Loop() {
		if err := in.verify(proof); err != nil {
			b.Fatal(err)
		}
	}
}

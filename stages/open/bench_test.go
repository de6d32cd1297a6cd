package open

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// BenchmarkProveStacked measures the stacked opening (one eq-weighted ring claim
// on the whole stack) after a rate-1/2 commitment, excluding the commitment.
func BenchmarkProveStacked(b *testing.B) {
	rng := testrand.New(b)
	for _, log := range []int{20, 22} {
		in := newInstance(rng, log, 1, log, 0)
		for _, workers := range []int{1, 2} {
			c, err := commit.Commit(in.stack, log, 1, workers)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("log=%d/workers=%d", log, workers), func(b *testing.B) {
				for b.Loop() {
					tr := transcript.NewProver(testLabel, nil)
					if err := ProveStacked(tr, c, in.place, in.ring(true), nil, workers); err != nil {
						b.Fatal(err)
					}
				}
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
	_ = field.Zero
}

package zerocheck

import (
	"fmt"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

// benchInput is the zerocheck input of 2^nLog pinned BLAKE2s compressions of random
// messages (no padding).
func benchInput(b *testing.B, nLog int) Input {
	rng := testrand.New(b)
	blocks := make([]witness.Compression, 1<<nLog)
	for i := range blocks {
		var msg [16]uint32
		for j := range msg {
			msg[j] = rng.Uint32()
		}
		blocks[i] = witness.Pinned(msg)
	}
	nw := witness.Words(nLog)
	w, a, bb := buffers.Make[field.K](nw), buffers.Make[field.K](nw), buffers.Make[field.K](nw)
	if err := witness.FillAB(w, a, bb, blocks, nLog, par.New(nil, 2)); err != nil {
		b.Fatal(err)
	}
	return Input{A: a, B: bb, C: w, M: 14 + nLog, LogInstance: 14, Live: 1 << nLog}
}

func BenchmarkProve(b *testing.B) {
	if testing.Short() {
		b.Skip("heavy")
	}
	sizes := []int{12, 14}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		sizes = append(sizes, 16, 18)
	}
	for _, nLog := range sizes {
		in := benchInput(b, nLog)
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("nlog=%d/workers=%d", nLog, workers), func(b *testing.B) {
				buf := new(Buffers)
				t0 := cpuTime()
				for b.Loop() {
					p := transcript.NewProver(batchLabel, nil)
					if _, err := ProveWith(p, in, par.New(nil, workers), buf); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)*float64(int(1)<<nLog)/b.Elapsed().Seconds(), "compressions/s")
				b.ReportMetric((cpuTime()-t0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

package aggregate

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// BenchmarkFill is the witness stage alone: plan, bit-sliced solve and packing of
// 200 signers in 256 slots.
func BenchmarkFill(b *testing.B) {
	in, err := Generate(200, 5, DefaultCache())
	if err != nil {
		b.Fatal(err)
	}
	c := New()
	const nLog = 8
	words := c.Size() / 64 << nLog
	wit, wa, wb := make([]field.K, words), make([]field.K, words), make([]field.K, words)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				if err := c.fill(par.New(nil, w), in, nLog, wit, wa, wb, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(in.Len())*float64(b.N)/b.Elapsed().Seconds(), "sigs/s")
		})
	}
}

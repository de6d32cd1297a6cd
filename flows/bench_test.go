package flows

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
)

// BenchmarkBatch proves 2^logN generated compressions on the engine (warm: caches and
// pools filled before the timer), at 1 and 2 workers (GOMAXPROCS and engine cores),
// reporting compressions/s, per-stage milliseconds and allocations per proof. 2^16
// runs with LEANPIPE_HEAVY=1.
func BenchmarkBatch(b *testing.B) {
	sizes := []int{12, 14}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		sizes = append(sizes, 16)
	}
	for _, logN := range sizes {
		blocks := Generate(1<<logN, 1)
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("logN=%d/workers=%d", logN, workers), func(b *testing.B) {
				if testing.Short() && logN > 12 {
					b.Skip("heavy under -short")
				}
				prev := runtime.GOMAXPROCS(workers)
				defer runtime.GOMAXPROCS(prev)
				e, err := NewEngine(EngineOptions{Cores: workers})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				req := Request{Input: Blocks(blocks), LogInvRate: 1}
				if _, err := e.Prove(context.Background(), req); err != nil {
					b.Fatal(err)
				}
				stage := map[string]float64{}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					p, err := e.Prove(context.Background(), req)
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range p.Spans {
						stage[s.Name] += float64(s.Duration.Microseconds()) / 1e3
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(len(blocks))*float64(b.N)/b.Elapsed().Seconds(), "compressions/s")
				for name, ms := range stage {
					b.ReportMetric(ms/float64(b.N), name+"-ms")
				}
			})
		}
	}
}

package stream

import (
	"context"
	"fmt"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/witness"
)

// BenchmarkStream16 proves 16 leaves of 2^12 compressions (and 2^14 with
// LEANPIPE_HEAVY=1) three ways, one op = the 16 leaves:
//   - stream-K: one warm Engine, the Prover keeping K proofs in flight;
//   - sequential: one warm Engine, the 16 proofs one after another (no overlap);
//   - cold: a fresh Engine per leaf (cold pools and shape cache: the in-process
//     stand-in for 16 separate processes; it does not pay process start-up).
//
// Each encodes the wire proof. Reported: leaves/s, compressions/s, process CPU
// time per leaf (user + system, all goroutines: less sensitive than wall time to
// other load on the machine), and Go heap
// allocations and bytes per leaf over the measured ops (after a one-leaf warm-up of
// the shared Engine).
func BenchmarkStream16(b *testing.B) {
	logs := []int{12}
	if os.Getenv("LEANPIPE_HEAVY") == "1" {
		logs = append(logs, 14)
	}
	const leaves = 16
	for _, logN := range logs {
		batches := make([][]witness.Compression, leaves)
		for i := range batches {
			batches[i] = flows.Generate(1<<logN, uint64(i+1))
		}
		modes := []struct {
			name string
			run  func(b *testing.B, eng *flows.Engine)
		}{
			{"stream-2", func(b *testing.B, eng *flows.Engine) { streamLeaves(b, eng, batches, 2) }},
			{"stream-3", func(b *testing.B, eng *flows.Engine) { streamLeaves(b, eng, batches, 3) }},
			{"sequential", func(b *testing.B, eng *flows.Engine) {
				for _, blocks := range batches {
					res, err := eng.Prove(context.Background(), flows.Request{Input: flows.Blocks(blocks), LogInvRate: 1})
					if err != nil {
						b.Fatal(err)
					}
					_ = res.Proof.MarshalWire()
				}
			}},
			{"cold", func(b *testing.B, _ *flows.Engine) {
				for _, blocks := range batches {
					eng, err := flows.NewEngine(flows.EngineOptions{})
					if err != nil {
						b.Fatal(err)
					}
					res, err := eng.Prove(context.Background(), flows.Request{Input: flows.Blocks(blocks), LogInvRate: 1})
					if err != nil {
						b.Fatal(err)
					}
					_ = res.Proof.MarshalWire()
					eng.Close()
				}
			}},
		}
		for _, mode := range modes {
			b.Run(fmt.Sprintf("log=%d/%s", logN, mode.name), func(b *testing.B) {
				// Pools sized for the most proofs any mode keeps in flight.
				eng, err := flows.NewEngine(flows.EngineOptions{InFlight: 3})
				if err != nil {
					b.Fatal(err)
				}
				defer eng.Close()
				if mode.name != "cold" {
					// Warm-up: one leaf fills the pools and the shape cache.
					if _, err := eng.Prove(context.Background(), flows.Request{Input: flows.Blocks(batches[0]), LogInvRate: 1}); err != nil {
						b.Fatal(err)
					}
				}
				var m0, m1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m0)
				b.ResetTimer()
				cpu0 := rusage.Process()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					mode.run(b, eng)
				}
				wall := time.Since(start)
				cpu := rusage.Process() - cpu0
				b.StopTimer()
				runtime.ReadMemStats(&m1)
				n := float64(b.N * leaves)
				b.ReportMetric(n/wall.Seconds(), "leaves/s")
				b.ReportMetric(n*float64(int(1)<<logN)/wall.Seconds(), "compressions/s")
				b.ReportMetric(float64(cpu.Microseconds())/1e3/n, "cpu-ms/leaf")
				b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/n, "allocs/leaf")
				b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/n, "B/leaf")
			})
		}
	}
}

func streamLeaves(b *testing.B, eng *flows.Engine, batches [][]witness.Compression, k int) {
	ctx := context.Background()
	jobs := make(chan Job)
	go func() {
		for i, blocks := range batches {
			jobs <- Job{ID: fmt.Sprintf("leaf%d", i), Value: blocks}
		}
		close(jobs)
	}()
	p := NewProver(ctx, eng, Options{InFlight: k})
	ok := 0
	Run(NewChanSource(ctx, jobs), p, nil, NewFuncSink(func(r Result) {
		if !r.OK {
			b.Fatalf("leaf %s: %v", r.ID, r.Err)
		}
		ok++
	}))
	if ok != len(batches) {
		b.Fatalf("%d of %d leaves proved", ok, len(batches))
	}
}

package keccak

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
)

// benchSizes are the permutation counts of the proving benchmarks: 2^10 by
// default, or the comma-separated counts in $LEANPIPE_KECCAK_N.
func benchSizes(b *testing.B) []int {
	s := os.Getenv("LEANPIPE_KECCAK_N")
	if s == "" {
		return []int{1 << 10}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			b.Fatalf("LEANPIPE_KECCAK_N: %q", f)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkProve proves N generated permutations on an engine (warm) with each
// layout at 1 and 2 workers, reporting permutations/s and per-stage milliseconds.
func BenchmarkProve(b *testing.B) {
	for _, n := range benchSizes(b) {
		for _, l := range []Layout{Sparse, Dense} {
			f := NewFlow(l)
			in, err := f.FromValue(GenerateInput(n, 1))
			if err != nil {
				b.Fatal(err)
			}
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("n=%d/perms=%d/workers=%d", n, l.Perms, workers), func(b *testing.B) {
					prev := runtime.GOMAXPROCS(workers)
					defer runtime.GOMAXPROCS(prev)
					e, err := flows.NewEngine(flows.EngineOptions{Cores: workers})
					if err != nil {
						b.Fatal(err)
					}
					defer e.Close()
					req := flows.Request{Flow: f, Input: in, LogInvRate: 1}
					if _, err := e.Prove(context.Background(), req); err != nil {
						b.Fatal(err)
					}
					stage := map[string]float64{}
					b.ResetTimer()
					for b.Loop() {
						p, err := e.Prove(context.Background(), req)
						if err != nil {
							b.Fatal(err)
						}
						for _, s := range p.Spans {
							stage[s.Name] += float64(s.Duration.Microseconds()) / 1e3
						}
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "perms/s")
					for name, ms := range stage {
						b.ReportMetric(ms/float64(b.N), name+"-ms")
					}
				})
			}
		}
	}
}

// BenchmarkVerify verifies a proof of N permutations (the registered layout; 2^12
// by default, $LEANPIPE_KECCAK_N otherwise) warm, and separately the statement's
// part: decoding the states, the digest, and the public term's evaluation.
func BenchmarkVerify(b *testing.B) {
	for _, n := range benchSizes(b) {
		in := GenerateInput(n, 1)
		batch, _ := Flow.FromValue(in)
		p, err := flows.Prove(context.Background(), flows.Request{Flow: Flow, Input: batch}, flows.ProveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d/proof", n), func(b *testing.B) {
			for b.Loop() {
				if err := Verify(p.Proof, in.States(), 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/verify")
		})
		b.Run(fmt.Sprintf("n=%d/states", n), func(b *testing.B) {
			sh, _ := Flow.Shape(batch.Len(), 1)
			tau := make([]field.E, FlowLayout.WindowLog())
			chi := make([]field.E, sh.NLog)
			for i := range tau {
				tau[i] = field.E{C0: field.K(i + 3)}
			}
			for i := range chi {
				chi[i] = field.E{C0: field.K(i + 7), C1: 1}
			}
			for b.Loop() {
				st, err := StatementFor(in.States(), 1)
				if err != nil {
					b.Fatal(err)
				}
				bd, err := bind(FlowLayout, st)
				if err != nil {
					b.Fatal(err)
				}
				bd.Public.Eval(tau, chi)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/perm")
		})
	}
}

// BenchmarkFill is the witness stage alone: the packed witness, A0·w and B0·w of
// 3,000 permutations (1,000 blocks in 1,024 slots) and of 2^14 permutations (5,462
// blocks in 8,192 slots: a third of the slots are padding copies), at 1 and 2
// workers.
func BenchmarkFill(b *testing.B) {
	for _, c := range []struct{ n, nLog int }{{3000, 10}, {1 << 14, 13}} {
		ins := GenerateInput(c.n, 5)
		words := 1 << (FlowLayout.LogSize - 6 + c.nLog)
		wit, wa, wb := make([]field.K, words), make([]field.K, words), make([]field.K, words)
		// One fill first: the buffers' pages are faulted in before any timing.
		if err := FlowLayout.fill(par.Serial(), ins, c.nLog, wit, wa, wb, nil); err != nil {
			b.Fatal(err)
		}
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/workers=%d", c.n, w), func(b *testing.B) {
				b.SetBytes(int64(3 * 8 * words))
				for b.Loop() {
					if err := FlowLayout.fill(par.New(nil, w), ins, c.nLog, wit, wa, wb, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(c.n)*float64(b.N)/b.Elapsed().Seconds(), "perms/s")
			})
		}
	}
}

package ntt

import (
	"fmt"
	"github.com/leanpipe/leanpipe/cpu"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/par"
)

// BenchmarkEncodeK is the level-0 encode of a full 64-lane stack of 2^logN K words at
// rate 1/2, the shape of a BLAKE2s batch commitment.
func BenchmarkEncodeK(b *testing.B) {
	// 2^23 words is the 200-signature XMSS leaf's stack.
	for _, logN := range []int{20, 22, 23} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("logN=%d/rate=1/workers=%d", logN, workers), func(b *testing.B) {
				if testing.Short() && logN > 20 {
					b.Skip("large encode skipped under -short")
				}
				msg := make([]field.K, 1<<logN)
				for i := range msg {
					msg[i] = field.K(uint64(i)*0x9e3779b97f4a7c15 ^ 0x1234)
				}
				const fold, rate = 6, 1
				p := NewPlan(logN - fold + rate)
				dst := make([]uint64, 1<<(logN+rate))
				b.SetBytes(int64(8 << logN))
				b.ResetTimer()
				c0 := cpuTime()
				for range b.N {
					p.EncodeK(dst, msg, fold, rate, par.New(nil, workers))
				}
				reportCPU(b, c0)
			})
		}
	}
}

// BenchmarkEncodeKLanes is the level-0 encode of a short stack: `lanes` blocks of 2^16
// words at rate 1/2, written as the committed tail (rows of `lanes` words).
func BenchmarkEncodeKLanes(b *testing.B) {
	for _, lanes := range []int{37, 61} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("lanes=%d/workers=%d", lanes, workers), func(b *testing.B) {
				const logRows, fold, rate = 16, 6, 1
				msg := make([]field.K, lanes<<logRows)
				for i := range msg {
					msg[i] = field.K(uint64(i)*0x9e3779b97f4a7c15 ^ 0x1234)
				}
				p := NewPlan(logRows + rate)
				dst := make([]uint64, lanes<<(logRows+rate))
				b.SetBytes(int64(8 * len(msg)))
				b.ResetTimer()
				c0 := cpuTime()
				for range b.N {
					p.EncodeK(dst, msg, fold, rate, par.New(nil, workers))
				}
				reportCPU(b, c0)
			})
		}
	}
}

// BenchmarkEncodeE is a deeper-level encode: 2^logN E values in 2^fold lanes (the
// opening's levels use 8-lane rows at rates 2^-4..2^-6).
func BenchmarkEncodeE(b *testing.B) {
	for _, sh := range []struct{ logN, fold, rate int }{{16, 4, 6}, {12, 4, 10}, {16, 3, 4}, {16, 3, 5}, {16, 3, 6}, {14, 3, 5}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("logN=%d/fold=%d/rate=%d/workers=%d", sh.logN, sh.fold, sh.rate, workers), func(b *testing.B) {
				fold := sh.fold
				msg := make([]field.E, 1<<sh.logN)
				for i := range msg {
					msg[i] = field.E{C0: field.K(i), C1: field.K(i * 3), C2: field.K(i * 7)}
				}
				p := NewPlan(sh.logN - fold + sh.rate)
				dst := make([]uint64, 3<<(sh.logN+sh.rate))
				b.SetBytes(int64(24 << sh.logN))
				b.ResetTimer()
				c0 := cpuTime()
				for range b.N {
					p.EncodeE(dst, msg, fold, sh.rate, par.New(nil, workers))
				}
				reportCPU(b, c0)
			})
		}
	}
}

func BenchmarkSubTarget(b *testing.B) {
	for _, st := range []int{17, 18, 19, 20, 21} {
		b.Run(fmt.Sprintf("sub=%d", st), func(b *testing.B) {
			saved := subTargetLog
			subTargetLog = st
			defer func() { subTargetLog = saved }()
			const logN, fold, rate = 22, 6, 1
			msg := make([]field.K, 1<<logN)
			for i := range msg {
				msg[i] = field.K(uint64(i)*0x9e3779b97f4a7c15 ^ 0x1234)
			}
			p := NewPlan(logN - fold + rate)
			dst := make([]uint64, 1<<(logN+rate))
			b.ResetTimer()
			c0 := cpuTime()
			for range b.N {
				p.EncodeK(dst, msg, fold, rate, par.New(nil, 1))
			}
			reportCPU(b, c0)
		})
	}
}

func BenchmarkButterfly(b *testing.B) {
	defer cpu.SetLevel(cpu.Active())()
	for _, lv := range Kernels.Levels() {
		cpu.SetLevel(lv)
		b.Run(lv.String(), func(b *testing.B) {
			u, v := make([]uint64, 512), make([]uint64, 512)
			for i := range u {
				u[i], v[i] = uint64(i)*0x9e3779b97f4a7c15, uint64(i)
			}
			b.SetBytes(8 * 512)
			for range b.N {
				fwd(u, v, 0x123456789abcdef)
			}
		})
	}
}

// cpuTime returns the process's user+system CPU time: on a shared machine it measures
// the work of a benchmark better than the wall clock.
var cpuTime = rusage.Process

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkInducedTable is a level's batched query weight table: 224 queries over a
// codeword of 2^17 points at rate 1/2.
func BenchmarkInducedTable(b *testing.B) {
	const logD, rate = 17, 1
	p := NewPlan(logD)
	queries := make([]int, 224)
	weights := make([]field.E, len(queries))
	for i := range queries {
		queries[i] = (i * 0x9e3779b1) & (1<<logD - 1)
		weights[i] = field.E{C0: field.K(i + 1), C1: field.K(i * 7), C2: 3}
	}
	dst := make([]field.E, 1<<(logD-rate))
	scratch := make([]field.E, 1<<logD)
	c0 := cpuTime()
	for range b.N {
		p.InducedTable(dst, queries, weights, rate, scratch, par.Serial())
	}
	reportCPU(b, c0)
}

// BenchmarkRadix4 runs two layers over four L1-resident rows as four butterflies and
// as one radix-4 call.
func BenchmarkRadix4(b *testing.B) {
	rows := make([][]uint64, 4)
	for i := range rows {
		rows[i] = make([]uint64, 512+8*i)[8*i:] // break 4 KiB aliasing between rows
		for k := range rows[i] {
			rows[i][k] = uint64(k*4+i) * 0x9e3779b97f4a7c15
		}
	}
	const t0, t1, t2 = 0x123456789abcdef, 0xfedcba987654321, 0x0f0f0f0f0f0f0f0f
	b.Run("radix2", func(b *testing.B) {
		b.SetBytes(8 * 4 * 512)
		for range b.N {
			fwd4Generic(rows[0], rows[1], rows[2], rows[3], t0, t1, t2)
		}
	})
	defer cpu.SetLevel(cpu.Active())()
	for _, lv := range Kernels.Levels() {
		cpu.SetLevel(lv)
		b.Run("radix4/"+lv.String(), func(b *testing.B) {
			b.SetBytes(8 * 4 * 512)
			for range b.N {
				fwd4(rows[0], rows[1], rows[2], rows[3], t0, t1, t2)
			}
		})
	}
}

// BenchmarkEncodeKLevels is BenchmarkEncodeK at 2^20 words and one worker at every
// kernel level, for level ratios within one run.
func BenchmarkEncodeKLevels(b *testing.B) {
	const logN, fold, rate = 20, 6, 1
	msg := make([]field.K, 1<<logN)
	for i := range msg {
		msg[i] = field.K(uint64(i)*0x9e3779b97f4a7c15 ^ 0x1234)
	}
	p := NewPlan(logN - fold + rate)
	dst := make([]uint64, 1<<(logN+rate))
	defer cpu.SetLevel(cpu.Active())()
	for _, lv := range Kernels.Levels() {
		cpu.SetLevel(lv)
		b.Run(lv.String(), func(b *testing.B) {
			b.SetBytes(int64(8 << logN))
			c0 := cpuTime()
			for range b.N {
				p.EncodeK(dst, msg, fold, rate, par.New(nil, 1))
			}
			reportCPU(b, c0)
		})
	}
}

// BenchmarkTranspose is the level-0 transpose of 64 lanes of 2^14 words into rows of 64
// words (one worker) at every kernel level.
func BenchmarkTranspose(b *testing.B) {
	const n, s, rows = 64, 64, 1 << 14
	msg := make([]uint64, n*rows)
	for i := range msg {
		msg[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	buf := make([]uint64, s*rows)
	defer cpu.SetLevel(cpu.Active())()
	for _, lv := range Kernels.Levels() {
		cpu.SetLevel(lv)
		b.Run(lv.String(), func(b *testing.B) {
			b.SetBytes(int64(8 * len(msg)))
			for range b.N {
				transposeLanes(buf, s, msg, n, rows, 1, par.New(nil, 1))
			}
		})
	}
}

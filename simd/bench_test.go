package simd

import (
	"fmt"
	"github.com/leanpipe/leanpipe/cpu"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// Benchmarks sweep the dispatch levels; run them with -cpu=1 for one-core figures.

func benchLevels(b *testing.B, f func(b *testing.B)) {
	for _, l := range cpu.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			f(b)
		})
	}
}

// clock counts the iterations of a b.Loop and reports elems/s from wall time and, on
// Linux, cpu-ns/op and cpu-elems/s from the thread's CPU time: on a shared machine
// wall time includes waiting for a core.
type clock struct {
	wall  time.Time
	cpu   time.Duration
	cpuOK bool
	iters int
}

func startClock() *clock {
	runtime.LockOSThread()
	t, ok := threadCPU()
	return &clock{wall: time.Now(), cpu: t, cpuOK: ok}
}

func (c *clock) report(b *testing.B, elems int) {
	wall := time.Since(c.wall)
	t, ok := threadCPU()
	runtime.UnlockOSThread()
	if c.iters == 0 {
		return
	}
	if elems > 0 {
		b.ReportMetric(float64(elems)*float64(c.iters)/wall.Seconds(), "elems/s")
	}
	if !c.cpuOK || !ok {
		return
	}
	d := t - c.cpu
	b.ReportMetric(float64(d.Nanoseconds())/float64(c.iters), "cpu-ns/op")
	if elems > 0 && d > 0 {
		b.ReportMetric(float64(elems)*float64(c.iters)/d.Seconds(), "cpu-elems/s")
	}
}

var sinkK uint64

func BenchmarkMulK(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		x, y := uint64(0x9e3779b97f4a7c15), uint64(0xc2b2ae3d27d4eb4f)
		c := startClock()
		for b.Loop() {
			x = MulK(x, y) // dependent chain: latency-bound
			c.iters++
		}
		c.report(b, 0)
		sinkK = x
	})
}

func BenchmarkMulE(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		x := [3]uint64{1, 2, 3}
		y := [3]uint64{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9}
		c := startClock()
		for b.Loop() {
			MulE(&x, &x, &y)
			c.iters++
		}
		c.report(b, 0)
		sinkK = x[0]
	})
}

func benchVector(b *testing.B, name string, words func(n int) (dst, a, c []uint64), f func(dst, a, c []uint64)) {
	for _, n := range []int{1 << 10, 1 << 16} {
		b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				dst, a, c := words(n)
				rng := rand.New(rand.NewPCG(1, 2))
				for _, v := range [][]uint64{dst, a, c} {
					for i := range v {
						v[i] = rng.Uint64()
					}
				}
				clk := startClock()
				for b.Loop() {
					f(dst, a, c)
					clk.iters++
				}
				clk.report(b, n)
			})
		})
	}
}

func BenchmarkVector(b *testing.B) {
	ee := func(n int) ([]uint64, []uint64, []uint64) {
		return make([]uint64, 3*n), make([]uint64, 3*n), make([]uint64, 3*n)
	}
	ek := func(n int) ([]uint64, []uint64, []uint64) {
		return make([]uint64, 3*n), make([]uint64, 3*n), make([]uint64, n)
	}
	kk := func(n int) ([]uint64, []uint64, []uint64) {
		return make([]uint64, n), make([]uint64, n), make([]uint64, n)
	}
	s := [3]uint64{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9}
	benchVector(b, "MulKK", kk, func(d, a, c []uint64) { MulKK(d, a, c) })
	benchVector(b, "MulEK", ek, func(d, a, c []uint64) { MulEK(d, a, c) })
	benchVector(b, "MulEE", ee, func(d, a, c []uint64) { MulEE(d, a, c) })
	benchVector(b, "ScaleE", ee, func(d, a, c []uint64) { ScaleE(d, a, &s) })
	benchVector(b, "AxpyE", ee, func(d, a, c []uint64) { AxpyE(d, a, &s) })
	benchVector(b, "AxpyKE", ek, func(d, a, c []uint64) { AxpyKE(d, c, &s) })
	benchVector(b, "DotKE", ek, func(d, a, c []uint64) { sinkK = DotKE(c, a)[0] })
	benchVector(b, "DotEE", ee, func(d, a, c []uint64) { sinkK = DotEE(a, c)[0] })
	benchVector(b, "DotPairsEE", ee, func(d, a, c []uint64) { sinkK = func() uint64 { q, _, _ := DotPairsEE(a, c); return q[0] }() })
	benchVector(b, "FoldPairsE", ee, func(d, a, c []uint64) { FoldPairsE(d[:len(d)/2], a, &s) })
	benchVector(b, "FoldE", ee, func(d, a, c []uint64) { FoldE(d, a, c, &s) })
	benchVector(b, "FoldK", ek, func(d, a, c []uint64) { FoldK(d, c, a[:len(c)], &s) })
}

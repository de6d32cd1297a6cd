package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks sweep the dispatch levels; run them with -cpu=1 for one-core figures.

func benchLevels(b *testing.B, f func(b *testing.B)) {
	for _, l := range Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer SetLevel(l)()
			f(b)
		})
	}
}

var sinkK uint64

func BenchmarkMulK(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		x, y := uint64(0x9e3779b97f4a7c15), uint64(0xc2b2ae3d27d4eb4f)
		for b.Loop() {
			x = MulK(x, y) // dependent chain: latency-bound
		}
		sinkK = x
	})
}

func BenchmarkMulE(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		x := [3]uint64{1, 2, 3}
		y := [3]uint64{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9}
		for b.Loop() {
			MulE(&x, &x, &y)
		}
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
				for b.Loop() {
					f(dst, a, c)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elems/s")
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
	benchVector(b, "FoldPairsE", ee, func(d, a, c []uint64) { FoldPairsE(d[:len(d)/2], a, &s) })
	benchVector(b, "FoldE", ee, func(d, a, c []uint64) { FoldE(d, a, c, &s) })
}

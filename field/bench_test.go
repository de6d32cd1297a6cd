package field

import (
	"fmt"
	"github.com/leanpipe/leanpipe/cpu"
	"testing"

	"github.com/leanpipe/leanpipe/simd"
)

var sinkE E

func benchLevels(b *testing.B, f func(b *testing.B)) {
	for _, l := range simd.Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			f(b)
		})
	}
}

func BenchmarkEMul(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		x, y := E{1, 2, 3}, E{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9}
		for b.Loop() {
			x = x.Mul(y)
		}
		sinkE = x
	})
}

func BenchmarkEInv(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		x := E{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9}
		for b.Loop() {
			x = x.Inv()
		}
		sinkE = x
	})
}

func BenchmarkEFrobenius(b *testing.B) {
	for _, k := range []int{1, 64, 100} {
		b.Run(fmt.Sprint("k=", k), func(b *testing.B) {
			x := E{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9}
			for b.Loop() {
				x = x.Frobenius(k)
			}
			sinkE = x
		})
	}
}

func BenchmarkEqTable(b *testing.B) {
	point := make([]E, 16)
	for i := range point {
		point[i] = E{K(i + 1), K(3*i + 7), K(5*i + 11)}
	}
	dst := make([]E, 1<<len(point))
	benchLevels(b, func(b *testing.B) {
		for b.Loop() {
			EqTable(dst, point)
		}
		b.ReportMetric(float64(len(dst))*float64(b.N)/b.Elapsed().Seconds(), "elems/s")
	})
}

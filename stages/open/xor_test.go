package open

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// xorWords at every dispatch level equals the portable loop, for lengths around the
// 16-word block and unaligned starts, and writes nothing past dst.
func TestXorWordsLevels(t *testing.T) {
	rng := testrand.New(t)
	for _, level := range Kernels.Levels() {
		restore := cpu.SetLevel(level)
		for _, n := range []int{0, 1, 3, 15, 16, 17, 31, 48, 384, 1000} {
			for _, off := range []int{0, 1, 3} {
				a, b := make([]uint64, n+off+8), make([]uint64, n+off+8)
				for i := range a {
					a[i], b[i] = rng.Uint64(), rng.Uint64()
				}
				got := make([]uint64, n+off+8)
				want := make([]uint64, n)
				for i := range want {
					want[i] = a[off+i] ^ b[off+i]
				}
				xorWords(got[off:off+n], a[off:], b[off:])
				for i := range got {
					w := uint64(0)
					if i >= off && i < off+n {
						w = want[i-off]
					}
					if got[i] != w {
						t.Fatalf("%v n=%d off=%d: word %d is %#x, want %#x", level, n, off, i, got[i], w)
					}
				}
			}
		}
		restore()
	}
}

func BenchmarkXorWords(b *testing.B) {
	x, y, d := make([]uint64, 384), make([]uint64, 384), make([]uint64, 384)
	for _, level := range Kernels.Levels() {
		b.Run(fmt.Sprint(level), func(b *testing.B) {
			defer cpu.SetLevel(level)()
			b.SetBytes(8 * 384)
			for b.Loop() {
				xorWords(d, x, y)
			}
		})
	}
}

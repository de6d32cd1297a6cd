package circuit

import (
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The unreduced accumulators, reduced, are the sums of the products: flushAccGo
// against field.AddScaledE over several flushes.
func TestFlushAccGo(t *testing.T) {
	r := testrand.New(t)
	const n = 64
	acc := make([]uint64, n/8*uaccGroupWords)
	wantA, wantB := make([]field.E, n), make([]field.E, n)
	for range 5 {
		a, b, h := randVec(r, n), randVec(r, n), randVec(r, 1)[0]
		flushAccGo(acc, a, b, h)
		field.AddScaledE(wantA, a, h)
		field.AddScaledE(wantB, b, h)
	}
	gotA, gotB := make([]field.E, n), make([]field.E, n)
	uaccSums(gotA, gotB, acc)
	for j := range n {
		if gotA[j] != wantA[j] || gotB[j] != wantB[j] {
			t.Fatalf("slot %d: (%v, %v), want (%v, %v)", j, gotA[j], gotB[j], wantA[j], wantB[j])
		}
	}
}

// The flush kernel at every level of the family leaves the accumulators word for
// word as its portable twin does.
func TestFlushAccLevels(t *testing.T) {
	r := testrand.New(t)
	for _, n := range []int{8, 16, 1024} {
		a, b := randVec(r, n), randVec(r, n)
		hs := randVec(r, 3)
		start := make([]uint64, n/8*uaccGroupWords)
		for i := range start {
			start[i] = r.Uint64()
		}
		want := append([]uint64(nil), start...)
		for _, h := range hs {
			flushAccGo(want, a, b, h)
		}
		for _, l := range append([]cpu.Level{cpu.Portable}, Kernels.Levels()...) {
			func() {
				defer cpu.SetLevel(l)()
				got := append([]uint64(nil), start...)
				for _, h := range hs {
					flushAcc(got, a, b, h)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("n %d level %v: word %d is %#x, want %#x", n, l, i, got[i], want[i])
					}
				}
			}()
		}
	}
}

package field

import (
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// Fold and FoldK against the definition dst[i] = lo[i] + r·(lo[i] + hi[i]) written
// with E arithmetic, at every kernel level, out of place and in place (dst = lo and
// dst = hi), over lengths around the vector kernels' block sizes.
func TestFold(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := testrand.New(t)
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 257} {
			lo, hi := randEs(rng, n), randEs(rng, n)
			klo, khi := randKs(rng, n), randKs(rng, n)
			r := randE(rng)
			want := make([]E, n)
			wantK := make([]E, n)
			for i := range want {
				want[i] = lo[i].Add(r.Mul(lo[i].Add(hi[i])))
				wantK[i] = FromK(klo[i]).Add(r.Mul(FromK(klo[i]).Add(FromK(khi[i]))))
			}
			check := func(name string, got, want []E) {
				t.Helper()
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("n=%d: %s entry %d: got %v, want %v", n, name, i, got[i], want[i])
					}
				}
			}
			dst := randEs(rng, n)
			Fold(dst, lo, hi, r)
			check("Fold", dst, want)
			dst = randEs(rng, n)
			FoldK(dst, klo, khi, r)
			check("FoldK", dst, wantK)

			a := append([]E(nil), lo...)
			Fold(a, a, hi, r)
			check("Fold with dst = lo", a, want)
			b := append([]E(nil), hi...)
			Fold(b, lo, b, r)
			check("Fold with dst = hi", b, want)
		}
	})
}

func TestFoldLengths(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	e := func(n int) []E { return make([]E, n) }
	k := func(n int) []K { return make([]K, n) }
	mustPanic("Fold short lo", func() { Fold(e(4), e(3), e(4), One) })
	mustPanic("Fold short hi", func() { Fold(e(4), e(4), e(3), One) })
	mustPanic("Fold short dst", func() { Fold(e(3), e(4), e(4), One) })
	mustPanic("FoldK short lo", func() { FoldK(e(4), k(3), k(4), One) })
	mustPanic("FoldK short hi", func() { FoldK(e(4), k(4), k(3), One) })
	mustPanic("FoldK short dst", func() { FoldK(e(3), k(4), k(4), One) })
}

func TestFoldAllocs(t *testing.T) {
	rng := testrand.New(t)
	lo, hi, dst := randEs(rng, 64), randEs(rng, 64), make([]E, 64)
	klo, khi := randKs(rng, 64), randKs(rng, 64)
	r := randE(rng)
	if n := testing.AllocsPerRun(20, func() {
		Fold(dst, lo, hi, r)
		FoldK(dst, klo, khi, r)
	}); n != 0 {
		t.Fatalf("Fold, FoldK: %v allocations per run", n)
	}
}

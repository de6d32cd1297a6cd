package field

import (
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// TestEqTableOn pins EqTableOn to EqTable at 1 to 3 workers, below, at and past the
// size where it splits the table into blocks.
func TestEqTableOn(t *testing.T) {
	rng := testrand.New(t)
	for _, n := range []int{0, 3, eqBlockLog + 2, eqBlockLog + 3, 17} {
		point := make([]E, n)
		for j := range point {
			point[j] = E{C0: K(rng.Uint64()), C1: K(rng.Uint64()), C2: K(rng.Uint64())}
		}
		want := make([]E, 1<<n)
		EqTable(want, point)
		for _, workers := range []int{1, 2, 3} {
			got := make([]E, 1<<n)
			EqTableOn(got, point, par.New(nil, workers))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n=%d workers=%d: entry %d differs", n, workers, i)
				}
			}
		}
	}
}

// TestAddEqScaledOn: adding scale·eq(point, ·) in one pass gives the entries of the
// table formed and scaled, then added, at every size around the block and at 1 to
// 3 workers; the entries it must not touch stay.
func TestAddEqScaledOn(t *testing.T) {
	rng := testrand.New(t)
	randE := func() E { return E{C0: K(rng.Uint64()), C1: K(rng.Uint64()), C2: K(rng.Uint64())} }
	for _, n := range []int{0, 1, 5, eqBlockLog, eqBlockLog + 1, eqBlockLog + 3, 15} {
		point := make([]E, n)
		for j := range point {
			point[j] = randE()
		}
		scale := randE()
		base := make([]E, 1<<n)
		for i := range base {
			base[i] = randE()
		}
		eq := make([]E, 1<<n)
		EqTable(eq, point)
		for _, workers := range []int{1, 2, 3} {
			got := append([]E(nil), base...)
			AddEqScaledOn(got, point, scale, par.New(nil, workers))
			for i := range got {
				if want := base[i].Add(scale.Mul(eq[i])); got[i] != want {
					t.Fatalf("n=%d workers=%d: entry %d differs", n, workers, i)
				}
			}
		}
	}
}

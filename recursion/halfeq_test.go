package recursion

import (
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/field"
)

// TestHalfEq: halfEq.at equals eqIndex for points of 0 to 9 coordinates at every
// index, and at indices with bits past the point's length.
func TestHalfEq(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 10 {
		r := make([]field.E, n)
		for i := range r {
			r[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
		}
		e := newHalfEq(r)
		for j := range 1 << (n + 1) {
			if e.at(j) != eqIndex(r, j) {
				t.Fatalf("n=%d, j=%d: halfEq %v, eqIndex %v", n, j, e.at(j), eqIndex(r, j))
			}
		}
	}
}

package aggregate

import (
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// Random permutations are routed: the reference model of the pruned network sends
// src[o] to every read output o, at every width the recursion meets.
func TestBenesRoutesPermutations(t *testing.T) {
	r := testrand.New(t)
	for _, n := range []int{2, 4, 8, 16, 128} {
		for _, need := range []int{1, n / 2, n - 1, n} {
			if need < 1 {
				continue
			}
			for trial := 0; trial < 200; trial++ {
				src := r.Perm(n)
				ctl := benesRoute(src, need)
				if len(ctl) != benesSwitches(n, need) {
					t.Fatalf("n=%d need=%d: %d controls, want %d", n, need, len(ctl), benesSwitches(n, need))
				}
				in := make([]int, n)
				for i := range in {
					in[i] = i
				}
				out, err := benesApply(in, need, ctl)
				if err != nil {
					t.Fatal(err)
				}
				for o := 0; o < need; o++ {
					if out[o] != src[o] {
						t.Fatalf("n=%d need=%d: output %d got input %d, want %d", n, need, o, out[o], src[o])
					}
				}
			}
		}
	}
	t.Logf("pruned network on %d lanes for %d outputs: %d switches (full: %d)", RouteLanes, RouteOutputs, RouteControls, benesSwitches(RouteLanes, RouteLanes))
}

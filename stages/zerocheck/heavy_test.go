package zerocheck

import (
	"fmt"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// With LEANPIPE_HEAVY=1: larger round trips and tails (m up to 24).
func TestHeavy(t *testing.T) {
	if os.Getenv("LEANPIPE_HEAVY") == "" {
		t.Skip("set LEANPIPE_HEAVY=1")
	}
	rng := testrand.New(t)
	for _, m := range []int{21, 22, 24} {
		count := 1 << (m - 14)
		for _, live := range []int{0, 1, count/2 + 3, count - 1, count} {
			in := randInput(rng, m, 14, live)
			got, res := proveStream(t, in, 2)
			full := in
			full.LogInstance = 0
			want, _ := proveStream(t, full, 2)
			sameStream(t, fmt.Sprintf("m=%d live=%d", m, live), got, want)
			v, err := verifyStream(got, m)
			if err != nil || !sameResult(v, res) {
				t.Fatalf("m=%d live=%d: verifier disagrees (%v)", m, live, err)
			}
		}
	}
}

package circuit

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// A widened tensor is the same vector: widening moves High coordinates into Low
// (up to the target, never past the vector's length) and leaves a Low at or past
// the target as it is.
func TestTensorWiden(t *testing.T) {
	r := testrand.New(t)
	for _, c := range []struct{ lowLog, logLen, k, wantLow int }{
		{0, 8, 4, 4}, {6, 12, 10, 10}, {6, 8, 10, 8}, {3, 3, 5, 3}, {10, 12, 10, 10}, {11, 12, 10, 11},
	} {
		tt := randTensor(r, c.lowLog, c.logLen)
		w := tt.widen(c.k)
		what := fmt.Sprintf("low 2^%d of 2^%d widened to 2^%d", c.lowLog, c.logLen, c.k)
		if got := lowLog(w.Low); got != c.wantLow || w.LogLen() != c.logLen {
			t.Fatalf("%s: low 2^%d of 2^%d, want 2^%d of 2^%d", what, got, w.LogLen(), c.wantLow, c.logLen)
		}
		want, got := make([]field.E, 1<<c.logLen), make([]field.E, 1<<c.logLen)
		tt.Fill(want)
		w.Fill(got)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: entry %d differs", what, i)
			}
		}
	}
}

package commit

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// BenchmarkCommit measures the level-0 commitment (encode + Merkle) at rate 1/2.
func BenchmarkCommit(b *testing.B) {
	rng := testrand.New(b)
	for _, log := range []int{20, 22} {
		stack := make([]field.K, 1<<log)
		for i := range stack {
			stack[i] = field.K(rng.Uint64())
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("log=%d/workers=%d", log, workers), func(b *testing.B) {
				b.SetBytes(int64(8 << log))
				for b.Loop() {
					if _, err := Commit(stack, log, 1, workers); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

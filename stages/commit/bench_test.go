package commit

import (
	"fmt"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// BenchmarkCommit measures the level-0 commitment (encode + Merkle) at rate 1/2:
// fresh buffers per call (Commit) and a reused Committed (CommitInto, the steady
// state of a long-running prover). LEANPIPE_HEAVY adds the stacks of 2^16 and 2^18
// BLAKE2s compressions (2^24 and 2^26 words).
func BenchmarkCommit(b *testing.B) {
	rng := testrand.New(b)
	logs := []int{20, 22, 23} // 2^23: the 200-signature XMSS leaf's stack
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		logs = append(logs, 24, 26)
	}
	for _, log := range logs {
		// The stack is made by the first sub-benchmark that runs, so that a filtered
		// run does not fill the stacks of the other sizes.
		var stack []field.K
		makeStack := func() {
			if stack == nil {
				stack = make([]field.K, 1<<log)
				for i := range stack {
					stack[i] = field.K(rng.Uint64())
				}
			}
		}
		for _, reused := range []bool{false, true} {
			for _, workers := range []int{1, 2} {
				name := "fresh"
				if reused {
					name = "into"
				}
				b.Run(fmt.Sprintf("log=%d/%s/workers=%d", log, name, workers), func(b *testing.B) {
					makeStack()
					var dst Committed
					if reused {
						if err := CommitInto(&dst, stack, log, 1, par.New(nil, workers)); err != nil {
							b.Fatal(err)
						}
					}
					b.SetBytes(int64(8 << log))
					b.ReportAllocs()
					cpu := processCPU()
					for b.Loop() {
						var err error
						if reused {
							err = CommitInto(&dst, stack, log, 1, par.New(nil, workers))
						} else {
							_, err = Commit(stack, log, 1, par.New(nil, workers))
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					reportCPU(b, cpu)
				})
			}
		}
	}
}

package lincheck

import (
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// PartialFold at every kernel level equals the bit-by-bit fold, over shapes with
// full and partial tiles, zero words, zero slot groups and a padding tail.
func TestPartialFoldLevels(t *testing.T) {
	rng := testrand.New(t)
	for _, tc := range []struct{ words, nLog, live int }{
		{1, 5, 0}, {3, 5, 0}, {4, 6, 0}, {5, 7, 100}, {2, 8, 33}, {7, 8, 0}, {4, 9, 200},
	} {
		slots := 1 << tc.nLog
		q := make([]field.K, tc.words*slots)
		for i := range q {
			switch rng.IntN(5) {
			case 0: // zero word
			case 1:
				q[i] = field.K(1) << uint(rng.IntN(64))
			default:
				q[i] = field.K(rng.Uint64())
			}
		}
		// A whole zero word across a tile and a zero slot group.
		for s := 0; s < min(slots, 64); s++ {
			q[s*tc.words] = 0
		}
		clear(q[16*tc.words : 24*tc.words])
		if tc.live > 0 {
			pad := q[(slots-1)*tc.words:]
			for s := tc.live; s < slots; s++ {
				copy(q[s*tc.words:(s+1)*tc.words], pad)
			}
		}
		eqOut := randEs(rng, slots)
		want := make([]field.E, tc.words*KBits)
		for s := 0; s < slots; s++ {
			foldSlot(want, q[s*tc.words:(s+1)*tc.words], eqOut[s])
		}
		for _, l := range Kernels.Levels() {
			restore := cpu.SetLevel(l)
			for _, workers := range []int{1, 2, 3} {
				got := make([]field.E, len(want))
				PartialFold(got, q, tc.words, eqOut, 0, par.New(nil, workers))
				if !equalEs(got, want) {
					restore()
					t.Fatalf("%+v level %v workers=%d: PartialFold differs from the bit fold", tc, l, workers)
				}
			}
			restore()
		}
	}
}

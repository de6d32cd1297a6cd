package lincheck

import (
	"fmt"
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
		// Several tiles of slot groups (an odd count in the last one), word blocks of
		// 8 and a partial last block.
		{10, 10, 0}, {13, 10, 1000}, {16, 11, 1497}, {9, 11, 0},
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
		levels := Kernels.Levels()
		if len(levels) < 2 {
			t.Logf("reduce kernels: only %v here", levels)
		}
		for _, l := range levels {
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

// BenchmarkPartialFold times the slot fold alone at each kernel level: 2^nLog slots
// of the BLAKE2s circuit's 256 words (the lincheck's shape), and a cache-resident
// 512 slots × 8 words.
func BenchmarkPartialFold(b *testing.B) {
	rng := testrand.New(b)
	for _, sh := range []struct{ nLog, words int }{{9, 8}, {12, 256}, {16, 256}} {
		slots := 1 << sh.nLog
		q := make([]field.K, slots*sh.words)
		for i := range q {
			q[i] = field.K(rng.Uint64())
		}
		eqOut := randEs(rng, slots)
		dst := make([]field.E, sh.words*KBits)
		for _, l := range Kernels.Levels() {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("nlog=%d/words=%d/%v/workers=%d", sh.nLog, sh.words, l, workers), func(b *testing.B) {
					restore := cpu.SetLevel(l)
					defer restore()
					fs := new(foldScratch)
					for b.Loop() {
						partialFold(dst, q, sh.words, eqOut, 0, par.New(nil, workers), fs)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(slots/8*sh.words), "ns/group-word")
				})
			}
		}
	}
}

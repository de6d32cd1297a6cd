package open

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The verifier's enforced sum from the opened words is the prover's from the
// decoded rows, for level-0 rows (K words, lanes reversed) and deeper rows (E
// values), at fold counts 1, 4 and 6.
func TestEnforcedSumWords(t *testing.T) {
	rng := testrand.New(t)
	randE := func() field.E {
		return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	for _, foldCount := range []int{1, 4, 6} {
		for _, k0 := range []bool{true, false} {
			folds := make([]field.E, foldCount)
			for i := range folds {
				folds[i] = randE()
			}
			const queries = 9
			weights := make([]field.E, queries)
			words := make([][]uint64, queries)
			rows := make([][]field.E, queries)
			for i := range words {
				weights[i] = randE()
				n := 1 << foldCount
				if !k0 {
					n *= extWordsPerElement
				}
				words[i] = make([]uint64, n)
				for j := range words[i] {
					words[i][j] = rng.Uint64()
				}
				rows[i] = make([]field.E, 1<<foldCount)
				if k0 {
					level0RowInto(rows[i], words[i])
				} else {
					extRowInto(rows[i], words[i])
				}
			}
			want := enforcedSumInto(make([]field.E, 1<<foldCount), rows, folds, weights)
			if got := enforcedSumWords(words, k0, folds, weights); got != want {
				t.Fatalf("fold %d level0 %v: %v, want %v", foldCount, k0, got, want)
			}
		}
	}
}

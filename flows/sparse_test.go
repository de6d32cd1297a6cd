package flows

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// TestSparseWeightWorkers checks the linear sumcheck's sparse weight on several
// workers (its terms sorted in chunks and merged, its round sums and folds over
// chunks of pairs) against one worker: the same entries, round sums and folds,
// round after round, for term lists long enough to be cut into 2, 3 and 4 chunks.
func TestSparseWeightWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	randE := func() field.E {
		return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	const log = 18
	claims := make([]LinearClaim, 5)
	for c := range claims {
		for range 6 * sparseChunk / len(claims) * (c + 1) / 3 {
			// Words crowd a few regions, repeat across and within claims, and fill
			// both entries of many pairs.
			w := rng.IntN(1<<log) &^ (rng.IntN(4) << 10)
			claims[c].Terms = append(claims[c].Terms, LinearTerm{Word: w, Coeff: randE()})
		}
	}
	which := []int{0, 1, 2, 3, 4}
	pow := []field.E{field.One, randE(), randE(), randE(), randE()}
	col := make([]field.K, 1<<log)
	for i := range col {
		col[i] = field.K(rng.Uint64())
	}
	one := par.New(nil, 1)
	// Words 0: the sorted path, whatever the terms' count.
	want := newSparseWeight(claims, which, pow, 0, one)
	if len(want.idx) < 4*sparseChunk || !slices.IsSorted(want.idx) {
		t.Fatalf("%d entries (sorted %v): the test needs more than %d", len(want.idx), slices.IsSorted(want.idx), 4*sparseChunk)
	}
	// The dense path (enough terms for the column's length) gives the same entries.
	n := 0
	for _, c := range claims {
		n += len(c.Terms)
	}
	if n < (1<<log)/denseTerms {
		t.Fatalf("%d terms: too few for the dense path over 2^%d words", n, log)
	}
	if d := newSparseWeight(claims, which, pow, 1<<log, one); !slices.Equal(d.idx, want.idx) || !slices.Equal(d.w, want.w) {
		t.Fatalf("the dense path's %d entries differ from the sorted path's %d", len(d.idx), len(want.idx))
	}
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("%d workers", n), func(t *testing.T) {
			w := par.New(nil, n)
			got := newSparseWeight(claims, which, pow, 0, w)
			ref := sparseWeight{idx: slices.Clone(want.idx), w: slices.Clone(want.w)}
			if !slices.Equal(got.idx, ref.idx) || !slices.Equal(got.w, ref.w) {
				t.Fatalf("entries differ from one worker's")
			}
			c1, c2 := foldingColumn{k: col}, foldingColumn{k: col}
			for r := range 8 {
				a0, a1, ai := ref.roundSums(&c1, one)
				b0, b1, bi := got.roundSums(&c2, w)
				if a0 != b0 || a1 != b1 || ai != bi {
					t.Fatalf("round %d: round sums differ from one worker's", r)
				}
				rho := randE()
				ref.fold(rho, one)
				got.fold(rho, w)
				c1.fold(rho, one)
				c2.fold(rho, w)
				if !slices.Equal(got.idx, ref.idx) || !slices.Equal(got.w, ref.w) {
					t.Fatalf("round %d: folded weight differs from one worker's", r)
				}
			}
		})
	}
}

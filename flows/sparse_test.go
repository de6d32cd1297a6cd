package flows

import (
	"fmt"
	"math/rand/v2"
	"runtime"
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

// BenchmarkSparseWeight builds the sparse weight of one claim shaped like a 2→1
// merge's products segment: 191K terms on 79K distinct words of a 2^20-word column.
func BenchmarkSparseWeight(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	const log, distinct, terms = 20, 79 << 10, 191 << 10
	words := make([]int, distinct)
	for i := range words {
		words[i] = rng.IntN(1 << log)
	}
	claims := []LinearClaim{{}}
	for range terms {
		e := field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
		claims[0].Terms = append(claims[0].Terms, LinearTerm{Word: words[rng.IntN(distinct)], Coeff: e})
	}
	pow := []field.E{{C0: 7, C1: 9, C2: 11}}
	w := par.New(nil, runtime.GOMAXPROCS(0))
	for b.Loop() {
		newSparseWeight(claims, []int{0}, pow, 1<<log, w)
	}
}

// TestFoldingColumnLevels folds columns keeping 1 to maxFoldLevels folds pending
// (foldLevelsK's chunks, several of them, on one and two workers) and checks every
// entry after every round against the column folded one level at a time by FoldLowK
// and FoldLow.
func TestFoldingColumnLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	randE := func() field.E {
		return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	for _, v := range []int{1, 2, 5, 15} {
		col := make([]field.K, 1<<v)
		for i := range col {
			col[i] = field.K(rng.Uint64())
		}
		rs := make([]field.E, v)
		for i := range rs {
			rs[i] = randE()
		}
		// want[r] is the column after r folds.
		want := [][]field.E{make([]field.E, len(col))}
		for i, x := range col {
			want[0][i] = field.FromK(x)
		}
		for r := range rs {
			next := make([]field.E, len(want[r])/2)
			if r == 0 {
				field.FoldLowK(next, col, rs[0])
			} else {
				field.FoldLow(next, want[r], rs[r])
			}
			want = append(want, next)
		}
		for levels := 1; levels <= maxFoldLevels; levels++ {
			for _, workers := range []int{1, 2} {
				c := foldingColumn{k: col, levels: levels}
				w := par.New(nil, workers)
				for r := 0; r <= v; r++ {
					if c.len() != len(want[r]) {
						t.Fatalf("2^%d words, %d levels, %d workers, round %d: %d entries, want %d", v, levels, workers, r, c.len(), len(want[r]))
					}
					for i := range want[r] {
						if got := c.at(i); got != want[r][i] {
							t.Fatalf("2^%d words, %d levels, %d workers, round %d: entry %d differs", v, levels, workers, r, i)
						}
					}
					if r < v {
						c.fold(rs[r], w)
					}
				}
			}
		}
	}
}

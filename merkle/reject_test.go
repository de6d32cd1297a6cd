package merkle

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// TestExpandRejectReasons forges one value of a pruned phase at a time (a row word, a
// sibling, the sibling count, the positions, the queries, the shape) and requires the
// check that guards that value to be the one that rejects it, by its message.
func TestExpandRejectReasons(t *testing.T) {
	rng := testrand.New(t)
	const depth, rowWords, leafWords = 6, 3, 10
	rows := randRows(rng, 1<<depth, rowWords)
	tr := NewPadded(nil, rows, rowWords, leafWords, par.Serial())
	root := tr.Root()
	queries := randQueries(rng, 1<<depth, 9)
	pos := SortedUnique(queries)
	ph := tr.OpenPhase(queries)
	expand := func(root Digest, depth int, pos []int, data [][]uint64, sib []Digest, q []int, leafWords int) error {
		_, err := ExpandPadded(root, depth, pos, data, sib, q, leafWords)
		return err
	}
	if err := expand(root, depth, pos, ph.Rows, ph.Siblings, queries, leafWords); err != nil {
		t.Fatalf("honest phase: %v", err)
	}
	row := cloneRows(ph.Rows)
	row[len(row)/2][1] ^= 1
	sib := slices.Clone(ph.Siblings)
	sib[len(sib)/2][7] ^= 0x80
	unsorted := slices.Clone(pos)
	unsorted[0], unsorted[1] = unsorted[1], unsorted[0]
	wide := cloneRows(ph.Rows)
	wide[0] = append(wide[0], make([]uint64, leafWords)...)
	other := slices.Clone(queries)
	for q := 0; q < 1<<depth; q++ {
		if _, ok := slices.BinarySearch(pos, q); !ok {
			other[0] = q // a position the phase did not open
			break
		}
	}
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"forged row word", "root mismatch", expand(root, depth, pos, row, ph.Siblings, queries, leafWords)},
		{"forged sibling", "root mismatch", expand(root, depth, pos, ph.Rows, sib, queries, leafWords)},
		{"another root", "root mismatch", expand(Digest{1}, depth, pos, ph.Rows, ph.Siblings, queries, leafWords)},
		{"missing sibling", "too few siblings", expand(root, depth, pos, ph.Rows, ph.Siblings[:len(ph.Siblings)-1], queries, leafWords)},
		{"extra sibling", "siblings supplied", expand(root, depth, pos, ph.Rows, append(slices.Clone(ph.Siblings), Digest{}), queries, leafWords)},
		{"negative depth", "depth -1", expand(root, -1, pos, ph.Rows, ph.Siblings, queries, leafWords)},
		{"depth past 62", "depth 63", expand(root, 63, pos, ph.Rows, ph.Siblings, queries, leafWords)},
		{"no queries", "no queries", expand(root, depth, pos, ph.Rows, ph.Siblings, nil, leafWords)},
		{"missing row", "rows for", expand(root, depth, pos, ph.Rows[1:], ph.Siblings, queries, leafWords)},
		{"unsorted positions", "not strictly ascending", expand(root, depth, unsorted, ph.Rows, ph.Siblings, queries, leafWords)},
		{"position out of range", "not strictly ascending", expand(root, depth, append(slices.Clone(pos[:len(pos)-1]), 1<<depth), ph.Rows, ph.Siblings, queries, leafWords)},
		{"query not opened", "was not opened", expand(root, depth, pos, ph.Rows, ph.Siblings, other, leafWords)},
		{"row not queried", "distinct queries", expand(root, depth, pos, ph.Rows, ph.Siblings, slices.DeleteFunc(slices.Clone(queries), func(q int) bool { return q == pos[0] }), leafWords)},
		{"row wider than its leaf", "wider than", expand(root, depth, pos, wide, ph.Siblings, queries, leafWords)},
		{"negative leaf width", "leaf width -1", expand(root, depth, pos, ph.Rows, ph.Siblings, queries, -1)},
	} {
		if !errors.Is(c.err, ErrInvalidOpening) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrInvalidOpening with %q", c.name, c.err, c.want)
		}
	}
}

package merkle

import (
	"errors"
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/buffers"
)

// ErrInvalidOpening is returned (wrapped) for any opening that does not authenticate.
var ErrInvalidOpening = errors.New("merkle: invalid opening")

// RawOpening is one query's unpruned opening: the row and its full sibling path, leaf
// level first.
type RawOpening struct {
	Leaf []uint64
	Path []Digest
}

// Phase is one pruned multi-path opening: the rows at the distinct queried positions in
// ascending order, and the siblings as Tree.Prune emits them.
type Phase struct {
	Rows     [][]uint64
	Siblings []Digest
}

// SortedUnique returns the distinct values of queries in ascending order (a new slice).
func SortedUnique(queries []int) []int {
	s := slices.Clone(queries)
	slices.Sort(s)
	return slices.Compact(s)
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidOpening}, args...)...)
}

// Expand authenticates a pruned phase against root and returns one raw opening per
// query, in query order (a repeated query repeats its opening; repeated openings share
// their slices, which the caller must treat as read-only).
//
// The tree has depth levels; rows must be SortedUnique(queries) (passed in so a caller
// that has it does not recompute it) and rowData the rows opened at those positions. Any
// inconsistency (no queries, wrong row count, an out-of-range or unopened query, a
// missing or extra sibling, a root mismatch) returns an error wrapping
// ErrInvalidOpening. Expand never panics on its inputs; row widths are the caller's to
// check.
func Expand(root Digest, depth int, rows []int, rowData [][]uint64, siblings []Digest, queries []int) ([]RawOpening, error) {
	return expand(root, depth, rows, rowData, siblings, queries, -1)
}

// ExpandPadded is Expand for a padded tree (see NewPadded): each stored row is at most
// leafWords wide and its leaf image is the zero prefix followed by the row. The returned
// openings hold the full images.
func ExpandPadded(root Digest, depth int, rows []int, rowData [][]uint64, siblings []Digest, queries []int, leafWords int) ([]RawOpening, error) {
	if leafWords < 0 {
		return nil, invalid("leaf width %d", leafWords)
	}
	return expand(root, depth, rows, rowData, siblings, queries, leafWords)
}

// expand implements Expand; leafWords < 0 means the rows are their own images.
func expand(root Digest, depth int, rows []int, rowData [][]uint64, siblings []Digest, queries []int, leafWords int) ([]RawOpening, error) {
	if depth < 0 || depth > 62 {
		return nil, invalid("depth %d", depth)
	}
	if len(queries) == 0 {
		return nil, invalid("no queries")
	}
	if len(rowData) != len(rows) {
		return nil, invalid("%d rows for %d positions", len(rowData), len(rows))
	}
	n := 1 << depth
	for k, r := range rows {
		if r < 0 || r >= n || (k > 0 && r <= rows[k-1]) {
			return nil, invalid("row positions not strictly ascending in [0, %d)", n)
		}
	}
	// The walk's working arrays come off a shelf: a verifier expands openings proof
	// after proof, and fresh arrays would be fresh pages each time.
	sc := expandScratches.Get()
	defer expandScratches.Put(sc)
	// Every query must be an opened row and every opened row a query.
	slot := buffers.Grow(sc.slot, len(queries))
	used := buffers.Grow(sc.used, len(rows))
	clear(used)
	sc.slot, sc.used = slot, used
	distinct := 0
	for j, q := range queries {
		k, ok := slices.BinarySearch(rows, q)
		if !ok {
			return nil, invalid("query %d was not opened", q)
		}
		slot[j] = k
		if !used[k] {
			used[k] = true
			distinct++
		}
	}
	if distinct != len(rows) {
		return nil, invalid("%d rows opened for %d distinct queries", len(rows), distinct)
	}
	images := rowData
	if leafWords >= 0 {
		images = make([][]uint64, len(rowData))
		for k, r := range rowData {
			if len(r) > leafWords {
				return nil, invalid("row %d has %d words, wider than the %d-word leaf", k, len(r), leafWords)
			}
			if len(r) == leafWords {
				images[k] = r
				continue
			}
			images[k] = make([]uint64, leafWords)
			copy(images[k][leafWords-len(r):], r)
		}
	}

	// Walk up the levels, keeping the sorted active nodes (index, hash). For each active
	// node its sibling is either the next active node or the next supplied digest.
	m := len(rows)
	idx := append(sc.idx[:0], rows...)
	hash := buffers.Grow(sc.hash, m)
	sc.flat = hashLeaves(hash, images, sc.flat)
	sib := buffers.Grow(sc.sib, m)
	parentOf := buffers.Grow(sc.parentOf, m)
	at := buffers.Grow(sc.at, m) // at[k]: position of distinct leaf k's ancestor among the active nodes
	sc.idx, sc.hash, sc.sib, sc.parentOf, sc.at = idx, hash, sib, parentOf, at
	for k := range at {
		at[k] = k
	}
	paths := make([]Digest, m*depth)
	// pairs[2j], pairs[2j+1]: the children of the level's j-th parent, hashed all at once.
	pairs := buffers.Grow(sc.pairs, 2*m)
	sc.pairs = pairs
	next := 0
	for level := 0; level < depth; level++ {
		out := 0
		for i := 0; i < len(idx); {
			p := idx[i]
			switch {
			case p&1 == 0 && i+1 < len(idx) && idx[i+1] == p|1:
				pairs[2*out], pairs[2*out+1] = hash[i], hash[i+1]
				sib[i], sib[i+1] = hash[i+1], hash[i]
				parentOf[i], parentOf[i+1] = out, out
				i += 2
			default:
				if next == len(siblings) {
					return nil, invalid("too few siblings (%d)", len(siblings))
				}
				s := siblings[next]
				next++
				if p&1 == 0 {
					pairs[2*out], pairs[2*out+1] = hash[i], s
				} else {
					pairs[2*out], pairs[2*out+1] = s, hash[i]
				}
				sib[i] = s
				parentOf[i] = out
				i++
			}
			// out <= the first index just read, so the in-place compaction is safe.
			idx[out] = p >> 1
			out++
		}
		nodeMany(hash[:out], pairs[:2*out])
		for k := range at {
			paths[k*depth+level] = sib[at[k]]
			at[k] = parentOf[at[k]]
		}
		idx, hash = idx[:out], hash[:out]
	}
	if next != len(siblings) {
		return nil, invalid("%d siblings supplied, %d used", len(siblings), next)
	}
	if hash[0] != root {
		return nil, invalid("root mismatch")
	}

	openings := make([]RawOpening, len(queries))
	for j, k := range slot {
		openings[j] = RawOpening{Leaf: images[k], Path: paths[k*depth : (k+1)*depth : (k+1)*depth]}
	}
	return openings, nil
}

// expandScratch is expand's working arrays, kept between calls.
type expandScratch struct {
	slot, idx, parentOf, at []int
	used                    []bool
	hash, sib, pairs        []Digest
	flat                    []uint64
}

var expandScratches buffers.Shelf[expandScratch]

// hashLeaves sets dst[k] to the leaf hash of images[k]: all at once through the many-lane
// hasher when the images share one width (the images gathered in flat, grown as needed
// and returned), else one by one.
func hashLeaves(dst []Digest, images [][]uint64, flat []uint64) []uint64 {
	w := -1
	for _, img := range images {
		if w >= 0 && len(img) != w {
			w = -1
			break
		}
		w = len(img)
	}
	if w <= 0 {
		for k, img := range images {
			dst[k] = HashRow(img)
		}
		return flat
	}
	flat = buffers.Grow(flat, len(images)*w)[:0]
	for _, img := range images {
		flat = append(flat, img...)
	}
	hashRows(dst, flat, w, 0)
	return flat
}

// OpenPhase returns the pruned opening of queries (any order, duplicates allowed): copies
// of the distinct stored rows (not leaf images) in ascending order and their pruned
// siblings.
func (t *Tree) OpenPhase(queries []int) Phase {
	rows := SortedUnique(queries)
	data := make([][]uint64, len(rows))
	flat := make([]uint64, len(rows)*t.rowWords)
	for k, r := range rows {
		data[k] = flat[k*t.rowWords : (k+1)*t.rowWords : (k+1)*t.rowWords]
		copy(data[k], t.Row(r))
	}
	return Phase{Rows: data, Siblings: t.Prune(rows)}
}

// OpenRaw returns the unpruned openings of queries in query order, each with its own copy
// of the leaf image.
func (t *Tree) OpenRaw(queries []int) []RawOpening {
	out := make([]RawOpening, len(queries))
	for j, q := range queries {
		if q < 0 || q >= t.Leaves() {
			panic(fmt.Sprintf("merkle: query %d out of range [0, %d)", q, t.Leaves()))
		}
		out[j] = RawOpening{Leaf: slices.Clone(t.Leaf(q)), Path: t.Path(q)}
	}
	return out
}

package merkle

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

func randRows(rng *rand.Rand, leaves, rowWords int) []uint64 {
	rows := make([]uint64, leaves*rowWords)
	for i := range rows {
		rows[i] = rng.Uint64()
	}
	return rows
}

// naiveTree hashes leaf by leaf through an explicit byte encoding, independent of the
// in-place view and of the batching in New.
func naiveTree(rows []uint64, rowWords int) []Digest {
	n := len(rows) / rowWords
	var nodes []Digest
	buf := make([]byte, 8*rowWords)
	for i := 0; i < n; i++ {
		for j := 0; j < rowWords; j++ {
			binary.LittleEndian.PutUint64(buf[8*j:], rows[i*rowWords+j])
		}
		nodes = append(nodes, blake2s.Sum256(buf))
	}
	for start, width := 0, n; width > 1; start, width = start+width, width/2 {
		for i := 0; i < width/2; i++ {
			var pair [64]byte
			copy(pair[:32], nodes[start+2*i][:])
			copy(pair[32:], nodes[start+2*i+1][:])
			nodes = append(nodes, blake2s.Sum256(pair[:]))
		}
	}
	return nodes
}

func TestTreeMatchesNaive(t *testing.T) {
	rng := testrand.New(t)
	for _, c := range []struct{ leaves, rowWords int }{
		{1, 1}, {1, 64}, {2, 3}, {8, 8}, {64, 24}, {256, 64}, {2048, 8}, {4096, 1},
	} {
		rows := randRows(rng, c.leaves, c.rowWords)
		want := naiveTree(rows, c.rowWords)
		for _, w := range []int{0, 1, 2, 3, 7} {
			tr := New(rows, c.rowWords, par.New(nil, w))
			if !slices.Equal(tr.Nodes(), want) {
				t.Fatalf("leaves=%d rowWords=%d workers=%d: nodes differ from the naive tree", c.leaves, c.rowWords, w)
			}
			if tr.Root() != want[len(want)-1] || tr.Leaves() != c.leaves || tr.RowWords() != c.rowWords {
				t.Fatalf("leaves=%d rowWords=%d: accessors disagree", c.leaves, c.rowWords)
			}
		}
	}
}

func TestNewIntoUsesBuffer(t *testing.T) {
	rng := testrand.New(t)
	rows := randRows(rng, 128, 5)
	buf := make([]Digest, NodeCount(128)+10)
	tr := NewInto(buf, rows, 5, par.New(nil, 2))
	if &tr.Nodes()[0] != &buf[0] || len(tr.Nodes()) != NodeCount(128) {
		t.Fatal("NewInto did not build into the caller's buffer")
	}
	if tr.Root() != New(rows, 5, par.New(nil, 1)).Root() {
		t.Fatal("NewInto root differs from New")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a short node buffer must panic")
		}
	}()
	NewInto(make([]Digest, 10), rows, 5, par.New(nil, 1))
}

func TestPaths(t *testing.T) {
	rng := testrand.New(t)
	rows := randRows(rng, 64, 3)
	tr := New(rows, 3, par.New(nil, 2))
	if tr.Depth() != 6 {
		t.Fatalf("depth %d, want 6", tr.Depth())
	}
	for i := 0; i < 64; i++ {
		p := tr.Path(i)
		if len(p) != 6 || !VerifyPath(tr.Root(), tr.Row(i), i, p) {
			t.Fatalf("path of leaf %d does not verify", i)
		}
		if VerifyPath(tr.Root(), tr.Row(i), i^1, p) || VerifyPath(tr.Root(), tr.Row(i), i+64, p) || VerifyPath(tr.Root(), tr.Row(i), -1, p) {
			t.Fatalf("path of leaf %d verifies at a wrong index", i)
		}
		for l := range p {
			q := slices.Clone(p)
			q[l][rng.IntN(32)] ^= 1 << rng.IntN(8)
			if VerifyPath(tr.Root(), tr.Row(i), i, q) {
				t.Fatalf("tampered sibling %d of leaf %d verifies", l, i)
			}
		}
		leaf := slices.Clone(tr.Row(i))
		leaf[rng.IntN(3)] ^= 1 << rng.IntN(64)
		if VerifyPath(tr.Root(), leaf, i, p) {
			t.Fatalf("tampered leaf %d verifies", i)
		}
	}
	one := New([]uint64{7, 8}, 2, par.New(nil, 1))
	if one.Depth() != 0 || !VerifyPath(one.Root(), []uint64{7, 8}, 0, nil) {
		t.Fatal("single-leaf tree")
	}
}

func randQueries(rng *rand.Rand, leaves, count int) []int {
	q := make([]int, count)
	for i := range q {
		if i > 0 && rng.IntN(4) == 0 {
			q[i] = q[rng.IntN(i)] // a duplicate
		} else {
			q[i] = rng.IntN(leaves)
		}
	}
	return q
}

// countSiblings counts the nodes the pruned form must carry: siblings of path nodes that
// are not themselves on a path.
func countSiblings(rows []int, depth int) int {
	total := 0
	active := map[int]bool{}
	for _, r := range rows {
		active[r] = true
	}
	for l := 0; l < depth; l++ {
		up := map[int]bool{}
		for p := range active {
			if !active[p^1] {
				total++
			}
			up[p>>1] = true
		}
		active = up
	}
	return total
}

func TestPruneExpandRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	for trial := 0; trial < 200; trial++ {
		depth := rng.IntN(9)
		leaves := 1 << depth
		rowWords := 1 + rng.IntN(9)
		rows := randRows(rng, leaves, rowWords)
		tr := New(rows, rowWords, par.New(nil, 1+rng.IntN(3)))
		queries := randQueries(rng, leaves, 1+rng.IntN(3*leaves+2))
		ph := tr.OpenPhase(queries)
		pos := SortedUnique(queries)
		if len(ph.Siblings) != countSiblings(pos, depth) {
			t.Fatalf("depth %d, %d rows: %d siblings, want %d", depth, len(pos), len(ph.Siblings), countSiblings(pos, depth))
		}
		got, err := Expand(tr.Root(), depth, pos, ph.Rows, ph.Siblings, queries)
		if err != nil {
			t.Fatalf("honest phase rejected: %v", err)
		}
		want := tr.OpenRaw(queries)
		for j := range queries {
			if !slices.Equal(got[j].Leaf, want[j].Leaf) || !slices.Equal(got[j].Path, want[j].Path) {
				t.Fatalf("query %d (position %d): expanded opening differs from the tree's", j, queries[j])
			}
			if !VerifyPath(tr.Root(), got[j].Leaf, queries[j], got[j].Path) {
				t.Fatalf("expanded path %d does not verify", j)
			}
		}
	}
}

func mustReject(t *testing.T, what string, root Digest, depth int, rows []int, data [][]uint64, sib []Digest, q []int) {
	t.Helper()
	if _, err := Expand(root, depth, rows, data, sib, q); !errors.Is(err, ErrInvalidOpening) {
		t.Fatalf("%s: got %v, want ErrInvalidOpening", what, err)
	}
}

func cloneRows(r [][]uint64) [][]uint64 {
	out := make([][]uint64, len(r))
	for i := range r {
		out[i] = slices.Clone(r[i])
	}
	return out
}

func TestExpandRejects(t *testing.T) {
	rng := testrand.New(t)
	const depth = 7
	rows := randRows(rng, 1<<depth, 4)
	tr := New(rows, 4, par.New(nil, 2))
	root := tr.Root()
	queries := randQueries(rng, 1<<depth, 20)
	pos := SortedUnique(queries)
	ph := tr.OpenPhase(queries)
	if _, err := Expand(root, depth, pos, ph.Rows, ph.Siblings, queries); err != nil {
		t.Fatal(err)
	}
	for i := range ph.Siblings {
		s := slices.Clone(ph.Siblings)
		s[i][rng.IntN(32)] ^= 1 << rng.IntN(8)
		mustReject(t, "tampered sibling", root, depth, pos, ph.Rows, s, queries)
	}
	for k := range ph.Rows {
		r := cloneRows(ph.Rows)
		r[k][rng.IntN(4)] ^= 1 << rng.IntN(64)
		mustReject(t, "tampered row", root, depth, pos, r, ph.Siblings, queries)
	}
	mustReject(t, "extra sibling", root, depth, pos, ph.Rows, append(slices.Clone(ph.Siblings), Digest{}), queries)
	mustReject(t, "missing sibling", root, depth, pos, ph.Rows, ph.Siblings[:len(ph.Siblings)-1], queries)
	mustReject(t, "no siblings", root, depth, pos, ph.Rows, nil, queries)
	mustReject(t, "wrong root", Digest{1}, depth, pos, ph.Rows, ph.Siblings, queries)
	mustReject(t, "wrong depth", root, depth+1, pos, ph.Rows, ph.Siblings, queries)
	mustReject(t, "wrong depth", root, depth-1, pos, ph.Rows, ph.Siblings, queries)
	mustReject(t, "bad depth", root, -1, pos, ph.Rows, ph.Siblings, queries)
	mustReject(t, "huge depth", root, 1000, pos, ph.Rows, ph.Siblings, queries)
	mustReject(t, "no queries", root, depth, pos, ph.Rows, ph.Siblings, nil)
	mustReject(t, "missing row", root, depth, pos, ph.Rows[1:], ph.Siblings, queries)
	mustReject(t, "unqueried row", root, depth, pos, ph.Rows, ph.Siblings, queries[1:len(queries)-1])
	extra := append(slices.Clone(queries), 1<<depth)
	mustReject(t, "out-of-range query", root, depth, pos, ph.Rows, ph.Siblings, extra)
	swapped := slices.Clone(pos)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	mustReject(t, "unsorted rows", root, depth, swapped, ph.Rows, ph.Siblings, queries)
	// Rows are bound to their positions: swapping two rows' data is rejected.
	r := cloneRows(ph.Rows)
	r[0], r[1] = r[1], r[0]
	mustReject(t, "swapped rows", root, depth, pos, r, ph.Siblings, queries)
}

// TestExpandNeverPanics throws random phases at Expand.
func TestExpandNeverPanics(t *testing.T) {
	rng := testrand.New(t)
	for trial := 0; trial < 2000; trial++ {
		depth := rng.IntN(6) - 1
		q := make([]int, rng.IntN(6))
		for i := range q {
			q[i] = rng.IntN(40) - 4
		}
		pos := SortedUnique(q)
		if rng.IntN(4) == 0 && len(pos) > 0 {
			pos = pos[1:]
		}
		data := make([][]uint64, len(pos)+rng.IntN(2)-rng.IntN(2)*min(1, len(pos)))
		for i := range data {
			data[i] = make([]uint64, rng.IntN(3))
		}
		sib := make([]Digest, rng.IntN(12))
		if _, err := Expand(Digest{}, depth, pos, data, sib, q); err == nil {
			t.Fatalf("random phase accepted (depth %d, queries %v)", depth, q)
		}
	}
}

// BenchmarkNew reports compressions per wall-clock second and per CPU second of the process
// (steadier on a shared machine). The 2^17x64 cases are the commitment shape (512-byte leaves);
// the padded ones hash 1-word and 12-word rows as 64-word leaf images.
//
//	go test -run '^$' -bench 'New/2\^17' -benchtime=10x ./merkle/
func BenchmarkNew(b *testing.B) {
	for _, c := range []struct {
		name                        string
		leaves, rowWords, leafWords int
		workers                     int
	}{
		{"2^11x64/w1", 1 << 11, 64, 64, 1}, {"2^11x64/w2", 1 << 11, 64, 64, 2},
		{"2^16x8/w1", 1 << 16, 8, 8, 1}, {"2^16x8/w2", 1 << 16, 8, 8, 2},
		{"2^17x64/w1", 1 << 17, 64, 64, 1}, {"2^17x64/w2", 1 << 17, 64, 64, 2},
		{"2^14x1pad64/w1", 1 << 14, 1, 64, 1}, {"2^14x12pad64/w1", 1 << 14, 12, 64, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			rows := make([]uint64, c.leaves*c.rowWords)
			for i := range rows {
				rows[i] = uint64(i) * 0x9e3779b97f4a7c15
			}
			buf := make([]Digest, NodeCount(c.leaves))
			b.SetBytes(int64(8 * len(rows)))
			perLeaf := max(1, (8*c.leafWords+blake2s.BlockSize-1)/blake2s.BlockSize)
			compressions := float64(c.leaves*perLeaf + c.leaves - 1)
			c0 := cpuTime()
			for b.Loop() {
				NewPadded(buf, rows, c.rowWords, c.leafWords, par.New(nil, c.workers))
			}
			c1 := cpuTime()
			b.ReportMetric(float64(b.N)*compressions/b.Elapsed().Seconds(), "compressions/s")
			if c1 > c0 {
				b.ReportMetric(float64(b.N)*compressions/(c1-c0).Seconds(), "compressions/cpu-s")
			}
		})
	}
}

// TestPadded checks a padded tree against the naive tree over full images, and the
// padded prune/expand round trip.
func TestPadded(t *testing.T) {
	rng := testrand.New(t)
	for _, c := range []struct{ leaves, rowWords, leafWords int }{
		{8, 1, 64}, {64, 5, 8}, {256, 32, 64}, {512, 27, 64}, {16, 3, 5}, {4, 64, 64}, {64, 8, 64}, {32, 1, 9}, {4096, 1, 64}, {2048, 60, 64},
	} {
		rows := randRows(rng, c.leaves, c.rowWords)
		full := make([]uint64, c.leaves*c.leafWords)
		for i := 0; i < c.leaves; i++ {
			copy(full[(i+1)*c.leafWords-c.rowWords:(i+1)*c.leafWords], rows[i*c.rowWords:(i+1)*c.rowWords])
		}
		want := naiveTree(full, c.leafWords)
		for _, w := range []int{1, 3} {
			tr := NewPadded(nil, rows, c.rowWords, c.leafWords, par.New(nil, w))
			if !slices.Equal(tr.Nodes(), want) {
				t.Fatalf("%+v workers=%d: padded tree differs from the full-image tree", c, w)
			}
			if tr.RowWords() != c.rowWords || tr.LeafWords() != c.leafWords {
				t.Fatal("padded accessors")
			}
		}
		tr := NewPadded(nil, rows, c.rowWords, c.leafWords, par.New(nil, 2))
		for i := 0; i < c.leaves; i++ {
			if !slices.Equal(tr.Leaf(i), full[i*c.leafWords:(i+1)*c.leafWords]) || HashPaddedRow(tr.Row(i), c.leafWords) != want[i] {
				t.Fatalf("%+v: leaf image %d", c, i)
			}
		}
		queries := randQueries(rng, c.leaves, 1+rng.IntN(2*c.leaves))
		pos := SortedUnique(queries)
		ph := tr.OpenPhase(queries)
		for _, r := range ph.Rows {
			if len(r) != c.rowWords {
				t.Fatalf("%+v: phase stores %d-word rows, want %d", c, len(r), c.rowWords)
			}
		}
		got, err := ExpandPadded(tr.Root(), tr.Depth(), pos, ph.Rows, ph.Siblings, queries, c.leafWords)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		raw := tr.OpenRaw(queries)
		for j := range queries {
			if !slices.Equal(got[j].Leaf, raw[j].Leaf) || !slices.Equal(got[j].Path, raw[j].Path) ||
				!VerifyPath(tr.Root(), got[j].Leaf, queries[j], got[j].Path) {
				t.Fatalf("%+v: padded expansion of query %d", c, j)
			}
		}
		if c.rowWords < c.leafWords {
			if _, err := Expand(tr.Root(), tr.Depth(), pos, ph.Rows, ph.Siblings, queries); err == nil {
				t.Fatalf("%+v: unpadded expansion of padded rows accepted", c)
			}
			wide := cloneRows(ph.Rows)
			wide[0] = append(make([]uint64, c.leafWords-c.rowWords+1), wide[0]...)
			if _, err := ExpandPadded(tr.Root(), tr.Depth(), pos, wide, ph.Siblings, queries, c.leafWords); !errors.Is(err, ErrInvalidOpening) {
				t.Fatalf("%+v: over-wide row: %v", c, err)
			}
		}
	}
}

// hashLeaves batches equal-width images and falls back to one at a time otherwise; both
// must agree with HashRow.
func TestHashLeaves(t *testing.T) {
	rng := testrand.New(t)
	// One gathering buffer serves every call, as expand's scratch does: it starts
	// dirty and is reused at other widths.
	flat := randRows(rng, 1, 1000)
	for _, widths := range [][]int{{64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64}, {3, 3, 3}, {8, 5, 8}, {0, 0}, {}, {9, 9, 9, 9}} {
		images := make([][]uint64, len(widths))
		for k, w := range widths {
			images[k] = randRows(rng, 1, w)
		}
		got := make([]Digest, len(images))
		flat = hashLeaves(got, images, flat)
		for k, img := range images {
			if got[k] != HashRow(img) {
				t.Fatalf("widths %v: leaf %d differs from HashRow", widths, k)
			}
		}
	}
}

// TestBuilder adds the leaves in aligned ranges of mixed sizes, concurrently and in a
// random order, and checks the tree against NewPadded's.
func TestBuilder(t *testing.T) {
	rng := testrand.New(t)
	for _, c := range []struct{ leaves, rowWords, leafWords int }{
		{1, 4, 4}, {2, 3, 5}, {64, 64, 64}, {512, 8, 64}, {1024, 1, 64}, {4096, 2, 2},
	} {
		rows := randRows(rng, c.leaves, c.rowWords)
		want := NewPadded(nil, rows, c.rowWords, c.leafWords, par.Serial())
		for range 4 {
			// Cut [0, leaves) into aligned power-of-two ranges of random sizes.
			var ranges [][2]int
			for lo := 0; lo < c.leaves; {
				size := 1 << rng.IntN(bits.Len(uint(c.leaves)))
				for lo%size != 0 || lo+size > c.leaves {
					size /= 2
				}
				ranges = append(ranges, [2]int{lo, lo + size})
				lo += size
			}
			rng.Shuffle(len(ranges), func(i, j int) { ranges[i], ranges[j] = ranges[j], ranges[i] })
			b := NewBuilder(nil, rows, c.rowWords, c.leafWords)
			w := par.New(nil, 3)
			w.Range(len(ranges), func(lo, hi int) {
				for _, r := range ranges[lo:hi] {
					b.Add(r[0], r[1])
				}
			}, par.Grain(1))
			got := b.Finish(w)
			if !slices.Equal(got.Nodes(), want.Nodes()) || got.Depth() != want.Depth() || got.LeafWords() != c.leafWords {
				t.Fatalf("%+v: builder over %d ranges differs from NewPadded", c, len(ranges))
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("unaligned Add did not panic")
		}
	}()
	NewBuilder(nil, make([]uint64, 8), 1, 1).Add(2, 6)
}

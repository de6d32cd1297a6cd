package merkle

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/par"
)

// Minimum items per goroutine: below these a split costs more than it saves.
const (
	minLeavesPerWorker = 64
	minNodesPerWorker  = 512
)

// Tree is a Merkle tree over 2^d rows of rowWords words each. Leaf i hashes the leaf
// image of row i: the row itself, or for a padded tree (NewPadded) leafWords - rowWords
// zero words followed by the row, so a commitment can leave all-zero lanes out of its
// rows (and of the wire proof) while hashing the full-width image.
//
// Nodes are stored flat, bottom-up: the 2^d leaf hashes first, then each level above,
// the root last (2^(d+1) - 1 digests). The tree keeps a reference to the caller's rows
// (it does not copy them); they must stay unchanged while the tree is in use.
type Tree struct {
	rows      []uint64
	rowWords  int
	leafWords int
	depth     int
	nodes     []Digest
}

// NodeCount returns the number of digests a tree over leaves rows stores (2·leaves - 1).
func NodeCount(leaves int) int { return 2*leaves - 1 }

// New builds the tree over rows (row-major, rowWords words per row, a power-of-two number
// of rows), hashing on the workers. The result does not depend on them.
func New(rows []uint64, rowWords int, w par.Workers) *Tree {
	return NewInto(nil, rows, rowWords, w)
}

// NewInto is New storing the nodes in the caller's buffer nodes, which must hold at least
// NodeCount(len(rows)/rowWords) digests (nil allocates one). Tree.Nodes hands it back.
func NewInto(nodes []Digest, rows []uint64, rowWords int, w par.Workers) *Tree {
	return NewPadded(nodes, rows, rowWords, rowWords, w)
}

// NewPadded is NewInto for rows of rowWords words whose leaf images are leafWords wide
// (rowWords <= leafWords): leaf i hashes leafWords - rowWords zero words, then row i.
func NewPadded(nodes []Digest, rows []uint64, rowWords, leafWords int, w par.Workers) *Tree {
	b := NewBuilder(nodes, rows, rowWords, leafWords)
	// Subtrees of at least minLeavesPerWorker leaves, about subtreesPerWorker of them
	// per worker.
	depth := b.tree.depth
	subLog := min(depth, max(bits.Len(minLeavesPerWorker)-1, depth-bits.Len(uint(subtreesPerWorker*w.N()-1))))
	w.Range(1<<(depth-subLog), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			b.Add(k<<subLog, (k+1)<<subLog)
		}
	}, par.PerWorker(subtreesPerWorker))
	return b.Finish(w)
}

// subtreesPerWorker is how many subtrees NewPadded hands each worker.
const subtreesPerWorker = 8

// Builder builds a Tree whose leaves are hashed range by range as their rows become
// available (for instance while an encoder finishes them, so that the rows are hashed
// from cache): Add hashes an aligned range of leaves and every node above them inside
// the range, Finish the levels above the ranges. Add may run concurrently on disjoint
// ranges; every row must be added once before Finish.
type Builder struct {
	tree Tree
	// minLog is log2 of the smallest range added so far: every level up to it is done.
	minLog atomic.Int32
	// stages are hashPaddedRows' staging buffers for this tree's widths, kept between
	// Adds (their zero remainders stay zero), one per concurrent Add.
	stages sync.Pool
}

// NewBuilder returns a builder of the padded tree NewPadded builds over rows, storing
// its nodes in nodes (at least NodeCount(len(rows)/rowWords) digests; nil allocates).
// It panics on inconsistent sizes.
func NewBuilder(nodes []Digest, rows []uint64, rowWords, leafWords int) *Builder {
	if rowWords <= 0 || len(rows)%rowWords != 0 {
		panic(fmt.Sprintf("merkle: %d words do not split into rows of %d", len(rows), rowWords))
	}
	n := len(rows) / rowWords
	if n == 0 || n&(n-1) != 0 {
		panic(fmt.Sprintf("merkle: %d rows is not a power of two", n))
	}
	if leafWords < rowWords {
		panic(fmt.Sprintf("merkle: leaf image of %d words cannot hold rows of %d", leafWords, rowWords))
	}
	count := NodeCount(n)
	if nodes == nil {
		nodes = make([]Digest, count)
	} else if len(nodes) < count {
		panic(fmt.Sprintf("merkle: node buffer holds %d digests, need %d", len(nodes), count))
	}
	b := &Builder{tree: Tree{rows: rows, rowWords: rowWords, leafWords: leafWords,
		depth: bits.Len(uint(n)) - 1, nodes: nodes[:count]}}
	b.minLog.Store(int32(b.tree.depth))
	return b
}

// Add hashes leaves lo..hi−1 and the nodes of the subtree they span: hi − lo must be a
// power of two and lo a multiple of it. The rows of the range must be final.
func (b *Builder) Add(lo, hi int) {
	t := &b.tree
	size := hi - lo
	if lo < 0 || hi > t.Leaves() || size <= 0 || size&(size-1) != 0 || lo%size != 0 {
		panic(fmt.Sprintf("merkle: Builder.Add of leaves [%d, %d) is not an aligned power-of-two range of %d", lo, hi, t.Leaves()))
	}
	rows := t.rows[lo*t.rowWords : hi*t.rowWords]
	if t.leafWords == t.rowWords {
		hashRows(t.nodes[lo:hi], rows, t.rowWords, 0)
	} else {
		buf, _ := b.stages.Get().(*[]uint64)
		if buf == nil {
			buf = new([]uint64)
			*buf = paddedBuffer(t.rowWords, t.leafWords)
		}
		hashPaddedRows(t.nodes[lo:hi], rows, t.rowWords, t.leafWords, *buf)
		b.stages.Put(buf)
	}
	sizeLog := int32(bits.Len(uint(size)) - 1)
	start, width := 0, t.Leaves()
	for ; size > 1; size /= 2 {
		children := t.nodes[start+lo : start+lo+size]
		start += width
		width /= 2
		lo /= 2
		nodeMany(t.nodes[start+lo:start+lo+size/2], children)
	}
	for {
		m := b.minLog.Load()
		if sizeLog >= m || b.minLog.CompareAndSwap(m, sizeLog) {
			return
		}
	}
}

// Finish hashes the levels above the added ranges on the workers and returns the tree.
// The result does not depend on the workers or on how the leaves were split into ranges.
func (b *Builder) Finish(w par.Workers) *Tree {
	t := &b.tree
	start, width := 0, t.Leaves()
	for range b.minLog.Load() {
		start += width
		width /= 2
	}
	for width > 1 {
		children := t.nodes[start : start+width]
		parents := t.nodes[start+width : start+width+width/2]
		w.Range(width/2, func(lo, hi int) {
			nodeMany(parents[lo:hi], children[2*lo:2*hi])
		}, par.MinChunk(minNodesPerWorker), par.Grain(16))
		start += width
		width /= 2
	}
	tree := *t
	return &tree
}

// Root returns the root digest.
func (t *Tree) Root() Digest { return t.nodes[len(t.nodes)-1] }

// Depth returns d, the number of levels above the leaves (the path length).
func (t *Tree) Depth() int { return t.depth }

// Leaves returns the number of rows, 2^d.
func (t *Tree) Leaves() int { return 1 << t.depth }

// RowWords returns the width of a stored row in words.
func (t *Tree) RowWords() int { return t.rowWords }

// LeafWords returns the width of a leaf image in words (RowWords unless padded).
func (t *Tree) LeafWords() int { return t.leafWords }

// Leaf returns the leaf image of row i: Row(i) itself for an unpadded tree, otherwise a
// new slice holding the zero prefix and the row.
func (t *Tree) Leaf(i int) []uint64 {
	if t.leafWords == t.rowWords {
		return t.Row(i)
	}
	img := make([]uint64, t.leafWords)
	copy(img[t.leafWords-t.rowWords:], t.Row(i))
	return img
}

// Row returns stored row i (a view into the caller's rows, not a copy).
func (t *Tree) Row(i int) []uint64 {
	return t.rows[i*t.rowWords : (i+1)*t.rowWords : (i+1)*t.rowWords]
}

// Nodes returns the flat node buffer (see Tree), e.g. to return it to a pool once the
// tree is no longer used.
func (t *Tree) Nodes() []Digest { return t.nodes }

// Path returns the d siblings of leaf i, leaf level first.
func (t *Tree) Path(i int) []Digest { return t.AppendPath(make([]Digest, 0, t.depth), i) }

// AppendPath appends the d siblings of leaf i, leaf level first, to dst.
func (t *Tree) AppendPath(dst []Digest, i int) []Digest {
	if i < 0 || i >= t.Leaves() {
		panic(fmt.Sprintf("merkle: leaf %d out of range [0, %d)", i, t.Leaves()))
	}
	start, width := 0, 1<<t.depth
	for level := 0; level < t.depth; level++ {
		dst = append(dst, t.nodes[start+(i>>level)^1])
		start += width
		width /= 2
	}
	return dst
}

// Prune returns the siblings of the multi-path opening the given rows (strictly ascending
// leaf indices): level by level bottom-up, left to right, each sibling that is not itself
// on an opened path.
func (t *Tree) Prune(sortedRows []int) []Digest {
	n := t.Leaves()
	for k, r := range sortedRows {
		if r < 0 || r >= n || (k > 0 && r <= sortedRows[k-1]) {
			panic(fmt.Sprintf("merkle: Prune needs strictly ascending rows in [0, %d), got %v", n, sortedRows))
		}
	}
	active := append([]int(nil), sortedRows...)
	var siblings []Digest
	start, width := 0, n
	for width > 1 {
		out := 0
		for i := 0; i < len(active); {
			p := active[i]
			if i+1 < len(active) && active[i+1] == p^1 {
				i += 2
			} else {
				siblings = append(siblings, t.nodes[start+p^1])
				i++
			}
			active[out] = p >> 1
			out++
		}
		active = active[:out]
		start += width
		width /= 2
	}
	return siblings
}

// PathRoot returns the root that leaf row at index claims through path.
func PathRoot(leaf []uint64, index int, path []Digest) Digest {
	node := HashRow(leaf)
	for _, s := range path {
		if index&1 == 0 {
			node = nodeOf(&node, &s)
		} else {
			node = nodeOf(&s, &node)
		}
		index >>= 1
	}
	return node
}

// VerifyPath reports whether leaf sits at index under root through path, with index in
// [0, 2^len(path)).
func VerifyPath(root Digest, leaf []uint64, index int, path []Digest) bool {
	if index < 0 || (len(path) < 63 && index>>len(path) != 0) {
		return false
	}
	return PathRoot(leaf, index, path) == root
}

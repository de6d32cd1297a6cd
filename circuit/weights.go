package circuit

import (
	"fmt"
	"sync"

	"github.com/leanpipe/leanpipe/field"
)

// Tensor is a weight vector over a block given by two factors, as the lincheck's
// and the fingerprint's weights are: entry i + len(Low)·j is Low[i]·eq(High, j),
// len(Low) a power of two, High a point (low coordinate first). Its length is
// len(Low)·2^len(High).
type Tensor struct {
	Low  []field.E
	High []field.E
}

// PointTensor is eq(r, ·) as a Tensor: Low = eq(r[:k], ·) with k = min(6, len(r)),
// High = r[k:].
func PointTensor(r []field.E) Tensor {
	k := min(6, len(r))
	low := make([]field.E, 1<<k)
	field.EqTable(low, r[:k])
	return Tensor{Low: low, High: r[k:]}
}

// LogLen is log2 of the vector's length.
func (t Tensor) LogLen() int { return lowLog(t.Low) + len(t.High) }

func lowLog(low []field.E) int {
	n := len(low)
	if n == 0 || n&(n-1) != 0 {
		panic(fmt.Sprintf("circuit: Tensor with %d low entries (not a power of two)", n))
	}
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// Fill writes the vector into dst (2^LogLen entries).
func (t Tensor) Fill(dst []field.E) {
	if len(dst) != 1<<t.LogLen() {
		panic(fmt.Sprintf("circuit: Tensor.Fill into %d entries, want %d", len(dst), 1<<t.LogLen()))
	}
	hi := make([]field.E, 1<<len(t.High))
	field.EqTable(hi, t.High)
	n := len(t.Low)
	for j, h := range hi {
		field.ScaleE(dst[j*n:(j+1)*n], t.Low, h)
	}
}

// tensorCache serves a Tensor's entries a block of len(Low) at a time: block j
// (entries [j·len(Low), (j+1)·len(Low))) is Low scaled by eq(High, j), computed
// on a miss into a direct-mapped cache of cacheBlocks blocks. A walk reading
// entries in nearly increasing order computes each block about once, and never
// holds the whole vector.
type tensorCache struct {
	low  []field.E
	k    uint      // log2 len(low)
	hi   []field.E // eq(High, ·)
	tags []int32   // block held in each cache line, −1 for none
	blk  []field.E // cacheBlocks lines of len(low) entries
}

// cacheBlocks is the number of blocks a tensorCache holds.
const cacheBlocks = 256

func newTensorCache(t Tensor) *tensorCache {
	c := &tensorCache{low: t.Low, k: uint(lowLog(t.Low))}
	c.hi = make([]field.E, 1<<len(t.High))
	field.EqTable(c.hi, t.High)
	c.tags = make([]int32, cacheBlocks)
	for i := range c.tags {
		c.tags[i] = -1
	}
	c.blk = make([]field.E, cacheBlocks<<c.k)
	return c
}

// at returns entry i.
func (c *tensorCache) at(i int) field.E {
	j := i >> c.k
	line := j & (cacheBlocks - 1)
	b := c.blk[line<<c.k : (line+1)<<c.k]
	if c.tags[line] != int32(j) {
		field.ScaleE(b, c.low, c.hi[j])
		c.tags[line] = int32(j)
	}
	return b[i&(1<<c.k-1)]
}

// fullVecs keeps block-sized vectors for *Circuit.BilinearTensor between calls.
var fullVecs sync.Pool

func getFull(n int) []field.E {
	if v, ok := fullVecs.Get().(*[]field.E); ok && len(*v) == n {
		return *v
	}
	return make([]field.E, n)
}

// BilinearTensor returns (eᵀA0·w, eᵀB0·w) for tensor weights, by filling the two
// vectors and walking the program.
func (c *Circuit) BilinearTensor(e, w Tensor) (va, vb field.E) {
	c.checkLen("e", 1<<e.LogLen())
	c.checkLen("w", 1<<w.LogLen())
	ev, wv := getFull(c.Size()), getFull(c.Size())
	defer func() { fullVecs.Put(&ev); fullVecs.Put(&wv) }()
	e.Fill(ev)
	w.Fill(wv)
	return c.BilinearPair(ev, wv)
}

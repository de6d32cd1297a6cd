package circuit

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/leanpipe/leanpipe/buffers"
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

// widen returns the same vector with a Low factor of up to 2^k entries: Low ⊗
// eq(High[:m], ·) as the new Low (m = min(len(High), k - log2 len(Low)) coordinates
// moved from High), so that a walk scales whole runs of 2^k entries at once. A
// Low of 2^k entries or more is returned as it is.
func (t Tensor) widen(k int) Tensor {
	m := min(len(t.High), k-lowLog(t.Low))
	if m <= 0 {
		return t
	}
	eq := make([]field.E, 1<<m)
	field.EqTable(eq, t.High[:m])
	low := make([]field.E, len(t.Low)<<m)
	for j, h := range eq {
		field.ScaleE(low[j*len(t.Low):(j+1)*len(t.Low)], t.Low, h)
	}
	return Tensor{Low: low, High: t.High[m:]}
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

// tensorCache serves a Tensor's entries a line of up to 2^cacheLineLog at a time:
// line j (entries [j·L, (j+1)·L), L = min(len(Low), 2^cacheLineLog)) is its run of
// Low scaled by the High factor eq(High, ·) of its block, computed on a miss into a
// direct-mapped cache of cacheBlocks lines. A walk reading entries in nearly
// increasing order computes each line about once, and never holds the whole
// vector; a long Low (the merged verifier's has 1024 entries) neither makes the
// cache larger nor a miss dearer.
type tensorCache struct {
	low   []field.E
	k     uint      // log2 len(low)
	line  uint      // log2 of a line's entries: min(k, cacheLineLog)
	hi    []field.E // eq(High, ·)
	tags  []int32   // line held in each cache slot, −1 for none
	blk   []field.E // cacheBlocks slots of 2^line entries
	store *cacheStore
}

// cacheBlocks is the number of lines a tensorCache holds, and 2^cacheLineLog the
// most entries of a line.
const (
	cacheBlocks  = 256
	cacheLineLog = 6
)

// newTensorCache returns an empty cache of t; hi is eq(t.High, ·) when already
// computed (nil: computed here).
func newTensorCache(t Tensor, hi []field.E) *tensorCache {
	k := uint(lowLog(t.Low))
	c := &tensorCache{low: t.Low, k: k, line: min(k, cacheLineLog), hi: hi}
	if hi == nil {
		c.hi = make([]field.E, 1<<len(t.High))
		field.EqTable(c.hi, t.High)
	}
	st, _ := cacheStores.Get().(*cacheStore)
	if st == nil {
		st = new(cacheStore)
	}
	c.store = st
	c.tags = st.tags[:]
	for i := range c.tags {
		c.tags[i] = -1
	}
	st.blk = buffers.Grow(st.blk, cacheBlocks<<c.line)
	c.blk = st.blk[:cacheBlocks<<c.line]
	return c
}

// cacheStore is a tensorCache's storage. The lines (up to 384 KiB) are not
// cleared between caches: a slot is read only after its tag names its line.
type cacheStore struct {
	tags [cacheBlocks]int32
	blk  []field.E
}

// cacheStores keeps the storage of released caches: a verifier evaluates
// several circuits in a row, and fresh pages would be faulted in and cleared for
// each.
var cacheStores sync.Pool

// release returns c's storage for reuse; c must not be used after.
func (c *tensorCache) release() {
	if c.store != nil {
		cacheStores.Put(c.store)
		c.store, c.tags, c.blk = nil, nil, nil
	}
}

// lineOf returns the cached line holding entry i and its first entry's index.
func (c *tensorCache) lineOf(i int) ([]field.E, int) {
	j := i >> c.line
	slot := j & (cacheBlocks - 1)
	if c.tags[slot] != int32(j) {
		c.fill(slot, j)
	}
	return c.blk[slot<<c.line : (slot+1)<<c.line], j << c.line
}

// fill computes line j into cache slot slot.
func (c *tensorCache) fill(slot, j int) {
	first := j << c.line
	off := first & (1<<c.k - 1)
	field.ScaleE(c.blk[slot<<c.line:(slot+1)<<c.line], c.low[off:off+1<<c.line], c.hi[first>>c.k])
	c.tags[slot] = int32(j)
}

// weights are column weights as a walk reads them: a full vector, or a tensor
// served a block at a time.
type weights struct {
	full []field.E
	t    *tensorCache
}

// fullLine is the length of the runs of a full vector that lineOf returns.
const fullLine = 64

// lineOf returns a run of entries holding entry i (a line of the tensor cache,
// valid until the cache fills another line) and its first entry's index.
func (w *weights) lineOf(i int) ([]field.E, int) {
	if w.full != nil {
		b := i &^ (fullLine - 1)
		return w.full[b:min(b+fullLine, len(w.full))], b
	}
	return w.t.lineOf(i)
}

// rowSums accumulates (Σ_r e[r]·a_r, Σ_r e[r]·b_r) over rows given one at a time.
// Rows come in runs of nearly consecutive rows, so they are gathered a run of
// 2^sk rows at a time, each into its slot (row mod 2^sk), and a run is folded in
// when a row of another run comes. Tensor weights e[r] = low[r mod L]·hi[r/L]:
// at the unreduced flush kernel's level (flush.go) a run is added into
// accumulators of L slots scaled by its block's High factor, and the accumulators
// meet Low in one inner product at the end (Σ_b hi_b·Σ_j low_j·a_{b,j} =
// Σ_j low_j·Σ_b hi_b·a_{b,j}); elsewhere a run's inner products with its run of Low
// are scaled by the High factor. Full weights are one block with no High factor
// (low the whole vector, k = log2 of its length). Either way a row costs one
// product per sum and no row's weight is multiplied out. A run slot without its
// bit in set holds no row and is zeroed before a fold.
type rowSums struct {
	low    []field.E // the low factor; full weights: the whole vector
	k      uint      // log2 len(low)
	hi     []field.E // eq(High, ·); nil for full weights
	sk     uint      // log2 of a run's rows: min(k, rowRunLog)
	run    int       // the run gathered: rows [run·2^sk, (run+1)·2^sk); −1 before the first
	set    uint64    // bit i: slot i holds row run·2^sk + i
	ak, bk [rowRun]field.E
	// uacc, at tensor weights where the unreduced kernel runs, holds Σ_b hi_b·a and
	// Σ_b hi_b·b per Low slot over the runs folded so far (flush.go's layout).
	uacc   []uint64
	va, vb field.E
}

// rowRun is the most rows a run gathers.
const (
	rowRunLog = 6
	rowRun    = 1 << rowRunLog
)

func newFullRows(e []field.E) rowSums {
	k := uint(lowLog(e))
	return rowSums{low: e, k: k, sk: min(k, rowRunLog), run: -1}
}

func newTensorRows(t Tensor) rowSums {
	hi := make([]field.E, 1<<len(t.High))
	field.EqTable(hi, t.High)
	k := uint(lowLog(t.Low))
	s := rowSums{low: t.Low, k: k, hi: hi, sk: min(k, rowRunLog), run: -1}
	if uaccFast() && len(t.Low)%8 == 0 {
		s.uacc = make([]uint64, len(t.Low)/8*uaccGroupWords)
	}
	return s
}

// add gathers row row's operands; a row of another run takes addMiss.
func (s *rowSums) add(row int, a, b field.E) {
	if row>>s.sk != s.run {
		s.addMiss(row, a, b)
		return
	}
	i := uint(row) & (1<<s.sk - 1)
	if s.set&(1<<i) != 0 {
		// A second row for one column (a Builder refuses it; the sums count both).
		s.ak[i], s.bk[i] = addE(s.ak[i], a), addE(s.bk[i], b)
		return
	}
	s.set |= 1 << i
	s.ak[i], s.bk[i] = a, b
}

// addMiss folds the gathered run in, starts row's run and gathers row.
func (s *rowSums) addMiss(row int, a, b field.E) {
	s.flush()
	s.run = row >> s.sk
	i := uint(row) & (1<<s.sk - 1)
	s.set = 1 << i
	s.ak[i], s.bk[i] = a, b
}

// flush folds the gathered run in.
func (s *rowSums) flush() {
	set := s.set
	if set == 0 {
		return
	}
	s.set = 0
	lo, hi := bits.TrailingZeros64(set), 64-bits.LeadingZeros64(set)
	if s.uacc != nil {
		// The kernel takes whole groups of eight slots.
		lo, hi = lo&^7, (hi+7)&^7
	}
	// The folds read every slot of [lo, hi): the empty ones count as 0.
	if set != ^uint64(0)>>(64-(hi-lo))<<lo {
		for i := lo; i < hi; i++ {
			if set&(1<<i) == 0 {
				s.ak[i], s.bk[i] = field.Zero, field.Zero
			}
		}
	}
	first := s.run << s.sk
	j := first & (1<<s.k - 1) // the run's first slot in low
	if s.uacc != nil {
		flushAcc(s.uacc[(j+lo)/8*uaccGroupWords:(j+hi)/8*uaccGroupWords], s.ak[lo:hi], s.bk[lo:hi], s.hi[first>>s.k])
		return
	}
	ia := field.InnerProduct(s.low[j+lo:j+hi], s.ak[lo:hi])
	ib := field.InnerProduct(s.low[j+lo:j+hi], s.bk[lo:hi])
	if s.hi != nil {
		h := s.hi[first>>s.k]
		ia, ib = ia.Mul(h), ib.Mul(h)
	}
	s.va, s.vb = addE(s.va, ia), addE(s.vb, ib)
}

// sums returns the sums over the rows added so far.
func (s *rowSums) sums() (va, vb field.E) {
	s.flush()
	if s.uacc != nil {
		l := len(s.low)
		accA, accB := make([]field.E, l), make([]field.E, l)
		uaccSums(accA, accB, s.uacc)
		clear(s.uacc)
		s.va = addE(s.va, field.InnerProduct(s.low, accA))
		s.vb = addE(s.vb, field.InnerProduct(s.low, accB))
	}
	return s.va, s.vb
}

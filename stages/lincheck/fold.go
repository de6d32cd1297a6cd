package lincheck

import (
	"fmt"
	mbits "math/bits"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/simd"
)

// PartialFold folds the packed witness over its slots:
//
//	dst[64·j + i] = Σ_s eqOut[s]·bit_i(q[s·words + j])   for j < words, i < 64,
//
// i.e. dst[col] = ẑ(col, chi_out) for eqOut = eq(chi_out, ·). Slots [live, len(eqOut))
// must hold identical blocks: they are read once, weighted by their summed eq
// weight (live ≤ 0 or ≥ len(eqOut) folds every slot densely). Groups of 8 slots
// go through a 256-entry subset-sum table of their weights, indexed by the
// 8x8-transposed bytes of the 8 words, or, with GFNI, through 24 bit matrices that
// map the group's 8 bits of a column to the bytes of their weighted sum. Workers
// split the words; the output does not depend on their number.
func PartialFold(dst []field.E, q []field.K, words int, eqOut []field.E, live int, workers par.Workers) {
	partialFold(dst, q, words, eqOut, live, workers, new(foldScratch))
}

// foldScratch is PartialFold's reusable memory: one set of tile tables per worker
// and the bit matrices of every slot group.
type foldScratch struct {
	tables []foldTables
	mats   []uint64
	job    foldJob
}

// partialFold is PartialFold on reusable scratch.
func partialFold(dst []field.E, q []field.K, words int, eqOut []field.E, live int, workers par.Workers, fs *foldScratch) {
	f := newFoldJob(dst, q, words, eqOut, live, workers, fs)
	if workers.N() <= 1 || words <= 1 {
		f.runWords(fs, 0, 0, words)
		return
	}
	l := f.loop(fs)
	workers.For(l.N, l.Fn, l.Opts...)
}

// partialFoldLoop readies a PartialFold on the workers and returns its work as a loop
// over the words, to be run (once) by par's For or ForAll on the same workers.
func partialFoldLoop(dst []field.E, q []field.K, words int, eqOut []field.E, live int, workers par.Workers, fs *foldScratch) par.Loop {
	return newFoldJob(dst, q, words, eqOut, live, workers, fs).loop(fs)
}

// newFoldJob checks the shapes and readies the fold's tables: one set of tile tables
// per worker and, on the GFNI path, the bit matrices of every slot group.
func newFoldJob(dst []field.E, q []field.K, words int, eqOut []field.E, live int, workers par.Workers, fs *foldScratch) *foldJob {
	slots := len(eqOut)
	if len(dst) != words*KBits || len(q) != words*slots {
		panic(fmt.Sprintf("lincheck: PartialFold: %d outputs, %d words for %d×%d", len(dst), len(q), slots, words))
	}
	if live <= 0 || live > slots {
		live = slots
	}
	dense := slots
	if slots >= 8 {
		dense = min(slots, (live+7)&^7)
	}
	tail := field.Zero
	for _, w := range eqOut[dense:] {
		tail = tail.Add(w)
	}
	if len(fs.tables) < workers.N() {
		fs.tables = make([]foldTables, workers.N())
	}
	f := &fs.job
	*f = foldJob{dst: dst, q: q, words: words, eqOut: eqOut, dense: dense, tail: tail}
	if useGFNI() && dense%8 == 0 {
		// The matrices depend on the weights alone: built once, shared by the
		// workers, which then cut the words finely (nothing is rebuilt per chunk).
		groups := dense / 8
		fs.mats = buffers.Grow(fs.mats, 24*groups)
		f.mats = fs.mats[:24*groups]
		if workers.N() <= 1 {
			field.BitMatrices(f.mats, eqOut[:dense])
		} else {
			workers.Range(groups, func(lo, hi int) { field.BitMatrices(f.mats[24*lo:24*hi], eqOut[8*lo:8*hi]) }, par.MinChunk(256))
		}
	}
	return f
}

// runWords folds words [jlo, jhi) with worker w's tables.
func (f *foldJob) runWords(fs *foldScratch, w, jlo, jhi int) {
	if f.mats != nil {
		f.runGFNI(&fs.tables[w], jlo, jhi)
	} else {
		f.run(&fs.tables[w], jlo, jhi)
	}
}

// loop is the fold's work on the words. The GFNI path cuts them finely; the
// table path rebuilds the subset-sum tables of every slot group in each chunk, so
// it cuts them into one chunk per worker.
func (f *foldJob) loop(fs *foldScratch) par.Loop {
	opts := []par.Option{par.PerWorker(1)}
	if f.mats != nil {
		opts = []par.Option{par.Grain(8)}
	}
	return par.Loop{N: f.words, Fn: func(w, jlo, jhi int) { f.runWords(fs, w, jlo, jhi) }, Opts: opts}
}

// foldJob is one PartialFold: run folds words [jlo, jhi).
type foldJob struct {
	dst   []field.E
	q     []field.K
	words int
	eqOut []field.E
	dense int
	tail  field.E
	mats  []uint64 // the GFNI path's bit matrices, 24 per dense slot group
}

func (f *foldJob) run(tables *foldTables, jlo, jhi int) {
	q, words, eqOut, dense := f.q, f.words, f.eqOut, f.dense
	out := f.dst[jlo*KBits : jhi*KBits]
	clear(out)
	if dense%8 == 0 {
		// Tiles of foldTile groups: their tables stay in L1 while each word's
		// 64 accumulators are visited once per tile.
		for g0 := 0; g0 < dense; g0 += 8 * foldTile {
			n := min(foldTile, (dense-g0)/8)
			for k := 0; k < n; k++ {
				g := g0 + 8*k
				subsetSums8(&tables.t[k], eqOut[g:g+8])
			}
			if n == foldTile {
				foldTileFull(out, q, words, g0, jlo, jhi, tables)
			} else {
				foldTile8(out, q, words, g0, n, jlo, jhi, &tables.t)
			}
		}
	} else {
		for s := 0; s < dense; s++ {
			foldSlot(out, q[s*words+jlo:s*words+jhi], eqOut[s])
		}
	}
	f.addTail(out, jlo, jhi)
}

// addTail adds the padding tail (the last slot, weighted by the tail's summed eq
// weight) into out, words [jlo, jhi).
func (f *foldJob) addTail(out []field.E, jlo, jhi int) {
	if slots := len(f.eqOut); f.dense < slots {
		s := slots - 1
		foldSlot(out, f.q[s*f.words+jlo:s*f.words+jhi], f.tail)
	}
}

// foldSlot adds w·bit_i(row[j]) into out[64·j + i].
func foldSlot(out []field.E, row []field.K, w field.E) {
	for j, word := range row {
		acc := out[j*KBits : (j+1)*KBits]
		for bits := uint64(word); bits != 0; bits &= bits - 1 {
			i := mbits.TrailingZeros64(bits)
			acc[i] = acc[i].Add(w)
		}
	}
}

// subsetSums8 writes t[m] = Σ_{e : bit e of m} w[e].
func subsetSums8(t *[256]field.E, w []field.E) {
	t[0] = field.Zero
	for e := 0; e < 8; e++ {
		h := 1 << e
		for m := 0; m < h; m++ {
			t[h+m] = t[m].Add(w[e])
		}
	}
}

// foldTile is the number of 8-slot groups folded per pass over the words.
const foldTile = 4

// foldTables are the subset-sum tables of a tile's groups; the padding lets the
// AVX2 kernel read every 24-byte entry with a 32-byte load.
type foldTables struct {
	t [foldTile][256]field.E
	_ [8]byte
	g []byte // the GFNI kernel's scratch (bitfold_amd64.go), allocated on first use
}

// foldTile8 adds, for the n ≤ foldTile groups of 8 slots starting at slot g0 and
// words j in [jlo, jhi), the table entry of each group's 8 slot bits of column
// 64·j + i into out[64·(j-jlo) + i].
func foldTile8(out []field.E, q []field.K, words, g0, n, jlo, jhi int, tables *[foldTile][256]field.E) {
	for j := jlo; j < jhi; j++ {
		acc := (*[KBits]field.E)(out[(j-jlo)*KBits:])
		for k := 0; k < n; k++ {
			base := (g0+8*k)*words + j
			var w [8]uint64
			nz := uint64(0)
			for e := range w {
				w[e] = uint64(q[base+e*words])
				nz |= w[e]
			}
			if nz == 0 {
				continue
			}
			// Byte b of word e moves to byte e of word b, then each word's 8x8 bit
			// block is transposed: bit e of byte p of w[b] is bit 8b+p of slot e.
			simd.TransposeBytes8x8(&w)
			t := &tables[k]
			for b, x := range w {
				if x == 0 {
					continue
				}
				x = simd.Transpose8x8(x)
				a := (*[8]field.E)(acc[8*b:])
				for p := range a {
					e := &t[byte(x>>(8*p))]
					a[p].C0 ^= e.C0
					a[p].C1 ^= e.C1
					a[p].C2 ^= e.C2
				}
			}
		}
	}
}

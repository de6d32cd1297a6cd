package recursion

import (
	"sync"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// What the block circuits share: inputs allocated from Cols, bit-sliced lanes set
// from words, and the packed witness of a segment filled 64 slots at a time.

// input declares n input columns from c and returns their wires and first column.
func input[W comparable, B circuit.Ops[W]](b B, c *Cols, name string, n int) ([]W, int) {
	base := c.Next()
	c.advance(base + n)
	b.Input(name, base, n)
	w := make([]W, n)
	for i := range w {
		w[i] = b.Col(base + i)
	}
	return w, base
}

// setLane writes the low n bits of v at columns [base, base+n) of lane j of a
// bit-sliced witness (bit j of w[col] is column col of instance j).
func setLane(w []uint64, j uint, base int, v uint64, n int) {
	for i := range n {
		w[base+i] |= (v >> i & 1) << j
	}
}

// setLaneE writes an E element's three words at [base, base+192) of lane j.
func setLaneE(w []uint64, j uint, base int, e field.E) {
	setLane(w, j, base, uint64(e.C0), 64)
	setLane(w, j, base+64, uint64(e.C1), 64)
	setLane(w, j, base+128, uint64(e.C2), 64)
}

// setBits ORs the n ≤ 64 low bits of v into bits [base, base+n) of a packed row (a
// public table's), a word or two at a time.
func setBits(row []uint64, base int, v uint64, n int) {
	if n <= 0 {
		return
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	i, s := base/64, uint(base%64)
	row[i] |= v << s
	if s != 0 && int(s)+n > 64 {
		row[i+1] |= v >> (64 - s)
	}
}

// fillSlots returns a segment filler for circuit c: slot s < n gets set(v, lane, s)
// on a cleared bit-sliced vector (the constant column set), every later slot slot 0's
// inputs; 64 slots make one vector, solved with others in one walk (SolveMany's
// assembly walks take 1, 2 or 4 vectors: a last batch short of its width walks spare
// ones) and packed into the segment's vectors, each run of word blocks as soon as the walk
// has completed it, while the walk's writes are still in the cache.
func fillSlots(c *circuit.Circuit, n int, set func(v []uint64, lane uint, slot int) error) func(par.Workers, int, []field.K, []field.K, []field.K) error {
	return func(workers par.Workers, nLog int, wit, a, b []field.K) error {
		size := c.Size()
		slots := 1 << nLog
		groups := (slots + 63) / 64
		// Four vectors a walk when every worker still gets two walks or more, else two;
		// a lone vector alone.
		per := 2
		switch {
		case groups == 1:
			per = 1
		case groups >= 8*workers.N():
			per = 4
		}
		var mu sync.Mutex
		var failed error
		inputs := c.Inputs()
		workers.Range((groups+per-1)/per, func(lo, hi int) {
			// The vectors are taken uncleared: the walk writes every column but the
			// inputs and the constant (SolveMany), so each group clears only the
			// input columns (set ORs their lanes in) and sets the constant.
			var ws, as, bs [][]uint64
			for range per {
				ws, as, bs = append(ws, buffers.MakeUninit[uint64](size)), append(as, buffers.MakeUninit[uint64](size)), append(bs, buffers.MakeUninit[uint64](size))
			}
			for batch := lo; batch < hi; batch++ {
				g0 := batch * per
				for k, v := range ws {
					for _, col := range inputs {
						v[col] = 0
					}
					v[c.ConstCol()] = ^uint64(0)
					g := g0 + k
					if g >= groups {
						continue // a spare vector: walked, not packed
					}
					for j := range min(64, slots-64*g) {
						s := 64*g + j
						if s >= n {
							s = 0
						}
						if err := set(v, uint(j), s); err != nil {
							mu.Lock()
							failed = err
							mu.Unlock()
							return
						}
					}
				}
				c.SolveManyStream(ws, as, bs, func(k0, k1 int) {
					for k := range per {
						g := g0 + k
						if g >= groups {
							break
						}
						lanes, off := min(64, slots-64*g), g*size
						for i, src := range [][]uint64{ws[k], as[k], bs[k]} {
							c.PackLanesRange([][]field.K{wit, a, b}[i][off:off+lanes*size/64], src, lanes, k0, k1)
						}
					}
				})
			}
		}, par.PerWorker(1))
		if failed != nil {
			return failed
		}
		return workers.Err()
	}
}

// blockForms are a block circuit's two forms (circuit.Lazy): described for a
// verifier, which builds it once it has evaluated it often enough, and compiled for a
// prover on first need.
type blockForms struct {
	once sync.Once
	lazy *circuit.Lazy
}

// describeForms sets the block's forms: describe runs its rows' code on an evaluator,
// build on a builder; the compiled circuit goes through the on-disk cache
// (circuit.Cached).
func (f *blockForms) describeForms(name string, logSize int, describe func(*circuit.Evaluator), build func(*circuit.Builder)) {
	desc := circuit.NewDescribed(name, logSize, 0, describe)
	f.lazy = circuit.NewLazy(desc, circuit.Cached(desc, func() *circuit.Circuit {
		b := circuit.NewBuilder(name, logSize, 0)
		build(b)
		return b.Compile()
	}), nil)
}

// batchMatrices is the compiled circuit (built on first need), which the batching
// prover walks.
func (f *blockForms) batchMatrices() Matrices { return f.lazy.Compiled() }

// compiled builds the circuit once and sets *dst (the block's embedded circuit).
func (f *blockForms) compiled(dst **circuit.Circuit) *circuit.Circuit {
	f.once.Do(func() { *dst = f.lazy.Compiled() })
	return *dst
}

// Matrices is the block's A0 and B0 for a verifier: the compiled circuit's walks once
// it is built, else its description's.
func (f *blockForms) Matrices() lincheck.Matrices { return f.lazy.Matrices() }

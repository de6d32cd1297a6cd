package keccak

import (
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The circuit solved bit-sliced (the generic walk) from random input states gives
// the native permutation's outputs and χ products, and satisfies every row.
func TestCircuitSolvesPermutation(t *testing.T) {
	rng := testrand.New(t)
	for _, l := range []Layout{Sparse, Dense} {
		c := NewCircuit(l)
		if c.Useful() != l.Useful() || c.NumRows() != l.Perms*(2*StateBits+ANDs)+1 {
			t.Fatalf("%+v: useful %d rows %d", l, c.Useful(), c.NumRows())
		}
		size := c.Size()
		w, wa, wb := make([]uint64, size), make([]uint64, size), make([]uint64, size)
		states := make([][64][]State, l.Perms) // [p][lane j] = input, then trace
		_ = states
		var in [64][3]State
		for j := range 64 {
			for p := range l.Perms {
				for i := range in[j][p] {
					in[j][p][i] = rng.Uint64()
				}
				for k := range StateBits {
					w[l.In(p)+k] |= (in[j][p][k/64] >> (k % 64) & 1) << j
				}
			}
		}
		w[c.ConstCol()] = ^uint64(0)
		c.Solve(w, wa, wb)
		if bad := c.Satisfied(w); bad >= 0 {
			t.Fatalf("%+v: row %d unsatisfied", l, bad)
		}
		for j := range 64 {
			for p := range l.Perms {
				var want [Rounds]State
				out := trace(in[j][p], nil, func(r int, _, tt *State) { want[r] = *tt })
				for k := range StateBits {
					if got := w[l.Out(p)+k] >> j & 1; got != out[k/64]>>(k%64)&1 {
						t.Fatalf("%+v: lane %d perm %d output bit %d", l, j, p, k)
					}
					for r := range Rounds {
						if got := w[l.Gate(p, r)+k] >> j & 1; got != want[r][k/64]>>(k%64)&1 {
							t.Fatalf("%+v: lane %d perm %d round %d product %d", l, j, p, r, k)
						}
					}
				}
			}
		}
	}
}

// The layout's regions tile the useful prefix word by word (the filler writes
// every word below it and clears only the tail).
func TestLayoutTilesPrefix(t *testing.T) {
	for _, l := range []Layout{Sparse, Dense} {
		covered := make([]int, l.Useful()/64)
		mark := func(col, n int) {
			for w := col / 64; w < (col+n)/64; w++ {
				covered[w]++
			}
		}
		for p := range l.Perms {
			mark(l.In(p), StateBits)
			mark(l.Out(p), StateBits)
			mark(l.Gate(p, 0), ANDs)
		}
		mark(l.ConstCol(), 64)
		for w, c := range covered {
			if c != 1 {
				t.Fatalf("%+v: word %d covered %d times", l, w, c)
			}
		}
		if l.Useful()%64 != 0 {
			t.Fatalf("%+v: useful prefix %d", l, l.Useful())
		}
	}
}

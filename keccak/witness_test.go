package keccak

import (
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The word-level filler writes what the circuit's generic bit-sliced walk solves,
// packed: the witness, A0·w and B0·w of 64 blocks, word for word (dirty buffers).
func TestFillMatchesSolve(t *testing.T) {
	rng := testrand.New(t)
	for _, l := range []Layout{Sparse, Dense} {
		c := NewCircuit(l)
		size, words := c.Size(), c.Size()/64
		w, wa, wb := make([]uint64, size), make([]uint64, size), make([]uint64, size)
		ins := make([][]State, 64)
		for j := range ins {
			ins[j] = make([]State, l.Perms)
			for p := range ins[j] {
				for i := range ins[j][p] {
					ins[j][p][i] = rng.Uint64()
				}
				for k := range StateBits {
					w[l.In(p)+k] |= (ins[j][p][k/64] >> (k % 64) & 1) << j
				}
			}
		}
		w[c.ConstCol()] = ^uint64(0)
		c.Solve(w, wa, wb)
		for k, src := range [][]uint64{w, wa, wb} {
			want := make([]field.K, 64*words)
			c.PackLanes(want, src, 64)
			got := make([][]field.K, 3)
			for v := range got {
				got[v] = make([]field.K, 64*words)
				for i := range got[v] {
					got[v][i] = field.K(rng.Uint64()) // dirty
				}
			}
			for j := range 64 {
				l.fillBlock(got[0][j*words:(j+1)*words], got[1][j*words:(j+1)*words], got[2][j*words:(j+1)*words], ins[j], nil)
			}
			if !slices.Equal(got[k], want) {
				t.Fatalf("%+v: vector %d differs from the solved circuit", l, k)
			}
		}
	}
}

// inputStates returns the input states of in's permutations.
func (in *Input) inputStates() []State {
	out := make([]State, in.Len())
	for j := range out {
		out[j] = in.InputState(j)
	}
	return out
}

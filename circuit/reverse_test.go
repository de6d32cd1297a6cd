package circuit

import (
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// The backward walk at every level of the family leaves the column sums and the
// adjoints word for word as its portable twin does, from nonzero adjoints and
// sums, with each weight vector given or not, over a whole program and over a run
// of its steps.
func TestReverseWalkLevels(t *testing.T) {
	r := testrand.New(t)
	for _, c := range []*Circuit{randomCircuit(r, 10), scrambledCircuit(r, 11), buildBlake2s()} {
		n := c.Size()
		ea, eb := randVec(r, n), randVec(r, n)
		dst0 := randVec(r, n)
		adj0 := make([]uint64, 4*c.nregs)
		for i := range adj0 {
			if i%4 != 3 {
				adj0[i] = r.Uint64()
			}
		}
		for _, code := range [][]instr{c.code, c.code[len(c.code)/3 : 2*len(c.code)/3]} {
			for _, w := range [][2][]field.E{{ea, eb}, {ea, nil}, {nil, eb}, {nil, nil}} {
				wantDst, wantAdj := slices.Clone(dst0), slices.Clone(adj0)
				reverseGo(wantDst, wantAdj, code, w[0], w[1])
				for _, l := range append([]cpu.Level{cpu.Portable}, Kernels.Levels()...) {
					func() {
						defer cpu.SetLevel(l)()
						dst, adj := slices.Clone(dst0), slices.Clone(adj0)
						reverseWalk(dst, adj, code, w[0], w[1])
						if !slices.Equal(dst, wantDst) {
							t.Fatalf("%s level %v (ea %v, eb %v): column sums differ from the portable walk's", c.Name(), l, w[0] != nil, w[1] != nil)
						}
						for i := range adj {
							if i%4 != 3 && adj[i] != wantAdj[i] {
								t.Fatalf("%s level %v (ea %v, eb %v): adjoint word %d differs from the portable walk's", c.Name(), l, w[0] != nil, w[1] != nil, i)
							}
						}
					}()
				}
			}
		}
	}
}

package circuit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// BenchmarkSolveMany solves g bit-sliced vectors (64·g instances) of the BLAKE2s
// circuit in one walk, with A0·w and B0·w, at every level of the family.
func BenchmarkSolveMany(b *testing.B) {
	c := BLAKE2s()
	r := testrand.New(b)
	for _, g := range []int{1, 2, 4} {
		ws, as, bs := make([][]uint64, g), make([][]uint64, g), make([][]uint64, g)
		for k := range ws {
			ws[k], as[k], bs[k] = make([]uint64, c.Size()), make([]uint64, c.Size()), make([]uint64, c.Size())
			for _, col := range c.Inputs() {
				ws[k][col] = r.Uint64()
			}
			ws[k][c.ConstCol()] = ^uint64(0)
		}
		for _, l := range Kernels.Levels() {
			b.Run(fmt.Sprintf("g=%d/%v", g, l), func(b *testing.B) {
				defer cpu.SetLevel(l)()
				for b.Loop() {
					c.SolveMany(ws, as, bs)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.NumInstr()), "ns/instr")
			})
		}
	}
}

// SolveMany at every level of the family (the assembly walks take 1, 2 and 4 vectors with
// both row-value sides) gives the portable walk's witness and row values, for 1 to
// 5 vectors, with and without the row values, on the BLAKE2s circuit and a random
// one.
func TestSolveManyKernels(t *testing.T) {
	r := testrand.New(t)
	for _, c := range []*Circuit{BLAKE2s(), randomCircuit(r, 12)} {
		for g := 1; g <= 5; g++ {
			inputs := make([][]uint64, g)
			for k := range inputs {
				inputs[k] = make([]uint64, c.Size())
				for i := range inputs[k] {
					inputs[k][i] = r.Uint64() // every non-input column is overwritten or cleared
				}
				inputs[k][c.ConstCol()] = ^uint64(0)
			}
			run := func(l cpu.Level, rows bool) (ws, as, bs [][]uint64) {
				defer cpu.SetLevel(l)()
				ws = make([][]uint64, g)
				if rows {
					as, bs = make([][]uint64, g), make([][]uint64, g)
				}
				for k := range ws {
					ws[k] = append([]uint64(nil), inputs[k]...)
					if rows {
						as[k], bs[k] = make([]uint64, c.Size()), make([]uint64, c.Size())
						for i := range as[k] {
							as[k][i], bs[k][i] = r.Uint64(), r.Uint64() // SolveMany sets every entry
						}
					}
				}
				c.SolveMany(ws, as, bs)
				return ws, as, bs
			}
			for _, rows := range []bool{true, false} {
				ww, wa, wb := run(cpu.Portable, rows)
				if rows {
					for k := range ww {
						if i := c.Satisfied(ww[k]); i >= 0 {
							t.Fatalf("%s g=%d: portable witness %d violates row %d", c.Name(), g, k, i)
						}
					}
				}
				for _, l := range Kernels.Levels() {
					gw, ga, gb := run(l, rows)
					for k := range g {
						if !slices.Equal(gw[k], ww[k]) {
							t.Fatalf("%s g=%d level %v: witness %d differs from the portable walk", c.Name(), g, l, k)
						}
						if rows && (!slices.Equal(ga[k], wa[k]) || !slices.Equal(gb[k], wb[k])) {
							t.Fatalf("%s g=%d level %v: row values %d differ from the portable walk", c.Name(), g, l, k)
						}
					}
				}
			}
		}
	}
}

// lateRowCircuit is randomCircuit with every 97th row of the first 2,000, and the
// row at the end of the first word block, written after all the others: the
// first blocks are final only at the end of the walk, the others in order.
func lateRowCircuit(r *rand.Rand, logSize int) *Circuit {
	var rows, late []int
	for i := 63; i < 1<<logSize-5; i++ {
		switch {
		case i%97 == 0 && i < 2000, i == 63:
			late = append(late, i)
		case r.IntN(4) != 0:
			rows = append(rows, i)
		}
	}
	return randomGates(r, "late rows", logSize, append(rows, late...))
}

// SolveManyStream reports every word block exactly once, each when its words
// already hold SolveMany's final values in every vector, at every level, for 1 to
// 4 vectors, walking a few dozen steps between reports, on a circuit whose rows
// are written in order and on one with rows written late.
func TestSolveManyStream(t *testing.T) {
	defer func(c int) { streamChunk = c }(streamChunk)
	streamChunk = 50 // before the circuits plan their reports
	r := testrand.New(t)
	for _, c := range []*Circuit{randomCircuit(r, 14), lateRowCircuit(r, 14)} {
		words := c.Size() / 64
		if c.readyBlocks().chunk != 50 || len(c.readyBlocks().runs) < 100 {
			t.Fatalf("%s: %d chunks of %d steps", c.Name(), len(c.readyBlocks().runs), c.readyBlocks().chunk)
		}
		for g := 1; g <= 4; g++ {
			for _, l := range append([]cpu.Level{cpu.Portable}, Kernels.Levels()...) {
				func() {
					defer cpu.SetLevel(l)()
					var vs [3][][]uint64 // w, A0·w, B0·w
					for k := range vs {
						vs[k] = make([][]uint64, g)
					}
					for i := range g {
						for k := range vs {
							vs[k][i] = make([]uint64, c.Size())
						}
						for _, col := range c.Inputs() {
							vs[0][i][col] = r.Uint64()
						}
						vs[0][i][c.ConstCol()] = ^uint64(0)
					}
					want := [3][][]uint64{}
					for k := range vs {
						for i := range g {
							want[k] = append(want[k], slices.Clone(vs[k][i]))
						}
					}
					c.SolveMany(want[0], want[1], want[2])
					seen := make([]int, words)
					c.SolveManyStream(vs[0], vs[1], vs[2], func(k0, k1 int) {
						for k := k0; k < k1; k++ {
							seen[k]++
							for v := range vs {
								for i := range g {
									if !slices.Equal(vs[v][i][64*k:64*k+64], want[v][i][64*k:64*k+64]) {
										t.Fatalf("%s, level %v, %d vectors: block %d of vector %d/%d reported before it is final", c.Name(), l, g, k, v, i)
									}
								}
							}
						}
					})
					for k, n := range seen {
						if n != 1 {
							t.Fatalf("%s, level %v, %d vectors: block %d reported %d times", c.Name(), l, g, k, n)
						}
					}
				}()
			}
		}
	}
}

package circuit

import (
	"fmt"
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

// SolveMany at every level of the family (the AVX2 walk takes 2 and 4 vectors with
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

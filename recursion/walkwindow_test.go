package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// TestBlocksWalkMatchesDescription: at the block sizes a merge proves (arith and
// square at 2^20, the transcript block, the no-reveal grind block, no-reveal query
// blocks of a level-0 and a later level), the compiled circuit's walk at every
// level of the circuit family gives the description's bilinear forms at random
// tensor weights. These blocks emit rows and load columns in several regions at
// once, so their walks run the circuit package's back windows; the small blocks of
// TestBlocksDescribedMatchCompiled barely do.
func TestBlocksWalkMatchesDescription(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles blocks of 2^20 columns")
	}
	rng := testrand.New(t)
	type kind struct {
		name     string
		desc     circuit.Matrices
		compiled func() *circuit.Circuit
	}
	kinds := []kind{
		{"arith-20", arithLayout(20).lazy.Described(), func() *circuit.Circuit { return NewArithBlock(20).Circuit }},
		{"square-20", squareLayout(20).lazy.Described(), func() *circuit.Circuit { return NewSquareBlock(20).Circuit }},
		{"transcript", transcriptLayout().lazy.Described(), func() *circuit.Circuit { return NewTranscriptBlock().Circuit }},
		{"grind-nr", grindLayoutNR().lazy.Described(), func() *circuit.Circuit { return NewGrindBlockNR().Circuit }},
		{"q0-d18-m17-nr", queryLayoutNR(true, 18, 17).lazy.Described(), func() *circuit.Circuit { return NewQueryBlockNR(true, 18, 17).Circuit }},
		{"q-d15-m5-nr", queryLayoutNR(false, 15, 5).lazy.Described(), func() *circuit.Circuit { return NewQueryBlockNR(false, 15, 5).Circuit }},
	}
	for _, k := range kinds {
		c := k.compiled()
		for _, lowLog := range []int{6, 10} {
			e, w := randomTensor(rng, lowLog, c.LogSize()), randomTensor(rng, lowLog, c.LogSize())
			da, db := k.desc.BilinearTensor(e, w)
			for _, l := range circuit.Kernels.Levels() {
				func() {
					defer cpu.SetLevel(l)()
					if ca, cb := c.BilinearTensor(e, w); ca != da || cb != db {
						t.Fatalf("%s level %v (low 2^%d): the walk's forms differ from the description's", k.name, l, lowLog)
					}
				}()
			}
		}
	}
}

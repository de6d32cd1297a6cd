package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// TestBlocksDescribedMatchCompiled: each block kind's description, run on an
// evaluator (what a verifier uses, nothing built), gives its compiled circuit's
// bilinear forms at random tensor weights, and its layout is the compiled block's.
func TestBlocksDescribedMatchCompiled(t *testing.T) {
	rng := testrand.New(t)
	type kind struct {
		name     string
		desc     circuit.Matrices
		compiled *circuit.Circuit
	}
	var kinds []kind
	tb, tbc := transcriptLayout(), NewTranscriptBlock()
	if tb.Out != tbc.Out || tb.ZeroData != tbc.ZeroData {
		t.Fatal("transcript layouts differ")
	}
	kinds = append(kinds, kind{"transcript", tb.lazy.Described(), tbc.Circuit})
	gb, gbc := grindLayout(), NewGrindBlock()
	kinds = append(kinds, kind{"grind", gb.lazy.Described(), gbc.Circuit})
	gn, gnc := grindLayoutNR(), NewGrindBlockNR()
	kinds = append(kinds, kind{"grind-nr", gn.lazy.Described(), gnc.Circuit})
	ab, abc := arithLayout(arithTestLog), NewArithBlock(arithTestLog)
	if ab.Out != abc.Out || ab.Products != abc.Products {
		t.Fatal("arithmetic layouts differ")
	}
	kinds = append(kinds, kind{"arith", ab.lazy.Described(), abc.Circuit})
	sb, sbc := squareLayout(arithTestLog), NewSquareBlock(arithTestLog)
	if sb.Out != sbc.Out || sb.Units != sbc.Units {
		t.Fatal("squaring layouts differ")
	}
	kinds = append(kinds, kind{"square", sb.lazy.Described(), sbc.Circuit})
	for _, q := range []struct {
		level0          bool
		depth, pointLen int
	}{{true, 5, 4}, {false, 4, 3}} {
		qb, qbc := queryLayout(q.level0, q.depth, q.pointLen), newQueryBlock(q.level0, q.depth, q.pointLen)
		if qb.Root != qbc.Root || qb.Fold != qbc.Fold || qb.Induced != qbc.Induced || qb.Point != qbc.Point {
			t.Fatal("query layouts differ")
		}
		kinds = append(kinds, kind{qb.name, qb.lazy.Described(), qbc.Circuit})
		nr, nrc := queryLayoutNR(q.level0, q.depth, q.pointLen), NewQueryBlockNR(q.level0, q.depth, q.pointLen)
		if nr.Root != nrc.Root || nr.Sample != nrc.Sample || nr.Induced != nrc.Induced {
			t.Fatal("no-reveal query layouts differ")
		}
		kinds = append(kinds, kind{nr.name, nr.lazy.Described(), nrc.Circuit})
	}
	for _, k := range kinds {
		if k.desc.LogSize() != k.compiled.LogSize() || k.desc.ConstCol() != k.compiled.ConstCol() {
			t.Fatalf("%s: shapes differ", k.name)
		}
		for range 2 {
			e, w := randomTensor(rng, LowBits, k.desc.LogSize()), randomTensor(rng, LowBits, k.desc.LogSize())
			da, db := k.desc.BilinearTensor(e, w)
			ca, cb := k.compiled.BilinearTensor(e, w)
			if da != ca || db != cb {
				t.Fatalf("%s: the description's forms differ from the circuit's", k.name)
			}
		}
	}
}

package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/stages/open"
)

// TestChildQueries: a real child's opening, read off as query-block inputs, gives
// back what its verifier computed: every path climbs to its level's root, the
// λ-weighted fold terms sum to the enforced sum the verifier read the next round
// against, and the λ-weighted induced terms to open.InducedWeight.
func TestChildQueries(t *testing.T) {
	for _, rate := range []int{1, 2} {
		p := proveChild(t, 4, rate, 41)
		v, err := ChildValuesOf(p.Proof, p.Statement)
		if err != nil {
			t.Fatal(err)
		}
		levels, err := ChildQueries(p.Proof, p.Statement, v)
		if err != nil {
			t.Fatal(err)
		}
		for l, lq := range levels {
			var fold, induced field.E
			weights := make([]field.E, len(lq.Queries))
			field.Powers(weights, lq.Lambda)
			idx := make([]int, len(lq.Queries))
			for i := range lq.Queries {
				in := &lq.Queries[i]
				root, f, ind := QueryTerms(in, lq.MessageLog)
				if root != lq.Root {
					t.Fatalf("rate %d level %d query %d: the path misses the root", rate, l, i)
				}
				fold = fold.Add(weights[i].Mul(f))
				induced = induced.Add(weights[i].Mul(ind))
				idx[i] = in.Index
			}
			if fold != lq.Enforced {
				t.Fatalf("rate %d level %d: Σ λ^i·fold = %v, the verifier's enforced sum %v", rate, l, fold, lq.Enforced)
			}
			if want := open.InducedWeight(lq.MessageLog, idx, weights, lq.Point); induced != want {
				t.Fatalf("rate %d level %d: Σ λ^i·induced = %v, open.InducedWeight %v", rate, l, induced, want)
			}
			if l == 0 && lq.Root == (merkle.Digest{}) {
				t.Fatal("level 0 without a root")
			}
		}
		t.Logf("rate %d: %d levels, queries %d..%d", rate, len(levels), len(levels[0].Queries), len(levels[len(levels)-1].Queries))
	}
}

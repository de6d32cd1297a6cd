package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
)

// TestQueryBlockNRTerms: no-reveal query blocks filled with a real child's queries
// and the transcript samples they were drawn from climb to the level's root and
// output the fold and induced terms QueryTerms computes, at every level: the index
// the block takes from its sample is the query's.
func TestQueryBlockNRTerms(t *testing.T) {
	p, v := childWithValues(t, 4, 2, 39)
	rev, _, err := RevealChild(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	lqs, err := ChildQueries(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := nativeTapeInputs(nil, nil, nil)
	ct, err := NewChildTape(p.Statement, in)
	if err != nil {
		t.Fatal(err)
	}
	for l := range lqs {
		lq := &lqs[l]
		samples := make([]field.E, len(ct.Levels[l].Samples))
		for i, s := range ct.Levels[l].Samples {
			samples[i] = rev.Challenges[s.Terms[0].Atom.Word/3]
		}
		qb := NewQueryBlockNR(l == 0, len(lq.Queries[0].Path), len(lq.Point))
		seg := qb.NRSegment(lq, samples)
		wit := filledWords(t, seg)
		for i, q := range lq.Queries {
			root, fold, induced := QueryTerms(&q, lq.MessageLog)
			if root != lq.Root {
				t.Fatalf("level %d, query %d: the path climbs to another root", l, i)
			}
			e := func(col int) field.E { w := qb.Word(i, col); return field.E{C0: wit[w], C1: wit[w+1], C2: wit[w+2]} }
			var got [4]uint64
			for k := range got {
				got[k] = uint64(wit[qb.Word(i, qb.Root)+k])
			}
			if got != [4]uint64{leUint64(root[:]), leUint64(root[8:]), leUint64(root[16:]), leUint64(root[24:])} {
				t.Fatalf("level %d, query %d: root words differ", l, i)
			}
			if e(qb.Fold) != fold || e(qb.Induced) != induced {
				t.Fatalf("level %d, query %d: fold %v induced %v, want %v %v", l, i, e(qb.Fold), e(qb.Induced), fold, induced)
			}
		}
	}
}

package recursion

import (
	"errors"
	"math/bits"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
)

// TestChildLevelsAsSegments proves a real child's first two WHIR levels as query
// segments: the blocks pinned to the level's root, eq table, point and index bits, and
// their λ-weighted terms tied by linear claims to the enforced sums and induced weights.
// A wrong revealed sum, another root, or a changed opened row is rejected.
func TestChildLevelsAsSegments(t *testing.T) {
	skipProofs(t, "proves 2^27 columns of query blocks")
	p, v := childWithValues(t, 4, 2, 51)
	levels, err := ChildQueries(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	type lvl struct {
		qb       *QueryBlock
		lq       *LevelQueries
		induced  field.E
		enforced field.E
	}
	var ls []lvl
	for l := range 2 {
		lq := &levels[l]
		depth := len(lq.Queries[0].Path)
		qb := NewQueryBlock(depth, lq.MessageLog)
		if l > 0 {
			qb = NewLaterQueryBlock(depth, lq.MessageLog)
		}
		idx := make([]int, len(lq.Queries))
		w := make([]field.E, len(lq.Queries))
		field.Powers(w, lq.Lambda)
		for i, in := range lq.Queries {
			idx[i] = in.Index
		}
		ls = append(ls, lvl{qb, lq, open.InducedWeight(lq.MessageLog, idx, w, lq.Point), lq.Enforced})
	}
	ev := func(ls []lvl) *flows.Evaluations {
		var lin []flows.LinearClaim
		for i, l := range ls {
			lin = append(lin, l.qb.LevelClaims(i, l.lq, bits.Len(uint(len(l.lq.Queries)-1)), 0, l.enforced, l.induced)...)
		}
		return &flows.Evaluations{Linear: lin}
	}
	segs := []flows.Segment{ls[0].qb.LevelSegment(ls[0].lq), ls[1].qb.LevelSegment(ls[1].lq)}
	shapes := []flows.SegmentShape{ls[0].qb.LevelShape(ls[0].lq), ls[1].qb.LevelShape(ls[1].lq)}
	const label = "recursion-levels-test"
	proof, err := flows.ProveSegments(label, nil, segs, ev(ls), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flows.VerifySegments(proof, label, nil, shapes, ev(ls), 2); err != nil {
		t.Fatal(err)
	}
	// A wrong revealed sum.
	bad := append([]lvl(nil), ls...)
	bad[1].enforced = bad[1].enforced.Add(field.One)
	if _, err := flows.VerifySegments(proof, label, nil, shapes, ev(bad), 2); !errors.Is(err, flows.ErrInput) {
		t.Fatalf("a wrong enforced sum: %v", err)
	}
	bad = append([]lvl(nil), ls...)
	bad[0].induced = bad[0].induced.Add(field.One)
	if _, err := flows.VerifySegments(proof, label, nil, shapes, ev(bad), 2); !errors.Is(err, flows.ErrInput) {
		t.Fatalf("a wrong induced weight: %v", err)
	}
	// Another root in the verifier's table.
	other := *ls[0].lq
	other.Root[5] ^= 1
	sh2 := []flows.SegmentShape{ls[0].qb.LevelShape(&other), shapes[1]}
	if _, err := flows.VerifySegments(proof, label, nil, sh2, ev(ls), 2); err == nil {
		t.Fatal("another root verified")
	}
	// A changed opened row: its path misses the pinned root.
	changed := *ls[1].lq
	changed.Queries = append([]QueryInput(nil), changed.Queries...)
	changed.Queries[3].Row = append([]uint64(nil), changed.Queries[3].Row...)
	changed.Queries[3].Row[0] ^= 1
	badSegs := []flows.Segment{segs[0], ls[1].qb.LevelSegment(&changed)}
	bp, err := flows.ProveSegments(label, nil, badSegs, ev(ls), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flows.VerifySegments(bp, label, nil, shapes, ev(ls), 2); err == nil {
		t.Fatal("a changed opened row verified")
	}
	t.Logf("levels 0 and 1: %d and %d queries, blocks of 2^%d and 2^%d columns, proof %d bytes",
		len(ls[0].lq.Queries), len(ls[1].lq.Queries), ls[0].qb.LogSize(), ls[1].qb.LogSize(), len(proof.MarshalWire()))
}

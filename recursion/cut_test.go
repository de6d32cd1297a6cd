package recursion

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/xmss"
)

// TestGroupPieces pins how a query group may be cut: in two only when the blocks past
// the largest power of two pad to fewer slots than it.
func TestGroupPieces(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []int
	}{
		{1, []int{1}}, {8, []int{8}}, {9, []int{9}}, {17, []int{16, 1}}, {42, []int{32, 10}},
		{50, []int{50}}, {64, []int{64}}, {66, []int{64, 2}}, {90, []int{64, 26}},
		{96, []int{64, 32}}, {97, []int{97}}, {224, []int{224}},
	} {
		if got := groupPieces(c.n); !slices.Equal(got, c.want) {
			t.Errorf("groupPieces(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// cutLayout lays out a 2→1 merge of two leaves of n signers at leafRate (blank
// values: the layout depends only on the shapes).
func cutLayout(t *testing.T, n, leafRate int) (*MergedNR, *nrLayout) {
	t.Helper()
	m, err := blankMerged(xmss.Message{}, 0, placeholderKeys(2*n), 2, []ChildInfo{{n, leafRate}, {n, leafRate}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	return m, l
}

// stackWords is the words a layout's segments commit (each padded to its slots).
func stackWords(l *nrLayout) int {
	total := 0
	for _, sh := range l.shapes() {
		total += 1 << (sh.Circuit.LogSize() + flows.SlotLog(sh.N) - 6)
	}
	return total
}

// TestSplitPlan checks the layouts' cuts: two 48-signer rate-2 leaves need the
// level-1 group cut (90 blocks: 64 + 26) to commit 2^23 words and not 2^24, and the
// second child's level-1 queries straddle the cut; two 2-signer leaves fit uncut; the
// segment count the statement is padded by counts the cut.
func TestSplitPlan(t *testing.T) {
	m, l := cutLayout(t, 48, 2)
	var cut []*nrGroup
	for _, g := range l.groups {
		if len(g.pieces) > 1 {
			cut = append(cut, g)
		}
	}
	if len(cut) != 1 || !slices.Equal(cut[0].pieces, []int{64, 26}) {
		t.Fatalf("cut groups: %d, want the level-1 group as 64 + 26", len(cut))
	}
	g := cut[0]
	words := stackWords(l)
	ls := g.qb.LogSize() - 6
	uncut := words - 64<<ls - 32<<ls + 128<<ls
	if words > 1<<23 || uncut <= 1<<23 {
		t.Errorf("stack words %d cut, %d uncut: want the cut to bring it to 2^23", words, uncut)
	}
	q0, q1 := l.queries[0][1], l.queries[1][1]
	if q0.Split != 0 || q0.Seg != g.seg || q0.SlotOffset != 0 {
		t.Errorf("child 0's level 1: %+v, want slots 0.. of segment %d", q0, g.seg)
	}
	if q1.Seg != g.seg || q1.SlotOffset != 45 || q1.Split != 19 || q1.Seg2 != g.seg+1 {
		t.Errorf("child 1's level 1: segment %d slot %d split %d into %d, want %d / 45 / 19 / %d", q1.Seg, q1.SlotOffset, q1.Split, q1.Seg2, g.seg, g.seg+1)
	}
	if seg, slot := q1.at(19); seg != g.seg+1 || slot != 0 {
		t.Errorf("child 1's level-1 query 19 in segment %d slot %d, want %d slot 0", seg, slot, g.seg+1)
	}
	if n, err := m.segmentCount(); err != nil || n != len(l.shapes()) {
		t.Errorf("segmentCount %d (%v), the layout %d segments", n, err, len(l.shapes()))
	}
	if l.grindSeg() != len(l.shapes())-1 {
		t.Errorf("grinding segment %d of %d", l.grindSeg(), len(l.shapes()))
	}
	_, small := cutLayout(t, 2, 2)
	for k, g := range small.groups {
		if len(g.pieces) != 1 {
			t.Errorf("two 2-signer leaves: group %d cut %v (its stack fits 2^23 uncut)", k, g.pieces)
		}
	}
}

// TestMergeNRCut proves and verifies a merge whose level-1 query group is cut (two
// 48-signer leaves at rate 2), and forges it: a prover that swaps two blocks of the
// cut group's queries (across the cut, and inside its second segment), each block
// valid for its own query, is refused.
func TestMergeNRCut(t *testing.T) {
	skipProofs(t, "proves 2→1 merges of 48-signer leaves")
	leaves := siblingLeaves(t, 2, 48, 2, 17)
	w := par.New(nil, 2)
	children := func() []NRChild {
		mc := mergeChildren(leaves)
		out := make([]NRChild, len(mc))
		for i := range mc {
			out[i] = NRChild{Leaf: &mc[i]}
		}
		return out
	}
	m, err := mergeNRWith(children(), 2, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(l.groups, func(g *nrGroup) bool { return len(g.pieces) == 2 }) {
		t.Fatal("the merge cut no query group")
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("the honest merge: %v", err)
	}
	for _, swap := range [][2]int{{63, 64}, {64, 65}} {
		t.Run(fmt.Sprintf("blocks %d and %d swapped", swap[0], swap[1]), func(t *testing.T) {
			swapped := false
			forged, err := mergeNRWith(children(), 2, w, &nrHooks{queries: func(g *nrGroup, in []*QueryInput) {
				if len(g.pieces) == 2 {
					in[swap[0]], in[swap[1]] = in[swap[1]], in[swap[0]]
					swapped = true
				}
			}})
			if err != nil {
				t.Fatalf("the forger's merge: %v", err)
			}
			if !swapped {
				t.Fatal("no cut group to forge")
			}
			if err := forged.Verify(); err == nil {
				t.Fatal("a merge with two query blocks swapped verified")
			}
		})
	}
}

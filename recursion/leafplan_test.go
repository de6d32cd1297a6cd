package recursion

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/xmss"
)

// TestLeafSplitPlan checks leafSplitPlan against what it stands in for, the uncut
// layout of the whole merge: for merges of leaves of one shape and of mixed sizes
// and rates, the segment shapes it computes from one replay per distinct leaf shape
// equal the uncut layout's segment by segment (circuit and slot count), and so
// does the plan.
func TestLeafSplitPlan(t *testing.T) {
	for _, children := range [][]ChildInfo{
		{{200, 2}, {200, 2}},
		{{48, 2}, {48, 2}},
		{{2, 2}, {2, 2}},
		{{8, 1}, {300, 2}, {8, 1}},
		{{64, 2}, {64, 2}, {64, 2}, {64, 2}},
		{{100, 3}, {7, 1}},
		{{1, 2}, {1, 4}, {33, 2}, {17, 3}, {5, 2}},
	} {
		t.Run(fmt.Sprint(children), func(t *testing.T) {
			m := blankLeaves(t, children)
			sts := make([]flows.Statement, len(children))
			for i := range sts {
				var err error
				if sts[i], err = m.childStatement(i); err != nil {
					t.Fatal(err)
				}
			}
			full, err := buildNRPlan(sts, m.Deferred, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			l, products, squares, err := leafUncut(sts)
			if err != nil {
				t.Fatal(err)
			}
			want, got := full.shapes(), l.shapesWith(products, squares)
			if len(got) != len(want) {
				t.Fatalf("%d segments, the uncut layout %d", len(got), len(want))
			}
			for i := range want {
				if got[i].N != want[i].N || got[i].Circuit.LogSize() != want[i].Circuit.LogSize() {
					t.Errorf("segment %d: %d slots of 2^%d, the uncut layout %d of 2^%d", i, got[i].N, got[i].Circuit.LogSize(), want[i].N, want[i].Circuit.LogSize())
				}
			}
			if p, q := l.splitPlanOf(got), full.splitPlan(); !slices.Equal(p, q) {
				t.Errorf("plan %v, the uncut layout's %v", p, q)
			}
		})
	}
}

// blankLeaves is a merge of leaves of these sizes and rates, with placeholder keys
// and blank values (a layout depends only on the shapes).
func blankLeaves(t *testing.T, infos []ChildInfo) *MergedNR {
	t.Helper()
	n := 0
	for _, c := range infos {
		n += c.N
	}
	m, err := blankMerged(xmss.Message{}, 0, placeholderKeys(n), 2, infos, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRelationsChunks checks that relationsInto's chunks written side by side give
// the relations one pass gives: a 2→1 merge's tape (about 44,000 units and
// assertions) at GOMAXPROCS 1 (one chunk) and 2, 3 and 8, every relation's value
// and terms equal, and an arena reused from a scratch equal too.
func TestRelationsChunks(t *testing.T) {
	_, l := cutLayout(t, 48, 2)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	want, err := l.tape.relationsInto(l.arith, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 20000 {
		t.Fatalf("%d relations: the tape is smaller than the test means", len(want))
	}
	var sc relScratch
	for _, procs := range []int{2, 3, 8, 8} {
		runtime.GOMAXPROCS(procs)
		got, err := l.tape.relationsInto(l.arith, &sc, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || cap(got) < len(want)+5 {
			t.Fatalf("GOMAXPROCS %d: %d relations (room for %d), want %d and room for 5 more", procs, len(got), cap(got), len(want))
		}
		for r := range want {
			if got[r].Value != want[r].Value || !slices.Equal(got[r].Terms, want[r].Terms) {
				t.Fatalf("GOMAXPROCS %d: relation %d of %d differs", procs, r, len(want))
			}
		}
	}
}

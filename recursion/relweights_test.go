package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// relationWeights gives, in one pass, each segment's linear batch weight as the
// definition computes it term by term: γ^k·Σ_r eq(τ, r)·Σ_{terms of r on the segment}
// coeff·eq(ρ_s, word), k the segment's index among the segments the relations touch;
// relationWeight gives one segment's.
func TestRelationWeights(t *testing.T) {
	r := testrand.New(t)
	vars := []int{5, 3, 4, 6} // segment 2 is touched by no relation
	ev := &flows.Evaluations{}
	for range 11 {
		var rel flows.Relation
		for range 1 + r.IntN(4) {
			s := []int{0, 1, 3}[r.IntN(3)]
			rel.Terms = append(rel.Terms, flows.RelationTerm{Segment: s, Word: r.IntN(1 << vars[s]), Coeff: randEOf(r)})
		}
		ev.Relations = append(ev.Relations, rel)
	}
	ev.Copies = []flows.CopyClaim{{From: 3, To: 0, FromWords: []int{1, 7, 9}, ToWords: []int{2, 2, 30}}}
	rows := len(ev.Relations) + 3
	n := 0
	for 1<<n < rows {
		n++
	}
	pt := make([]field.E, n+1+6)
	for i := range pt {
		pt[i] = randEOf(r)
	}
	tau, gamma := pt[:n], pt[n]
	eqAt := eqIndex
	want := make([]field.E, len(vars))
	for ri, rel := range ev.Relations {
		for _, tm := range rel.Terms {
			want[tm.Segment] = want[tm.Segment].Add(eqAt(tau, ri).Mul(tm.Coeff).Mul(eqAt(pt[len(pt)-vars[tm.Segment]:], tm.Word)))
		}
	}
	c := ev.Copies[0]
	for i := range c.FromWords {
		ri := len(ev.Relations) + i
		want[c.From] = want[c.From].Add(eqAt(tau, ri).Mul(eqAt(pt[len(pt)-vars[c.From]:], c.FromWords[i])))
		want[c.To] = want[c.To].Add(eqAt(tau, ri).Mul(eqAt(pt[len(pt)-vars[c.To]:], c.ToWords[i])))
	}
	// Segments 0, 1, 3 are touched: their claims are 0, 1, 2, weighed 1, γ, γ².
	want[1] = want[1].Mul(gamma)
	want[3] = want[3].Mul(gamma).Mul(gamma)
	got, err := relationWeights(ev, pt, vars)
	if err != nil {
		t.Fatal(err)
	}
	for s := range vars {
		if got[s] != want[s] {
			t.Fatalf("segment %d: %v, want %v", s, got[s], want[s])
		}
		one, err := relationWeight(ev, s, pt, vars[s])
		if err != nil || one != want[s] {
			t.Fatalf("relationWeight on segment %d: %v %v", s, one, err)
		}
	}
	if _, err := relationWeights(ev, pt[:n], vars); err == nil {
		t.Fatal("a point without ρ accepted")
	}
}

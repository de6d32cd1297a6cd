package recursion

import (
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// TestMergeNR merges two leaves with nothing revealed but their deferred claims: the
// merged proof verifies, its size and time are logged, and it is rejected against a
// changed carried claim (a point coordinate, a value) of either child, against keys
// in another order, and with a stream scalar changed.
func TestMergeNR(t *testing.T) {
	skipProofs(t, "proves a no-reveal 2→1 merge")
	leaves := siblingLeaves(t, 2, 4, 2, 61)
	m, err := MergeNR(mergeChildren(leaves), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	t.Logf("2→1 of 4-signer leaves, nothing revealed but the deferred claims: proved in %v, proof %d B, statement %d B",
		m.Took, len(m.Proof.MarshalWire()), len(m.statementBytes()))
	clone := func() *MergedNR {
		c := *m
		c.Deferred = slices.Clone(m.Deferred)
		c.Keys = slices.Clone(m.Keys)
		return &c
	}
	for _, tc := range []struct {
		name string
		edit func(c *MergedNR)
	}{
		{"child 0's chi_in", func(c *MergedNR) {
			c.Deferred[0].ChiIn = slices.Clone(c.Deferred[0].ChiIn)
			c.Deferred[0].ChiIn[1] = c.Deferred[0].ChiIn[1].Add(field.One)
		}},
		{"child 1's matrix value", func(c *MergedNR) { c.Deferred[1].VA = c.Deferred[1].VA.Add(field.One) }},
		{"child 1's key term", func(c *MergedNR) { c.Deferred[1].Key = c.Deferred[1].Key.Add(field.One) }},
		{"keys in another order", func(c *MergedNR) { c.Keys[0], c.Keys[5] = c.Keys[5], c.Keys[0] }},
		{"a stream scalar", func(c *MergedNR) {
			p := *c.Proof
			p.Stream = slices.Clone(p.Stream)
			p.Stream[len(p.Stream)/2] = p.Stream[len(p.Stream)/2].Add(field.One)
			c.Proof = &p
		}},
	} {
		c := clone()
		tc.edit(c)
		if err := c.Verify(); err == nil {
			t.Fatalf("%s changed: verified", tc.name)
		}
	}
}

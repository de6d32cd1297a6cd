package recursion

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// TestMergeNR merges two leaves with nothing revealed but their deferred claims: the
// merged proof verifies, its size and time are logged, and it is rejected against a
// changed carried claim (a point coordinate, a value) of either child, against keys
// in another order, with a stream scalar changed, and with its batch of the carried
// claims missing or changed.
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
	t.Logf("2→1 of 4-signer leaves, nothing revealed but the deferred claims: proved in %v (batch %v), proof %d B + batch %d B, statement %d B",
		m.Took, m.BatchTook, len(m.Proof.MarshalWire()), len(m.Batch.MarshalWire()), len(m.statementBytes()))
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
		{"no batch", func(c *MergedNR) { c.Batch = nil }},
		{"a batch scalar", func(c *MergedNR) {
			p := *c.Batch
			p.Stream = slices.Clone(p.Stream)
			p.Stream[3] = p.Stream[3].Add(field.One)
			c.Batch = &p
		}},
		{"the batch's last scalar", func(c *MergedNR) {
			p := *c.Batch
			p.Stream = slices.Clone(p.Stream)
			p.Stream[len(p.Stream)-1] = p.Stream[len(p.Stream)-1].Add(field.One)
			c.Batch = &p
		}},
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

// TestMergeNRCost compares a no-reveal merge with the revealing one on the same
// leaves (LEANPIPE_MERGE_NR=K,S: K leaves of S signers at rate 2), at 1 and 2 workers,
// second runs (the block circuits compiled by the first).
func TestMergeNRCost(t *testing.T) {
	spec := os.Getenv("LEANPIPE_MERGE_NR")
	if spec == "" {
		t.Skip("set LEANPIPE_MERGE_NR=K,S")
	}
	var k, s int
	if n, _ := fmt.Sscanf(spec, "%d,%d", &k, &s); n != 2 {
		t.Fatalf("LEANPIPE_MERGE_NR=%q: want K,S", spec)
	}
	leaves := siblingLeaves(t, k, s, 2, 63)
	for _, w := range []int{2, 1, 2, 1} {
		start := time.Now()
		m0, err := Merge(mergeChildren(leaves), 2, par.New(nil, w))
		if err != nil {
			t.Fatal(err)
		}
		p0 := time.Since(start)
		start = time.Now()
		if err := m0.Verify(); err != nil {
			t.Fatal(err)
		}
		v0 := time.Since(start)
		m, err := MergeNR(mergeChildren(leaves), 2, par.New(nil, w))
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		if err := m.Verify(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d→1 of %d signers, %d workers: revealing: prove %v, verify %v, file %d B; nothing revealed: prove %v (batch %v), verify %v, proof %d B + batch %d B + statement %d B",
			k, s, w, p0, v0, len(m0.ProofBytes()), m.Took, m.BatchTook, time.Since(start), len(m.Proof.MarshalWire()), len(m.Batch.MarshalWire()), len(m.statementBytes()))
	}
}

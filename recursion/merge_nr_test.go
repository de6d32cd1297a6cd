package recursion

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/xmss"
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
		m.Took, m.Profile.Batch, len(m.Proof.MarshalWire()), len(m.Batch.MarshalWire()), len(m.statementBytes()))
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
		{"a repeated key", func(c *MergedNR) { c.Keys[1] = c.Keys[0] }},
		{"a child's size", func(c *MergedNR) { c.Children = slices.Clone(c.Children); c.Children[0].N++; c.Children[1].N-- }},
		{"no proof", func(c *MergedNR) { c.Proof = nil }},
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
			k, s, w, p0, v0, len(m0.ProofBytes()), m.Took, m.Profile.Batch, time.Since(start), len(m.Proof.MarshalWire()), len(m.Batch.MarshalWire()), len(m.statementBytes()))
	}
}

// carriedFlat lists a merge's carried values in the statement's order.
func carriedFlat(ds []DeferredReveal) []field.E {
	var out []field.E
	for _, d := range ds {
		out = append(out, d.Z)
		out = append(out, d.ChiIn...)
		out = append(out, d.S...)
		out = append(out, d.ChiInPrime...)
		out = append(out, d.Tau...)
		out = append(out, d.ChiOut...)
		out = append(out, d.VA, d.VB, d.Key)
	}
	return out
}

// TestNRCarriedRelations: the carried values sit last in the absorbed string, one to a
// transcript step; in a no-reveal merge's layout they enter only as the values of the
// relations carriedRels names, each the value it says: with every
// carried value changed, exactly those relations' values change and every other
// relation (terms and value) is the same. A parent that holds the carried values only as
// committed data relies on this.
func TestNRCarriedRelations(t *testing.T) {
	skipProofs(t, "proves a no-reveal 2→1 merge")
	m, err := MergeNR(mergeChildren(siblingLeaves(t, 2, 4, 2, 91)), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	flat := carriedFlat(m.Deferred)
	// The carried values sit on whole transcript steps of the absorbed string (the
	// layout, then the statement), one E to a step, last.
	if n, err := m.segmentCount(); err != nil || n != len(l.shapes()) {
		t.Fatalf("nrSegmentCount %d (%v), the layout has %d segments", n, err, len(l.shapes()))
	}
	_, _, _, absorbed, err := flows.SegmentsLayout(l.shapes(), m.LogInvRate, m.statementBytes())
	if err != nil {
		t.Fatal(err)
	}
	off := len(absorbed) - 24*len(flat)
	if off%24 != 0 {
		t.Fatalf("the carried values start at byte %d of the absorbed string, not on a step", off)
	}
	for k, v := range flat {
		if got := appendE(nil, v); string(absorbed[off+24*k:off+24*k+24]) != string(got) {
			t.Fatalf("carried value %d is not at step %d of the carried part", k, k)
		}
	}
	if len(l.carriedRels) != len(flat) {
		t.Fatalf("%d carried relations for %d carried values", len(l.carriedRels), len(flat))
	}
	named := map[int]bool{}
	for _, rc := range l.carriedRels {
		if l.rels[rc[0]].Value != flat[rc[1]] {
			t.Fatalf("relation %d's value is not carried value %d", rc[0], rc[1])
		}
		named[rc[0]] = true
	}
	other := make([]DeferredReveal, len(m.Deferred))
	for i, d := range m.Deferred {
		bump := func(vs []field.E) []field.E {
			out := slices.Clone(vs)
			for j := range out {
				out[j] = out[j].Add(field.One)
			}
			return out
		}
		other[i] = DeferredReveal{Z: d.Z.Add(field.One), ChiIn: bump(d.ChiIn), S: bump(d.S), ChiInPrime: bump(d.ChiInPrime),
			Tau: bump(d.Tau), ChiOut: bump(d.ChiOut), VA: d.VA.Add(field.One), VB: d.VB.Add(field.One), Key: d.Key.Add(field.One)}
	}
	mo := *m
	mo.Deferred = other
	l2, _, err := mo.layout()
	if err != nil {
		t.Fatal(err)
	}
	if len(l2.rels) != len(l.rels) {
		t.Fatalf("%d relations, %d with other carried values", len(l.rels), len(l2.rels))
	}
	for r := range l.rels {
		same := l.rels[r].Value == l2.rels[r].Value && slices.Equal(l.rels[r].Terms, l2.rels[r].Terms)
		if named[r] == same {
			t.Fatalf("relation %d: named %v, unchanged %v", r, named[r], same)
		}
		if !slices.Equal(l.rels[r].Terms, l2.rels[r].Terms) {
			t.Fatalf("relation %d's terms depend on the carried values", r)
		}
	}
}

// TestNRStatementKeysDigest: a no-reveal statement absorbs its keys as one digest, so
// the bytes a parent's circuit absorbs of a merged child do not grow with the signers
// below it (docs/recursion.md §6.12), and the digest still binds every key and their
// order.
func TestNRStatementKeysDigest(t *testing.T) {
	children := []ChildInfo{{N: 4, LogInvRate: 2}, {N: 4, LogInvRate: 2}}
	keys := placeholderKeys(8)
	for i := range keys {
		// Distinct non-zero bytes throughout, so that no key's bytes occur by chance.
		for j := range keys[i].Root {
			keys[i].Root[j] = byte(0x80 + 13*i + j)
		}
		for j := range keys[i].P {
			keys[i].P[j] = byte(0x40 + 7*i + j)
		}
	}
	m, err := blankMerged(xmss.Message{1}, 7, keys, 2, children, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := m.statementBytes()
	for i, pk := range m.Keys {
		k := pk.Bytes()
		if bytes.Contains(st, k[:]) {
			t.Fatalf("the statement holds key %d's bytes", i)
		}
	}
	d := keysDigest(m.Keys)
	if !bytes.Contains(st, d[:]) {
		t.Fatal("the statement does not hold the keys' digest")
	}
	// 64 times the signers: the statement grows by the leaves' longer claim points
	// (a few values), not by the 504 more keys' 16 KB.
	big := []ChildInfo{{N: 256, LogInvRate: 2}, {N: 256, LogInvRate: 2}}
	mb, err := blankMerged(xmss.Message{1}, 7, placeholderKeys(512), 2, big, nil)
	if err != nil {
		t.Fatal(err)
	}
	if grew := len(mb.statementBytes()) - len(st); grew > 1024 {
		t.Fatalf("a statement of 512 keys is %d B longer than one of 8", grew)
	}
	for _, tc := range []struct {
		name string
		edit func(keys []xmss.PublicKey)
	}{
		{"a key's byte", func(keys []xmss.PublicKey) { keys[5].Root[3] ^= 1 }},
		{"two keys swapped", func(keys []xmss.PublicKey) { keys[0], keys[7] = keys[7], keys[0] }},
	} {
		c := *m
		c.Keys = slices.Clone(m.Keys)
		tc.edit(c.Keys)
		if bytes.Equal(c.statementBytes(), st) {
			t.Errorf("%s: the statement is unchanged", tc.name)
		}
	}
}

// TestNRStatementShapeDigest: a merged child's shape enters its parent's statement as
// one digest, which any change below it changes.
func TestNRStatementShapeDigest(t *testing.T) {
	leaves := []ChildInfo{{N: 2, LogInvRate: 2}, {N: 2, LogInvRate: 2}}
	shape := func(rate int) *MergedChildNR {
		return &MergedChildNR{Children: []ChildInfo{{N: 2, LogInvRate: 2}, {N: 2, LogInvRate: rate}}}
	}
	stmt := func(rate int) []byte {
		m, err := blankMerged(xmss.Message{}, 0, placeholderKeys(8), 2, []ChildInfo{{N: 4, LogInvRate: 2}, {N: 4, LogInvRate: 2}}, []*MergedChildNR{shape(rate), shape(2)})
		if err != nil {
			t.Fatal(err)
		}
		return m.statementBytes()
	}
	d := shapeDigest(shape(2))
	if st := stmt(2); !bytes.Contains(st, d[:]) {
		t.Fatal("the statement does not hold the merged child's shape digest")
	}
	if bytes.Equal(stmt(2), stmt(3)) {
		t.Fatal("a grandchild's rate does not change the statement")
	}
	if shapeDigest(shape(2)) == shapeDigest(&MergedChildNR{Children: leaves[:1]}) {
		t.Fatal("two shapes share a digest")
	}
}

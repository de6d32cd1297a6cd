package recursion

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/par"
)

// Forging no-reveal merges through the statement's digests (docs/recursion.md §6.12):
// a statement absorbs keysDigest of its keys and, per merged child, shapeDigest of the
// child's record, so a grandchild's keys and shape reach the root only through those
// digests, as constants of the replayed child transcripts and of the tree table. Each
// forgery below changes keys or shapes deep in the tree (the keys still adding up), is
// put on the honest proof, both as a MergedNR and as a file verified against the
// forged statement, and, for the key and split forgeries, is also re-proved by the
// forging prover (forgeNR) against the verifier's layout of the forged statement. All
// must be rejected, none by a panic.

// digestFixture is a depth-3 tree of 2-signer leaves at rate 2: m1 = (L0, L1),
// m2 = (L2, L3), g = (m1, m2) of depth 2, h = (g, L4) of depth 3.
type digestFixture struct {
	leaves []MergeChild
	m1, m2 *MergedNR
	g, h   *MergedNR
	// statements are the merges' absorbed statements (m1, m2, g, h) when built.
	statements [4][]byte
}

func (f *digestFixture) merges() [4]*MergedNR { return [4]*MergedNR{f.m1, f.m2, f.g, f.h} }

// untouched fails if a forgery changed a fixture merge's statement (its keys, shapes
// or claims): the merges' records are shared with the forging prover's, so an edit
// that reached them would make every later rejection the fixture's, not the forgery's.
func (f *digestFixture) untouched(t *testing.T) {
	t.Helper()
	for i, m := range f.merges() {
		if !slices.Equal(m.statementBytes(), f.statements[i]) {
			t.Fatalf("merge %d of the fixture was changed by a forgery", i)
		}
	}
}

// owned is edit on a copy of the merge's keys, children and records (the forging
// prover's statement shares its merged children's records).
func owned(edit func(m *MergedNR)) func(m *MergedNR) {
	return func(m *MergedNR) {
		*m = *cloneTree(m)
		edit(m)
	}
}

func buildDigestFixture(t *testing.T) *digestFixture {
	t.Helper()
	skipProofs(t, "proves depth-2 and depth-3 no-reveal merges")
	w := par.New(nil, 2)
	began := time.Now()
	f := &digestFixture{leaves: mergeChildren(siblingLeaves(t, 5, 2, 2, 331))}
	var err error
	if f.m1, err = MergeNR(f.leaves[:2], 2, w); err != nil {
		t.Fatal(err)
	}
	if f.m2, err = MergeNR(f.leaves[2:4], 2, w); err != nil {
		t.Fatal(err)
	}
	if f.g, err = MergeNRChildren([]NRChild{{Merged: f.m1}, {Merged: f.m2}}, 2, w); err != nil {
		t.Fatal(err)
	}
	if f.h, err = MergeNRChildren([]NRChild{{Merged: f.g}, {Leaf: &f.leaves[4]}}, 2, w); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*MergedNR{f.g, f.h} {
		if err := m.Verify(); err != nil {
			t.Fatalf("the honest depth-%d merge: %v", m.Depth(), err)
		}
		if err := VerifyMergedNR(m.ProofBytes(), m.Statement()); err != nil {
			t.Fatalf("the honest depth-%d merge's file: %v", m.Depth(), err)
		}
	}
	if f.g.Depth() != 2 || f.h.Depth() != 3 || len(f.h.Keys) != 10 {
		t.Fatalf("depths %d and %d, %d keys: not the fixture's tree", f.g.Depth(), f.h.Depth(), len(f.h.Keys))
	}
	for i, m := range f.merges() {
		f.statements[i] = m.statementBytes()
	}
	t.Logf("the fixture (five leaves, two depth-1, one depth-2, one depth-3 merge) built in %v", time.Since(began))
	return f
}

// cloneTree is cloneNR with every nested record copied too (cloneNR copies the
// children's records, not theirs), so that shape edits deep down leave m alone.
func cloneTree(m *MergedNR) *MergedNR {
	c := cloneNR(m)
	var deep func(s []*MergedChildNR) []*MergedChildNR
	deep = func(s []*MergedChildNR) []*MergedChildNR {
		if s == nil {
			return nil
		}
		out := make([]*MergedChildNR, len(s))
		for i, r := range s {
			if r == nil {
				continue
			}
			cr := *r
			cr.Children = slices.Clone(r.Children)
			cr.Subs = deep(r.Subs)
			out[i] = &cr
		}
		return out
	}
	for _, s := range c.Subs {
		if s != nil {
			s.Subs = deep(s.Subs)
		}
	}
	return c
}

// rejectEverywhere asserts that c is rejected by Verify and its file by VerifyMergedNR
// against c's own (forged) statement, neither by a panic.
func rejectEverywhere(t *testing.T, what string, c *MergedNR) {
	t.Helper()
	check := func(how string, verify func() error) {
		t.Helper()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s (%s): panicked: %v", what, how, r)
				}
			}()
			err = verify()
		}()
		if err == nil {
			t.Fatalf("%s (%s): the forgery VERIFIED", what, how)
		}
		if strings.Contains(err.Error(), "panicked") {
			t.Fatalf("%s (%s): a panic: %v", what, how, err)
		}
		t.Logf("%s (%s): rejected: %v", what, how, err)
	}
	check("Verify", c.Verify)
	check("file", func() error { return VerifyMergedNR(c.ProofBytes(), c.Statement()) })
}

// flipKey makes key i another key, distinct from every key of the list.
func flipKey(m *MergedNR, i int) {
	k := m.Keys[i]
	k.Root[0] ^= 0x5a
	if slices.Contains(m.Keys, k) {
		panic("the flipped key is in the list")
	}
	m.Keys[i] = k
}

// swapKeyBlocks exchanges the keys [a, a+n) and [b, b+n) (a+n ≤ b).
func swapKeyBlocks(m *MergedNR, a, b, n int) {
	m.Keys = slices.Concat(m.Keys[:a], m.Keys[b:b+n], m.Keys[a+n:b], m.Keys[a:a+n], m.Keys[b+n:])
}

// forgery is one of TestDigestForge's edits of a statement (prove: also re-proved by
// the forging prover).
type forgery struct {
	name  string
	edit  func(c *MergedNR)
	prove bool
}

// TestDigestForge: forgeries of the depth-3 root h and the depth-2 node g that keep
// the key count (and, for the shape forgeries, the keys) while changing what lies
// inside a merged grandchild's range or its record. h's keys: L0 0-1, L1 2-3 (m1:
// 0-3), L2 4-5, L3 6-7 (m2: 4-7), L4 8-9.
func TestDigestForge(t *testing.T) {
	f := buildDigestFixture(t)
	leafRec := func(c *MergedNR, j int) *MergedChildNR { return c.Subs[0].Subs[j] } // h: m1 (j 0) or m2 (j 1)
	rootForgeries := []forgery{
		{"keys swapped inside a leaf of a merged grandchild", func(c *MergedNR) { c.Keys[0], c.Keys[1] = c.Keys[1], c.Keys[0] }, true},
		{"keys swapped across a merged grandchild's leaves", func(c *MergedNR) { c.Keys[1], c.Keys[2] = c.Keys[2], c.Keys[1] }, false},
		{"keys swapped across the merged grandchildren", func(c *MergedNR) { c.Keys[3], c.Keys[4] = c.Keys[4], c.Keys[3] }, false},
		{"a grandchild's leaf's key replaced by a fresh key", func(c *MergedNR) { flipKey(c, 5) }, true},
		{"the merged grandchildren's key ranges swapped", func(c *MergedNR) { swapKeyBlocks(c, 0, 4, 4) }, false},
		{"the merged grandchildren's records and key ranges swapped", func(c *MergedNR) {
			swapKeyBlocks(c, 0, 4, 4)
			s := c.Subs[0].Subs
			s[0], s[1] = s[1], s[0]
		}, false},
		{"a great-grandchild leaf's size 1 and its sibling's 3", func(c *MergedNR) {
			leafRec(c, 0).Children = []ChildInfo{{N: 1, LogInvRate: 2}, {N: 3, LogInvRate: 2}}
		}, false},
		{"a great-grandchild leaf at rate 1", func(c *MergedNR) { leafRec(c, 1).Children[1].LogInvRate = 1 }, false},
		{"a merged grandchild at rate 3", func(c *MergedNR) { c.Subs[0].Children[0].LogInvRate = 3 }, false},
		{"a merged grandchild's leaves of sizes 3 and 1", func(c *MergedNR) {
			leafRec(c, 0).Children = []ChildInfo{{N: 3, LogInvRate: 2}, {N: 1, LogInvRate: 2}}
		}, false},
		{"a merged grandchild claimed a leaf", func(c *MergedNR) { c.Subs[0].Subs[0] = nil }, false},
		{"the grandchildren all claimed leaves", func(c *MergedNR) { c.Subs[0].Subs = nil }, false},
		{"a great-grandchild leaf claimed a merge of two 1-signer leaves", func(c *MergedNR) {
			leafRec(c, 0).Subs = []*MergedChildNR{{Children: []ChildInfo{{N: 1, LogInvRate: 2}, {N: 1, LogInvRate: 2}}}, nil}
		}, false},
		{"a merged grandchild claimed a merge of three leaves (2, 1, 1)", func(c *MergedNR) {
			leafRec(c, 1).Children = []ChildInfo{{N: 2, LogInvRate: 2}, {N: 1, LogInvRate: 2}, {N: 1, LogInvRate: 2}}
		}, false},
		{"a merged grandchild claimed a merge of one leaf of 4", func(c *MergedNR) {
			leafRec(c, 1).Children = []ChildInfo{{N: 4, LogInvRate: 2}}
		}, false},
		{"the split among the root's children changed consistently (7, 3)", func(c *MergedNR) {
			c.Children[0].N, c.Children[1].N = 7, 3
			c.Subs[0].Children[1].N = 3
			leafRec(c, 1).Children = []ChildInfo{{N: 2, LogInvRate: 2}, {N: 1, LogInvRate: 2}}
		}, true},
		{"the split among the grandchildren changed consistently (3, 5)", func(c *MergedNR) {
			c.Subs[0].Children[0].N, c.Subs[0].Children[1].N = 3, 5
			leafRec(c, 0).Children = []ChildInfo{{N: 2, LogInvRate: 2}, {N: 1, LogInvRate: 2}}
			leafRec(c, 1).Children = []ChildInfo{{N: 3, LogInvRate: 2}, {N: 2, LogInvRate: 2}}
		}, true},
		{"the root's children swapped with their keys, records and claims", func(c *MergedNR) {
			c.Keys = slices.Concat(c.Keys[8:], c.Keys[:8])
			c.Children[0], c.Children[1] = c.Children[1], c.Children[0]
			c.Deferred[0], c.Deferred[1] = c.Deferred[1], c.Deferred[0]
			c.Subs = []*MergedChildNR{nil, c.Subs[0]}
		}, false},
	}
	tryForgeries(t, f, "depth3/", f.h, []NRChild{{Merged: f.g}, {Leaf: &f.leaves[4]}}, rootForgeries)
	nodeForgeries := []forgery{
		{"keys swapped inside a leaf of a merged child", func(c *MergedNR) { c.Keys[6], c.Keys[7] = c.Keys[7], c.Keys[6] }, false},
		{"a merged child's key replaced by a fresh key", func(c *MergedNR) { flipKey(c, 2) }, false},
		{"the merged children's records and key ranges swapped", func(c *MergedNR) {
			swapKeyBlocks(c, 0, 4, 4)
			c.Subs[0], c.Subs[1] = c.Subs[1], c.Subs[0]
		}, true},
		{"the split among the merged children changed consistently (3, 5)", func(c *MergedNR) {
			c.Children[0].N, c.Children[1].N = 3, 5
			c.Subs[0].Children = []ChildInfo{{N: 2, LogInvRate: 2}, {N: 1, LogInvRate: 2}}
			c.Subs[1].Children = []ChildInfo{{N: 3, LogInvRate: 2}, {N: 2, LogInvRate: 2}}
		}, false},
	}
	tryForgeries(t, f, "depth2/", f.g, []NRChild{{Merged: f.m1}, {Merged: f.m2}}, nodeForgeries)
	// The edits left the honest proofs whole.
	for _, m := range []*MergedNR{f.g, f.h} {
		if err := m.Verify(); err != nil {
			t.Fatal(fmt.Errorf("the honest depth-%d merge after the forgeries: %w", m.Depth(), err))
		}
	}
}

// tryForgeries applies each forgery to a copy of honest (merged from children at rate
// 2) and expects it rejected; the ones marked for it are also re-proved against the
// verifier's layout of the forged statement, and rejected again.
func tryForgeries(t *testing.T, f *digestFixture, prefix string, honest *MergedNR, children []NRChild, forgeries []forgery) {
	for _, fg := range forgeries {
		t.Run(prefix+strings.ReplaceAll(fg.name, " ", "_"), func(t *testing.T) {
			defer f.untouched(t)
			c := cloneTree(honest)
			fg.edit(c)
			rejectEverywhere(t, "unproved", c)
			if !fg.prove {
				return
			}
			res, err := forgeNR(children, 2, nrForge{statement: owned(fg.edit)})
			if err != nil {
				t.Logf("no witness for the verifier's layout of the forged statement: %v", err)
				return
			}
			rejectEverywhere(t, "re-proved", res.m)
			t.Logf("broken relations: %q", res.broken)
		})
	}
}

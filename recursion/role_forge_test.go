package recursion

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// Forging no-reveal merges through the role kinds and the xmss-aggregate kind
// (docs/recursion.md §6.13). A merged child's carried public terms and linear weights
// are claims on role tables at the child's own digit; its own role tables' batched
// claim sits at its subtree's digit, at the address point r_a its record carries
// (Blocks.RAddr); its claim on the xmss-aggregate circuit is one of its block claims.
// Each forgery below lies about one of those: an address point moved or swapped with
// the role values recomputed true there (so the parent's batch and native checks
// hold and only the replay of the child's batch can refuse), a hint's value made the
// one its role's matrix at the sibling's digit gives, a batch that puts a child's hint
// claims at the sibling's digit, grandchildren swapped or reshaped, the xmss claim's
// values taken at another point. Each is put on an honest proof, the ones that can
// have a witness are also re-proved by the forging prover against the verifier's
// layout of the forged statement (about three minutes in all, most of it re-proving),
// and all must be rejected by Verify and by VerifyMergedNR, never by a panic.

// roleForgeFix is a depth-3 tree of leaves at rate 2 whose two merged grandchildren
// under g have different shapes but as many keys: a = (L0, L1) of 2 and 2 signers,
// b = (L2, L3, L4) of 1, 1 and 2; c = (L5, L6) of 2 and 2; g = (a, b), g2 = (c, L7)
// of depth 2, r = (g, g2) of depth 3. r's keys: a 0-3, b 4-7, c 8-11, L7 12-13.
type roleForgeFix struct {
	leaves     []MergeChild
	a, b, c    *MergedNR
	g, g2, r   *MergedNR
	statements [][]byte // of merges(), when built
}

func (f *roleForgeFix) merges() []*MergedNR { return []*MergedNR{f.a, f.b, f.c, f.g, f.g2, f.r} }

// untouched fails if a forgery changed a fixture merge's statement (a forged record
// that reached a shared one would make later rejections the fixture's).
func (f *roleForgeFix) untouched(t *testing.T) {
	t.Helper()
	for i, m := range f.merges() {
		if !slices.Equal(m.statementBytes(), f.statements[i]) {
			t.Fatalf("merge %d of the fixture was changed by a forgery", i)
		}
	}
}

func buildRoleForgeFix(t *testing.T) *roleForgeFix {
	t.Helper()
	skipProofs(t, "proves depth-1 to depth-3 no-reveal merges")
	w := par.New(nil, 2)
	began := time.Now()
	ps, _ := cutLeaves(t, 467, []leafCut{{2, 2}, {2, 2}, {1, 2}, {1, 2}, {2, 2}, {2, 2}, {2, 2}, {2, 2}})
	f := &roleForgeFix{leaves: mergeChildren(ps)}
	lv := f.leaves
	var err error
	must := func(m *MergedNR, err error) *MergedNR {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f.a = must(MergeNR(lv[0:2], 2, w))
	f.b = must(MergeNR(lv[2:5], 2, w))
	f.c = must(MergeNR(lv[5:7], 2, w))
	f.g = must(MergeNRChildren([]NRChild{{Merged: f.a}, {Merged: f.b}}, 2, w))
	f.g2 = must(MergeNRChildren([]NRChild{{Merged: f.c}, {Leaf: &lv[7]}}, 2, w))
	f.r = must(MergeNRChildren([]NRChild{{Merged: f.g}, {Merged: f.g2}}, 2, w))
	for _, m := range []*MergedNR{f.g, f.g2, f.r} {
		if err = m.Verify(); err == nil {
			err = VerifyMergedNR(m.ProofBytes(), m.Statement())
		}
		if err != nil {
			t.Fatalf("the honest depth-%d merge: %v", m.Depth(), err)
		}
	}
	if f.r.Depth() != 3 || len(f.r.Keys) != 14 || len(f.r.Subs[0].Blocks.RAddr) == 0 ||
		len(f.r.Subs[0].Blocks.RAddr) != len(f.r.Subs[1].Blocks.RAddr) {
		t.Fatalf("depth %d, %d keys, address points of %d and %d coordinates: not the fixture's tree",
			f.r.Depth(), len(f.r.Keys), len(f.r.Subs[0].Blocks.RAddr), len(f.r.Subs[1].Blocks.RAddr))
	}
	for _, m := range f.merges() {
		f.statements = append(f.statements, m.statementBytes())
	}
	t.Logf("the fixture (eight leaves, three depth-1, two depth-2 and one depth-3 merge) built in %v", time.Since(began))
	return f
}

// refitted is edit (a change of merged child i's shape below it) followed by child
// i's record refitted to the lengths the verifier lays the changed shape out with,
// its values kept where they fit and zero past them: a statement consistent with the
// changed shape, which the verifier lays out and whose role tables it derives.
func refitted(t *testing.T, i int, edit func(c *MergedNR)) func(c *MergedNR) {
	return func(c *MergedNR) {
		edit(c)
		mc := c.Subs[i]
		b, err := blankRecord(c.Children[i], mc)
		if err != nil {
			t.Fatalf("the changed shape has no record: %v", err)
		}
		copy(b.Values, mc.Values)
		for u := range min(len(b.Points), len(mc.Points)) {
			copy(b.Points[u], mc.Points[u])
		}
		copy(b.KeyPoint, mc.KeyPoint)
		b.KeyValue = mc.KeyValue
		for _, l := range [][2][]field.E{{b.Blocks.RRow, mc.Blocks.RRow}, {b.Blocks.RCol, mc.Blocks.RCol},
			{b.Blocks.VA, mc.Blocks.VA}, {b.Blocks.VB, mc.Blocks.VB}, {b.Blocks.RAddr, mc.Blocks.RAddr}} {
			copy(l[0], l[1])
		}
		c.Subs[i] = b
	}
}

// recordEdit edits merged child i's record (s: its layout as its parent's verifier
// derives it, with its hints' role matrices and its batch's kinds).
type recordEdit func(i int, mc *MergedChildNR, s *nrSub)

// onRecords is the forging prover's extraction with edit applied to each merged
// child's record once its carried values are computed from the replay.
func onRecords(edit recordEdit) func(int, *MergedNR) (*childExtract, []TranscriptRun, *nrSub, error) {
	return func(i int, mm *MergedNR) (*childExtract, []TranscriptRun, *nrSub, error) {
		return extractSub(mm, &subHooks{carried: func(mc *MergedChildNR, s *nrSub, _ []field.E) { edit(i, mc, s) }})
	}
}

// onHonest is a copy of honest (merged from children) with edit applied to its
// merged children's records.
func onHonest(t *testing.T, honest *MergedNR, children []NRChild, edit recordEdit) *MergedNR {
	t.Helper()
	c := cloneTree(honest)
	for i, ch := range children {
		if ch.Merged != nil {
			edit(i, c.Subs[i], blankSub(t, ch.Merged))
		}
	}
	return c
}

// batchHolds replays m's batch and evaluates its outputs natively: what the root
// checks of m besides its segments proof (the tape of its children's replays).
func batchHolds(m *MergedNR) error {
	l, subs, terms, err := batchParts(m, m)
	if err != nil {
		return err
	}
	_, _, _, start, err := flows.SegmentsLayout(l.shapes(), m.LogInvRate, m.statementBytes())
	if err != nil {
		return err
	}
	b, err := m.verifyBatchTraced(start, l, subs, terms, nil)
	if err != nil {
		return err
	}
	for _, c := range b.checks() {
		if err := c.Check(); err != nil {
			return fmt.Errorf("%s: %w", c.What, err)
		}
	}
	return nil
}

// trueRoleValues sets the record's values on its role kinds to its role tables at
// its address point with its row and column points: true claims wherever RAddr is.
func trueRoleValues(mc *MergedChildNR, s *nrSub) {
	b := &mc.Blocks
	b.VA = slices.Clone(b.VA)
	for k, kd := range s.kinds {
		if isRole(kd) {
			n := kd.block.LogSize()
			b.VA[k], _ = kindEval(kd, b.RAddr).BilinearTensor(EqWeight(b.RRow[:n]), EqWeight(b.RCol[:n]))
		}
	}
}

// xmssIndex is the xmss-aggregate kind's index among kinds and among the kinds with
// a B0 value (a record's VA and VB).
func xmssIndex(t *testing.T, kinds []nrKind) (xa, xb int) {
	t.Helper()
	zb := zeroBs(kinds)
	for j, k := range kinds {
		if _, ok := k.block.(xmssKind); ok {
			return j, xb
		}
		if !zb[j] {
			xb++
		}
	}
	t.Fatal("no xmss-aggregate kind")
	return -1, -1
}

// shifted is p with 1 added to each of its first n coordinates.
func shifted(p []field.E, n int) []field.E {
	q := slices.Clone(p)
	for i := range min(n, len(q)) {
		q[i] = q[i].Add(field.One)
	}
	return q
}

// atSibling is the value hint h's claim (its carried point pt) takes on the matrix
// of h's role in other's shape: what h would carry at other's own digit. ok is false
// when other has no hint of that role.
func atSibling(h hintKind, pt []field.E, other *nrSub) (v field.E, ok bool) {
	for _, o := range other.hk {
		if o.role() != h.role() {
			continue
		}
		m := o.mat
		cl := h.claim(pt, field.E{}, max(m.logSize, h.mat.logSize))
		v, _ = m.BilinearTensor(cl.Row, cl.Col)
		return v, true
	}
	return field.E{}, false
}

// roleForgery is one forgery of TestRoleForge: a statement edit or a record edit (the
// honest proof carries it as is; the forging prover re-proves it when prove is set),
// and the broken relation the re-proved witness must show, if any.
type roleForgery struct {
	name   string
	edit   func(c *MergedNR)
	record recordEdit
	prove  bool
	breaks string
	// batch: the re-proved forgery's own batch and native checks must hold (only the
	// replay of a child's batch on the tape can refuse it); batchFails: they must
	// refuse it too (the forged claim is false where the parent's batch puts it).
	batch, batchFails bool
	// moves: the forged statement's role tables have another matrix at some address
	// than the honest one's (checked, so that the forgery reaches the role kinds).
	moves bool
}

// TestRoleForge: forgeries of the depth-3 root r and the depth-2 node g through the
// role kinds and the xmss-aggregate kind; see the file's comment.
func TestRoleForge(t *testing.T) {
	// About three minutes: with the depth-2 forging sweep (LEANPIPE_FORGE_DEPTH=1);
	// the role kinds' own checks run in TestRoleAddressBatch and TestMergeNRDepth3.
	skipForgeSweep(t)
	f := buildRoleForgeFix(t)
	rChildren := []NRChild{{Merged: f.g}, {Merged: f.g2}}
	gChildren := []NRChild{{Merged: f.a}, {Merged: f.b}}
	rAddr := [2][]field.E{f.r.Subs[0].Blocks.RAddr, f.r.Subs[1].Blocks.RAddr}
	bSub := blankSub(t, f.b)

	// a and b have different shapes: some role's matrix differs between their digits.
	gl, gsubs, err := f.g.layout()
	if err != nil {
		t.Fatal(err)
	}
	gKinds, err := batchKinds(gl, gsubs)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	own := [2]int{len(gsubs) + 1, len(gsubs) + 2}
	for _, k := range gKinds {
		if rk, ok := k.block.(*roleKind); ok {
			mat := [2]int{-1, -1}
			for _, e := range rk.entries {
				for c, d := range own {
					if e.addr == d {
						mat[c] = e.mat
					}
				}
			}
			if mat[0] >= 0 && mat[1] >= 0 && mat[0] != mat[1] {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Fatal("a's and b's own role matrices are the same: the hint forgeries would be no forgeries")
	}
	t.Logf("g's role kinds: %d with a different matrix at a's digit %d and b's %d", differ, own[0], own[1])

	rootForgeries := []roleForgery{
		{name: "g's role address point changed", record: func(i int, mc *MergedChildNR, _ *nrSub) {
			if i == 0 {
				mc.Blocks.RAddr = shifted(mc.Blocks.RAddr, 1)
			}
		}},
		{name: "g's and g2's role address points swapped", record: func(i int, mc *MergedChildNR, _ *nrSub) {
			mc.Blocks.RAddr = slices.Clone(rAddr[1-i])
		}},
		{name: "g's role address point moved, its role values true there", record: func(i int, mc *MergedChildNR, s *nrSub) {
			if i == 0 {
				mc.Blocks.RAddr = shifted(mc.Blocks.RAddr, len(mc.Blocks.RAddr))
				trueRoleValues(mc, s)
			}
		}},
		{name: "g's and g2's role address points swapped, role values true there", record: func(i int, mc *MergedChildNR, s *nrSub) {
			mc.Blocks.RAddr = slices.Clone(rAddr[1-i])
			trueRoleValues(mc, s)
		}, prove: true, breaks: "the role claims' address point", batch: true},
		{name: "g's role values taken at g2's address point, its own kept", record: func(i int, mc *MergedChildNR, s *nrSub) {
			if i == 0 {
				own := mc.Blocks.RAddr
				mc.Blocks.RAddr = rAddr[1]
				trueRoleValues(mc, s)
				mc.Blocks.RAddr = own
			}
		}},
		{name: "g's whole block claim moved, every kind true there (roles, xmss-aggregate)", record: func(i int, mc *MergedChildNR, s *nrSub) {
			if i != 0 {
				return
			}
			b := &mc.Blocks
			b.RRow, b.RCol, b.RAddr = shifted(b.RRow, len(b.RRow)), shifted(b.RCol, len(b.RCol)), shifted(b.RAddr, len(b.RAddr))
			b.VA, b.VB = slices.Clone(b.VA), nil
			zb := zeroBs(s.kinds)
			for k, kd := range s.kinds {
				n := kd.block.LogSize()
				va, vb := kindEval(kd, b.RAddr).BilinearTensor(EqWeight(b.RRow[:n]), EqWeight(b.RCol[:n]))
				b.VA[k] = va
				if !zb[k] {
					b.VB = append(b.VB, vb)
				}
			}
		}, prove: true, breaks: "the block claims' row point", batch: true},
		{name: "grandchildren a and b swapped with their records, keys kept", edit: func(c *MergedNR) {
			s := c.Subs[0]
			s.Subs[0], s.Subs[1] = s.Subs[1], s.Subs[0]
			s.Children[0], s.Children[1] = s.Children[1], s.Children[0]
		}},
		{name: "grandchildren a and b swapped with their records, keys kept, g's record refitted", edit: refitted(t, 0, func(c *MergedNR) {
			s := c.Subs[0]
			s.Subs[0], s.Subs[1] = s.Subs[1], s.Subs[0]
			s.Children[0], s.Children[1] = s.Children[1], s.Children[0]
		}), moves: true},
		{name: "grandchild b's shape changed to a's (leaves of 2 and 2)", edit: func(c *MergedNR) {
			c.Subs[0].Subs[1].Children = []ChildInfo{{N: 2, LogInvRate: 2}, {N: 2, LogInvRate: 2}}
		}},
		{name: "grandchild b's shape changed to a's (leaves of 2 and 2), g's record refitted", edit: refitted(t, 0, func(c *MergedNR) {
			c.Subs[0].Subs[1].Children = []ChildInfo{{N: 2, LogInvRate: 2}, {N: 2, LogInvRate: 2}}
		}), prove: true, moves: true},
		{name: "grandchild a's shape changed to b's (leaves of 1, 1 and 2), g's record refitted", edit: refitted(t, 0, func(c *MergedNR) {
			c.Subs[0].Subs[0].Children = []ChildInfo{{N: 1, LogInvRate: 2}, {N: 1, LogInvRate: 2}, {N: 2, LogInvRate: 2}}
		}), moves: true},
		{name: "grandchild c's shape changed (leaves of 1 and 3)", edit: func(c *MergedNR) {
			c.Subs[1].Subs[0].Children = []ChildInfo{{N: 1, LogInvRate: 2}, {N: 3, LogInvRate: 2}}
		}, moves: true},
	}
	runRoleForgeries(t, f, "depth3/", f.r, rChildren, rootForgeries)

	// A carried hint of a (public table, linear weight) made the value its role's
	// matrix in b's shape gives at a's point: true at b's digit, not at a's. The replay
	// of a's verification on g's tape reads the value (a public term in a lincheck's
	// terminal identity, a weight in the linear claims' identity) and breaks there; g's
	// own batch, which puts the claim at a's digit, refuses it too. A value moved
	// between the siblings as is, and the xmss-aggregate claim's values changed or
	// taken true at another point than the record's.
	moved := func(kind SegmentHintKind) recordEdit {
		return func(i int, mc *MergedChildNR, s *nrSub) {
			if i != 0 {
				return
			}
			for _, hk := range s.hk {
				if hk.public != (kind == HintSegmentPublic) {
					continue
				}
				v, ok := atSibling(hk, mc.Points[hk.point], bSub)
				if ok && v != mc.Values[hk.kept] {
					mc.Values[hk.kept] = v
					return
				}
			}
			t.Fatalf("no hint of kind %d of a whose role's matrix differs in b", kind)
		}
	}
	allMoved := func(i int, mc *MergedChildNR, s *nrSub) {
		if i != 0 {
			return
		}
		n := 0
		for _, hk := range s.hk {
			if v, ok := atSibling(hk, mc.Points[hk.point], bSub); ok && v != mc.Values[hk.kept] {
				mc.Values[hk.kept] = v
				n++
			}
		}
		if n == 0 {
			t.Fatal("no hint of a whose role's matrix differs in b")
		}
	}
	xa, xb := xmssIndex(t, blankSub(t, f.a).kinds)
	nodeForgeries := []roleForgery{
		{name: "a public-table hint of a at its value on b's matrix", record: moved(HintSegmentPublic), prove: true, breaks: "lincheck terminal", batchFails: true},
		{name: "a linear weight of a at its value on b's matrix", record: moved(HintLinearWeight)},
		{name: "a's and b's first carried values swapped", record: func(i int, mc *MergedChildNR, _ *nrSub) {
			other := [2]*MergedChildNR{f.g.Subs[1], f.g.Subs[0]}[i]
			mc.Values[0] = other.Values[0]
		}},
		{name: "a's xmss-aggregate claim's A0 value changed", record: func(i int, mc *MergedChildNR, _ *nrSub) {
			if i == 0 {
				mc.Blocks.VA[xa] = mc.Blocks.VA[xa].Add(field.One)
			}
		}},
		{name: "a's xmss-aggregate claim's values true at another point, the point kept", record: func(i int, mc *MergedChildNR, _ *nrSub) {
			if i != 0 {
				return
			}
			n := xmssKind{}.LogSize()
			b := &mc.Blocks
			b.VA[xa], b.VB[xb] = xmssKind{}.Matrices().BilinearTensor(EqWeight(shifted(b.RRow[:n], n)), EqWeight(shifted(b.RCol[:n], n)))
		}, prove: true, breaks: "the block claims' A0 values", batchFails: true},
	}
	runRoleForgeries(t, f, "depth2/", f.g, gChildren, nodeForgeries)

	// A forging batch prover: g's batch with a's hint claims at b's own digit, (a) a's
	// claims true (a's values) and (b) its carried values the ones b's matrices give at
	// a's points (true at b's digit), the segments re-proved on those values.
	t.Run("depth2/a's_hint_claims_at_b's_digit", func(t *testing.T) {
		defer f.untouched(t)
		honest, err := proveBatchRoles(f.g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(honest.Stream, f.g.Batch.Stream) {
			t.Fatal("the test's batch prover with nothing changed is not the merge's")
		}
		misplace := func(kinds []nrKind, roles []roleClaim) {
			rw, ab := roleBits(2), roleAddrBits(kinds)
			from := roleDigitPoint(own[0], rw, []field.E(nil), ab, field.E{}, field.One)
			to := roleDigitPoint(own[1], rw, []field.E(nil), ab, field.E{}, field.One)
			n := 0
			for i := range roles {
				if slices.Equal(roles[i].Addr, from) {
					roles[i].Addr = to
					n++
				}
			}
			if n == 0 {
				t.Fatal("no role claim at a's own digit")
			}
		}
		c := cloneNR(f.g)
		if c.Batch, err = proveBatchRoles(c, misplace); err != nil {
			t.Fatal(err)
		}
		err = batchHolds(c)
		t.Logf("a's true claims at b's digit, the batch alone: %v", err)
		if err == nil {
			t.Fatal("the batch with a's claims at b's digit holds")
		}
		rejectEverywhere(t, "a's true claims at b's digit", c)

		res, err := forgeNR(gChildren, 2, nrForge{extract: onRecords(allMoved)})
		if err != nil {
			t.Fatal(err)
		}
		if res.m.Batch, err = proveBatchRoles(res.m, misplace); err != nil {
			t.Fatal(err)
		}
		err = batchHolds(res.m)
		t.Logf("a's claims true at b's digit and put there, the batch alone: %v", err)
		if err == nil {
			t.Fatal("the batch of a's claims true at b's digit, put there, holds")
		}
		rejectEverywhere(t, "a's claims true at b's digit and put there", res.m)
		t.Logf("broken relations: %q", res.broken)
	})

	for _, m := range []*MergedNR{f.g, f.r} {
		if err := m.Verify(); err != nil {
			t.Fatalf("the honest depth-%d merge after the forgeries: %v", m.Depth(), err)
		}
	}
}

// runRoleForgeries puts each forgery on a copy of honest (merged from children at
// rate 2) and expects it rejected; the ones marked for it are also re-proved by the
// forging prover, and rejected again.
func runRoleForgeries(t *testing.T, f *roleForgeFix, prefix string, honest *MergedNR, children []NRChild, forgeries []roleForgery) {
	for _, fg := range forgeries {
		t.Run(prefix+strings.ReplaceAll(fg.name, " ", "_"), func(t *testing.T) {
			defer f.untouched(t)
			var c *MergedNR
			if fg.edit != nil {
				c = cloneTree(honest)
				fg.edit(c)
				moved, err := roleEntriesMoved(honest, c)
				switch {
				case err != nil && fg.moves:
					t.Fatalf("the verifier does not lay the forged statement out: %v", err)
				case err != nil:
					t.Logf("the verifier does not lay the forged statement out: %v", err)
				case fg.moves && moved == 0:
					t.Fatal("the forged statement's role tables are the honest ones")
				default:
					t.Logf("role-table addresses whose matrix the forged statement changes: %d", moved)
				}
			} else {
				c = onHonest(t, honest, children, fg.record)
			}
			rejectEverywhere(t, "unproved", c)
			if !fg.prove {
				return
			}
			var nf nrForge
			if fg.edit != nil {
				nf.statement = owned(fg.edit)
			} else {
				nf.extract = onRecords(fg.record)
			}
			res, err := forgeNR(children, 2, nf)
			if err != nil {
				t.Logf("no witness for the verifier's layout of the forged statement: %v", err)
				return
			}
			t.Logf("broken relations: %q", res.broken)
			if fg.breaks != "" && !breaks(res.broken, fg.breaks) {
				t.Fatalf("the forged witness breaks %q, not %q", res.broken, fg.breaks)
			}
			if err := batchHolds(res.m); fg.batch && err != nil {
				t.Fatalf("the forged merge's own batch or native checks fail (%v): the forgery is not the replay's to refuse", err)
			} else if fg.batchFails {
				if err == nil {
					t.Fatal("the forged merge's own batch and native checks hold")
				}
				t.Logf("its own batch and native checks alone: %v", err)
			}
			rejectEverywhere(t, "re-proved", res.m)
		})
	}
}

// proveBatchRoles is m's batch for its own segments proof with the claims on its
// role kinds edited (edit, when set, sees them as kindClaims returns them, before the
// address batch): a forging batch prover. With edit nil it is the merge's batch.
func proveBatchRoles(m *MergedNR, edit func(kinds []nrKind, roles []roleClaim)) (*transcript.Proof, error) {
	l, subs, terms, err := batchParts(m, m)
	if err != nil {
		return nil, err
	}
	_, _, _, start, err := flows.SegmentsLayout(l.shapes(), m.LogInvRate, m.statementBytes())
	if err != nil {
		return nil, err
	}
	return m.proveBatch(start, l, subs, terms, edit, par.New(nil, 2))
}

// roleEntriesMoved counts the addresses of the role tables of honest's and forged's
// layouts (as a verifier derives them from the statements) whose matrices differ, an
// address in one table only included.
func roleEntriesMoved(honest, forged *MergedNR) (int, error) {
	tables := func(m *MergedNR) (map[string]map[int]*sparseKind, error) {
		l, subs, err := m.layout()
		if err != nil {
			return nil, err
		}
		kinds, err := batchKinds(l, subs)
		if err != nil {
			return nil, err
		}
		out := map[string]map[int]*sparseKind{}
		for _, k := range kinds {
			if rk, ok := k.block.(*roleKind); ok {
				at := map[int]*sparseKind{}
				for _, e := range rk.entries {
					at[e.addr] = rk.mats[e.mat]
				}
				out[rk.role] = at
			}
		}
		return out, nil
	}
	h, err := tables(honest)
	if err != nil {
		return 0, err
	}
	f, err := tables(forged)
	if err != nil {
		return 0, err
	}
	same := func(x, y *sparseKind) bool {
		return x == y || (x != nil && y != nil && x.logSize == y.logSize && slices.Equal(x.rowStart, y.rowStart) &&
			slices.Equal(x.cols, y.cols) && slices.Equal(x.coeffs, y.coeffs))
	}
	moved := 0
	count := func(a, b map[string]map[int]*sparseKind, both bool) {
		for role, at := range a {
			for addr, m := range at {
				o := b[role][addr]
				if o == nil || (both && !same(m, o)) {
					moved++
				}
			}
		}
	}
	count(h, f, true)
	count(f, h, false)
	return moved, nil
}

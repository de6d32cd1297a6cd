package recursion

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/xmss"
)

// TestMergeNRDepth2 merges a no-reveal merged proof of two leaves with a leaf and a
// rate-1 leaf (what `prove` makes of raw signers): the merged child's whole
// verification and its batch replayed in the parent, its carried values committed
// data, nothing revealed. The parent verifies, its key list is the leaves' in order,
// and it is rejected when any kind of value it carries of the merged child is changed,
// when the merged child's shape is changed, and when the keys are reordered.
func TestMergeNRDepth2(t *testing.T) {
	skipProofs(t, "proves a depth-2 no-reveal merge")
	w := par.New(nil, 2)
	leaves, in := cutLeaves(t, 91, []leafCut{{4, 2}, {4, 2}, {4, 2}, {3, 1}})
	mc := mergeChildren(leaves)
	m1, err := MergeNR(mc[:2], 2, w)
	if err != nil {
		t.Fatal(err)
	}
	// At the rate a merge with a merged child is made at unless asked otherwise.
	g, err := MergeNRChildren([]NRChild{{Merged: m1}, {Leaf: &mc[2]}, {Leaf: &mc[3]}}, DefaultRateOf(3, true), w)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Verify(); err != nil {
		t.Fatal(err)
	}
	wantSignersKeys(t, g.Keys, in)
	checkScratchReuse(t, m1, g)
	// Every merged proof is at most 256 KiB (issue 22), a rate-1 child's included.
	if n := len(g.ProofBytes()); n > 256<<10 {
		t.Errorf("a depth-2 node with a rate-1 leaf child: %d B, over 256 KiB", n)
	} else {
		t.Logf("a depth-2 node with a rate-1 leaf child, at rate %d: %d B", g.LogInvRate, n)
	}
	// The file and its statement: a round trip verifies; truncations and byte flips
	// are refused without a panic.
	file, st := g.ProofBytes(), g.Statement()
	if st.Depth != 2 {
		t.Fatalf("depth %d, want 2", st.Depth)
	}
	js, err := st.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back MergeStatement
	if err := back.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	if err := VerifyMergedNR(file, back); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range 24 {
		bad := slices.Clone(file)
		if k < 8 {
			bad = bad[:rng.IntN(len(bad))]
		} else {
			at := rng.IntN(len(bad))
			if k < 16 {
				at = mergeHeader + rng.IntN(int(binary.LittleEndian.Uint64(file[16:]))) // the carried section
			}
			bad[at] ^= byte(1 + rng.IntN(255))
		}
		err := VerifyMergedNR(bad, back)
		if err == nil {
			t.Fatalf("mutation %d verified", k)
		}
		if strings.Contains(err.Error(), "panicked") {
			t.Fatalf("mutation %d: %v", k, err)
		}
	}
	deeper := back
	deeper.Depth = 3
	if VerifyMergedNR(file, deeper) == nil {
		t.Fatal("verified against a statement of another depth")
	}
	t.Logf("depth 2 (a 2→1 merge of 4-signer leaves, a leaf and a rate-1 leaf): file %d B; proved in %v (batch %v), proof %d B + batch %d B, statement %d B",
		len(file), g.Took, g.Profile.Batch, len(g.Proof.MarshalWire()), len(g.Batch.MarshalWire()), len(g.statementBytes()))
	clone := func() *MergedNR {
		c := *g
		c.Keys = slices.Clone(g.Keys)
		c.Subs = slices.Clone(g.Subs)
		s := *g.Subs[0]
		s.Values = slices.Clone(s.Values)
		s.Points = slices.Clone(s.Points)
		s.KeyPoint = slices.Clone(s.KeyPoint)
		s.Blocks = KindsClaim{RRow: slices.Clone(s.Blocks.RRow), RCol: slices.Clone(s.Blocks.RCol), VA: slices.Clone(s.Blocks.VA), VB: slices.Clone(s.Blocks.VB), RAddr: slices.Clone(s.Blocks.RAddr)}
		s.Children = slices.Clone(s.Children)
		c.Subs[0] = &s
		return &c
	}
	one := field.One
	// The merged child's kind of the xmss-aggregate circuit, among its A0 values and
	// among its B0 values.
	sub, err := subShape(g.Children[0], g.Subs[0])
	if err != nil {
		t.Fatal(err)
	}
	xk, xb := -1, 0
	for j, k := range sub.kinds {
		if _, ok := k.block.(xmssKind); ok {
			xk = j
			break
		}
		if !zeroBs(sub.kinds)[j] {
			xb++
		}
	}
	if xk < 0 {
		t.Fatal("the merged child's batch has no xmss-aggregate kind")
	}
	for _, tc := range []struct {
		name string
		edit func(s *MergedChildNR, c *MergedNR)
	}{
		{"a carried public term", func(s *MergedChildNR, _ *MergedNR) { s.Values[0] = s.Values[0].Add(one) }},
		{"the carried relations' target", func(s *MergedChildNR, _ *MergedNR) {
			k := len(s.Values) - 1
			s.Values[k] = s.Values[k].Add(one)
		}},
		{"a carried point", func(s *MergedChildNR, _ *MergedNR) {
			s.Points[2] = slices.Clone(s.Points[2])
			s.Points[2][1] = s.Points[2][1].Add(one)
		}},
		{"the child's xmss-aggregate claim's A0 value", func(s *MergedChildNR, _ *MergedNR) { s.Blocks.VA[xk] = s.Blocks.VA[xk].Add(one) }},
		{"the child's xmss-aggregate claim's B0 value", func(s *MergedChildNR, _ *MergedNR) { s.Blocks.VB[xb] = s.Blocks.VB[xb].Add(one) }},
		{"the key batch's point", func(s *MergedChildNR, _ *MergedNR) { s.KeyPoint[1] = s.KeyPoint[1].Add(one) }},
		{"the key batch's value", func(s *MergedChildNR, _ *MergedNR) { s.KeyValue = s.KeyValue.Add(one) }},
		{"the block claims' row point", func(s *MergedChildNR, _ *MergedNR) { s.Blocks.RRow[7] = s.Blocks.RRow[7].Add(one) }},
		{"the block claims' column point", func(s *MergedChildNR, _ *MergedNR) { s.Blocks.RCol[0] = s.Blocks.RCol[0].Add(one) }},
		{"a block claim's A0 value", func(s *MergedChildNR, _ *MergedNR) { s.Blocks.VA[1] = s.Blocks.VA[1].Add(one) }},
		{"a block claim's B0 value", func(s *MergedChildNR, _ *MergedNR) {
			k := len(s.Blocks.VB) - 1
			s.Blocks.VB[k] = s.Blocks.VB[k].Add(one)
		}},
		{"a block claim dropped", func(s *MergedChildNR, _ *MergedNR) { s.Blocks.VA, s.Blocks.VB = s.Blocks.VA[1:], s.Blocks.VB[1:] }},
		{"the merged child's children's sizes", func(s *MergedChildNR, _ *MergedNR) { s.Children[0].N++; s.Children[1].N-- }},
		{"keys in another order", func(_ *MergedChildNR, c *MergedNR) { c.Keys[0], c.Keys[5] = c.Keys[5], c.Keys[0] }},
		{"keys across the children", func(_ *MergedChildNR, c *MergedNR) { c.Keys[0], c.Keys[13] = c.Keys[13], c.Keys[0] }},
		{"a leaf's claims on the merged child", func(_ *MergedChildNR, c *MergedNR) {
			c.Deferred = slices.Clone(c.Deferred)
			c.Deferred[0].VA = one
		}},
		{"the merged child made a leaf", func(_ *MergedChildNR, c *MergedNR) { c.Subs = nil }},
	} {
		c := clone()
		tc.edit(c.Subs[0], c)
		if err := c.Verify(); err == nil {
			t.Fatalf("%s changed: verified", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

// TestMergeNRDepth3 merges a depth-2 proof (a merge of a 2→1 merge and a leaf) with a
// leaf: every level's verification replayed in its parent, the grandchild's record
// carried up as its shape alone (its claims end in the depth-2 child's batch, its target
// on the child's tree table, lifted into the root's). The root verifies, its keys are
// its leaves' in order, and it is rejected when a trimmed record holds any value or the
// child's tree-table claim or target is changed.
func TestMergeNRDepth3(t *testing.T) {
	skipProofs(t, "proves a depth-3 no-reveal merge")
	w := par.New(nil, 2)
	mc := mergeChildren(siblingLeaves(t, 4, 4, 2, 93))
	m1, err := MergeNR(mc[:2], 2, w)
	if err != nil {
		t.Fatal(err)
	}
	g, err := MergeNRChildren([]NRChild{{Merged: m1}, {Leaf: &mc[2]}}, 2, w)
	if err != nil {
		t.Fatal(err)
	}
	h, err := MergeNRChildren([]NRChild{{Merged: g}, {Leaf: &mc[3]}}, 2, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Verify(); err != nil {
		t.Fatal(err)
	}
	if len(h.Keys) != 16 || !slices.Equal(h.Keys[:12], g.Keys) {
		t.Fatal("the root's keys are not its leaves' in order")
	}
	// A fresh verifier (every shape cache empty, as in a one-shot `leanpipe verify`)
	// lays the grandchild's shape out from placeholder keys: it verifies the file.
	clearShapeCaches()
	if err := VerifyMergedNR(h.ProofBytes(), h.Statement()); err != nil {
		t.Fatalf("with empty shape caches: %v", err)
	}
	// The grandchild's record, trimmed, is its shape alone: its target is a claim of the
	// child's batch on the child's tree table, which the root's batch lifts into its own
	// (docs/recursion.md §6.11).
	if gs := h.Subs[0].Subs[0]; len(gs.Values) != 0 || len(gs.Points) != 0 {
		t.Fatalf("a trimmed record of %d values at %d points, want none", len(gs.Values), len(gs.Points))
	}
	hl, subs, err := h.layout()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := targetKind(hl, subs)
	if err != nil || tk == nil {
		t.Fatalf("a depth-3 root without a tree table: %v", err)
	}
	// Rows: the root at 0, the merged child at digit 1, its merged child at 1 + (1 << 2).
	for _, a := range []int{0, 1, 5} {
		if tk.rowStart[a+1] == tk.rowStart[a] {
			t.Fatalf("the tree table's row %d is empty", a)
		}
	}
	childTargets := -1
	for j, k := range subs[0].kinds {
		if isTargets(k) {
			childTargets = j
		}
	}
	if childTargets < 0 {
		t.Fatal("the depth-2 child has no tree table")
	}
	// Role tables (docs/recursion.md §6.13): the root's hold its merged child's own
	// matrices at the child's own digit (k+1+0 = 3 of 3 bits) and the grandchild's,
	// from the child's table (its own digit 3), under the child's subtree digit:
	// 1 + 3<<3 = 25. The child's record carries one address point.
	childRole := -1
	for j, k := range subs[0].kinds {
		if isRole(k) {
			childRole = j
		}
	}
	if childRole < 0 || len(h.Subs[0].Blocks.RAddr) != roleBits(2) {
		t.Fatalf("the depth-2 child: role kind %d, an address point of %d coordinates", childRole, len(h.Subs[0].Blocks.RAddr))
	}
	rootKinds, err := batchKinds(hl, subs)
	if err != nil {
		t.Fatal(err)
	}
	// Every role is the child's (at 3); the grandchild's shape has fewer segments, so
	// some roles have no entry at 25.
	roles, lifted := 0, 0
	for _, k := range rootKinds {
		if rk, ok := k.block.(*roleKind); ok {
			roles++
			if rk.entries[0].addr != 3 || len(rk.entries) > 2 || (len(rk.entries) == 2 && rk.entries[1].addr != 25) {
				t.Fatalf("role %s at addresses %v, want 3 and 25", rk.role, rk.entries)
			}
			lifted += len(rk.entries) - 1
		}
	}
	if roles == 0 || lifted == 0 {
		t.Fatalf("the depth-3 root has %d role kinds, %d with the grandchild's matrix", roles, lifted)
	}
	t.Logf("depth 3: proved in %v (batch %v), proof %d B + batch %d B, statement %d B (depth 2: %d B + %d B + %d B)",
		h.Took, h.Profile.Batch, len(h.Proof.MarshalWire()), len(h.Batch.MarshalWire()), len(h.statementBytes()),
		len(g.Proof.MarshalWire()), len(g.Batch.MarshalWire()), len(g.statementBytes()))
	for _, tc := range []struct {
		name string
		edit func(s, g *MergedChildNR)
	}{
		{"a value in the grandchild's trimmed record", func(_, g *MergedChildNR) { g.Values = []field.E{field.One} }},
		{"a point in the grandchild's trimmed record", func(_, g *MergedChildNR) { g.Points = [][]field.E{{field.One}} }},
		{"the grandchild's key value", func(_, g *MergedChildNR) { g.KeyValue = g.KeyValue.Add(field.One) }},
		{"block claims on the trimmed grandchild", func(_, g *MergedChildNR) { g.Blocks.VA = []field.E{field.One} }},
		{"the child's tree-table value", func(s, _ *MergedChildNR) {
			s.Blocks.VA[childTargets] = s.Blocks.VA[childTargets].Add(field.One)
		}},
		{"a B0 value for the child's tree table (its B0 is zero: none is carried)", func(s, _ *MergedChildNR) {
			s.Blocks.VB = append(s.Blocks.VB, field.One)
		}},
		{"the child's target", func(s, _ *MergedChildNR) {
			kept, _, _ := subs[0].targetSlot()
			s.Values[kept] = s.Values[kept].Add(field.One)
		}},
		{"the child's role-table value", func(s, _ *MergedChildNR) {
			s.Blocks.VA[childRole] = s.Blocks.VA[childRole].Add(field.One)
		}},
		{"the child's role address point", func(s, _ *MergedChildNR) { s.Blocks.RAddr[1] = s.Blocks.RAddr[1].Add(field.One) }},
		{"the child's role address point cut short", func(s, _ *MergedChildNR) { s.Blocks.RAddr = s.Blocks.RAddr[1:] }},
		{"a role address point on the trimmed grandchild", func(_, g *MergedChildNR) { g.Blocks.RAddr = []field.E{field.One} }},
	} {
		c := *h
		c.Subs = slices.Clone(h.Subs)
		s := *h.Subs[0]
		s.Values = slices.Clone(s.Values)
		s.Blocks.VA, s.Blocks.VB, s.Blocks.RAddr = slices.Clone(s.Blocks.VA), slices.Clone(s.Blocks.VB), slices.Clone(s.Blocks.RAddr)
		s.Subs = slices.Clone(s.Subs)
		gs := *s.Subs[0]
		tc.edit(&s, &gs)
		s.Subs[0] = &gs
		c.Subs[0] = &s
		if err := c.Verify(); err == nil {
			t.Fatalf("%s changed: verified", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

// TestMergeNRTree8 merges eight leaves in a binary tree of depth 3 (four 2→1 merges of
// leaves, two of those, one root): the root verifies and its keys are the leaves' in
// order, every node is at most 256 KiB, and with 2-signer leaves the depth-3 root is
// within 4 KiB of a depth-1 merge (docs/recursion.md §6.13); each level's distance is
// logged.
func TestMergeNRTree8(t *testing.T) {
	skipProofs(t, "proves a depth-3 tree of no-reveal merges")
	w := par.New(nil, 2)
	// LEANPIPE_TREE_LEAVES sets the leaf count, a power of two (measurements of deeper
	// trees; default 8, depth 3).
	n := 8
	if v := os.Getenv("LEANPIPE_TREE_LEAVES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 2 || n&(n-1) != 0 {
			t.Fatalf("LEANPIPE_TREE_LEAVES=%q: want a power of two ≥ 2", v)
		}
	}
	// LEANPIPE_TREE_SIGS sets the signers a leaf (default 2).
	sigs := 2
	if v := os.Getenv("LEANPIPE_TREE_SIGS"); v != "" {
		var err error
		if sigs, err = strconv.Atoi(v); err != nil || sigs < 1 {
			t.Fatalf("LEANPIPE_TREE_SIGS=%q: want a signer count", v)
		}
	}
	cuts := make([]leafCut, n)
	for i := range cuts {
		cuts[i] = leafCut{sigs, 2}
	}
	leaves, in := cutLeaves(t, 95, cuts)
	mc := mergeChildren(leaves)
	level := make([]NRChild, len(mc))
	for i := range mc {
		level[i] = NRChild{Leaf: &mc[i]}
	}
	// The merges are made at the rates a merge is made at unless asked otherwise
	// (DefaultRateOf: 2 for a merge of leaves, 3 above); LEANPIPE_TREE8_RATE sets one
	// log inverse rate for every level instead (measurements).
	fixedRate := 0
	if v := os.Getenv("LEANPIPE_TREE8_RATE"); v != "" {
		var err error
		if fixedRate, err = strconv.Atoi(v); err != nil {
			t.Fatalf("LEANPIPE_TREE8_RATE=%q: %v", v, err)
		}
	}
	var sizes []string
	fileSizes := map[int]int{}
	for depth := 1; len(level) > 1; depth++ {
		rate := DefaultRateOf(2, depth > 1)
		if fixedRate != 0 {
			rate = fixedRate
		}
		next := make([]NRChild, len(level)/2)
		for i := range next {
			m, err := MergeNRChildren(level[2*i:2*i+2], rate, w)
			if err != nil {
				t.Fatalf("depth %d, node %d: %v", depth, i, err)
			}
			next[i] = NRChild{Merged: m}
		}
		m := next[0].Merged
		// Every merged proof is at most 256 KiB (issue 22), whatever its depth.
		if n := len(m.ProofBytes()); n > 256<<10 {
			t.Errorf("depth %d: a merged proof of %d B, over 256 KiB", depth, n)
		}
		fileSizes[depth] = len(m.ProofBytes())
		sizes = append(sizes, fmt.Sprintf("depth %d (rate %d): file %d B (proof %d B + batch %d B + statement %d B), proved in %v", depth, rate,
			len(m.ProofBytes()), len(m.Proof.MarshalWire()), len(m.Batch.MarshalWire()), len(m.statementBytes()), m.Took))
		// Each segment's instances and block size, and the stack (what the proof's size
		// follows).
		if l, _, err := m.layout(); err == nil {
			shapes := l.shapes()
			_, _, stackLog, _, err := flows.SegmentsLayout(shapes, rate, m.statementBytes())
			if err != nil {
				t.Fatal(err)
			}
			var segs []string
			for _, sh := range shapes {
				segs = append(segs, fmt.Sprintf("%d×2^%d", sh.N, sh.Circuit.LogSize()))
			}
			var phases []string
			for _, ph := range m.Proof.Phases {
				words := 0
				for _, r := range ph.Rows {
					words += len(r)
				}
				phases = append(phases, fmt.Sprintf("%d rows of %d B + %d siblings", len(ph.Rows), 8*words, len(ph.Siblings)))
			}
			sizes = append(sizes, fmt.Sprintf("  segments %s, stack 2^%d; stream %d values; openings %s", strings.Join(segs, " "), stackLog,
				len(m.Proof.Stream), strings.Join(phases, ", ")))
		}
		level = next
	}
	// How far each level is from a depth-1 merge. Issue 22 asks 4 KiB of depth 3: met
	// for the default 2-signer leaves (docs/recursion.md §6.13), not for 200-signer
	// ones, whose deeper records carry longer key points (logged only).
	for d := 2; d <= len(fileSizes); d++ {
		sizes = append(sizes, fmt.Sprintf("depth %d: %+d B from depth 1", d, fileSizes[d]-fileSizes[1]))
	}
	if sigs == 2 && len(fileSizes) >= 3 {
		if over := fileSizes[3] - fileSizes[1]; over > 4<<10 {
			t.Errorf("the depth-3 root is %d B over the depth-1 merge (%d B), more than 4 KiB", over, fileSizes[1])
		}
	}
	root := level[0].Merged
	began := time.Now()
	if err := root.Verify(); err != nil {
		t.Fatal(err)
	}
	// From its file too: the records nested below the children are read as shapes.
	if err := VerifyMergedNR(root.ProofBytes(), root.Statement()); err != nil {
		t.Fatalf("the root's file: %v", err)
	}
	sizes = append(sizes, fmt.Sprintf("the root verified in %v", time.Since(began)))
	wantSignersKeys(t, root.Keys, in)
	for _, s := range sizes {
		t.Log(s)
	}
}

// TestMergeNRDepthCost measures a depth-2 node on leaves of S signers
// (LEANPIPE_MERGE_NR_DEPTH=S): a 2→1 no-reveal merge of two rate-2 leaves, merged with
// a third leaf, at 2 and 1 workers (second passes are the warm ones), the verify time
// and the sizes logged.
func TestMergeNRDepthCost(t *testing.T) {
	spec := os.Getenv("LEANPIPE_MERGE_NR_DEPTH")
	if spec == "" {
		t.Skip("set LEANPIPE_MERGE_NR_DEPTH=S[,R]")
	}
	s, rate := 0, 2
	if n, _ := fmt.Sscanf(spec, "%d,%d", &s, &rate); n < 1 || s < 1 || rate < 1 || rate > 4 {
		t.Fatalf("LEANPIPE_MERGE_NR_DEPTH=%q: want S or S,R (R the depth-2 node's rate)", spec)
	}
	mc := mergeChildren(siblingLeaves(t, 3, s, 2, 97))
	for _, w := range []int{2, 1, 2, 1} {
		m1, err := MergeNR(mc[:2], 2, par.New(nil, w))
		if err != nil {
			t.Fatal(err)
		}
		g, err := MergeNRChildren([]NRChild{{Merged: m1}, {Leaf: &mc[2]}}, rate, par.New(nil, w))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := g.Verify(); err != nil {
			t.Fatal(err)
		}
		v := time.Since(start)
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		t.Logf("%d workers: 2→1 of %d-signer leaves: prove %v, %d B + %d B + %d B; depth 2 with a leaf at rate %d: prove %v (batch %v), verify %v, file %d B (proof %d B + batch %d B + statement %d B); peak RSS %d MB",
			w, s, m1.Took, len(m1.Proof.MarshalWire()), len(m1.Batch.MarshalWire()), len(m1.statementBytes()),
			rate, g.Took, g.Profile.Batch, v, len(g.ProofBytes()), len(g.Proof.MarshalWire()), len(g.Batch.MarshalWire()), len(g.statementBytes()), ru.Maxrss>>10)
	}
}

// wantSignersKeys fails unless keys are the signers' public keys, in order.
func wantSignersKeys(t *testing.T, keys []xmss.PublicKey, in *aggregate.Input) {
	t.Helper()
	if len(keys) != len(in.Signers) {
		t.Fatalf("%d merged keys for %d signers", len(keys), len(in.Signers))
	}
	for i, s := range in.Signers {
		if keys[i] != s.PublicKey {
			t.Fatalf("merged key %d is not the leaves' in order", i)
		}
	}
}

// clearShapeCaches empties the caches a verifier fills by shape, so that the next
// verification lays everything out as a fresh process does.
func clearShapeCaches() {
	subShapes.Clear()
	deferredShapes.Clear()
	splitPlans.Clear()
}

// checkScratchReuse verifies two merged proofs of different layouts (a depth-1 and a
// depth-2 node) and a forgery of each, over and over on two goroutines at once: the
// verifiers cut their relations from arrays kept from earlier verifications
// (relScratches), grown for the larger layout and shared by none, so every verdict
// is the same as alone.
func checkScratchReuse(t *testing.T, small, large *MergedNR) {
	t.Helper()
	forge := func(m *MergedNR) *MergedNR {
		c := *m
		p := *c.Proof
		p.Stream = slices.Clone(p.Stream)
		p.Stream[len(p.Stream)/3] = p.Stream[len(p.Stream)/3].Add(field.One)
		c.Proof = &p
		return &c
	}
	cases := []struct {
		m  *MergedNR
		ok bool
	}{{small, true}, {large, true}, {forge(small), false}, {forge(large), false}}
	errs := make(chan error, 2)
	for g := range 2 {
		go func() {
			for round := range 3 {
				for k := range cases {
					c := cases[(k+g)%len(cases)]
					if err := c.m.Verify(); (err == nil) != c.ok {
						errs <- fmt.Errorf("goroutine %d, round %d, case %d: verified %v, want %v (%v)", g, round, (k+g)%len(cases), err == nil, c.ok, err)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

package recursion

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// Forging tests for tapes and their blocks (issue 22): a malicious prover writes a
// unit's output other than the block computes, keeping every relation of the tape
// true, and the block circuit must refuse it; and a no-reveal merge's statement is
// changed while its proof is kept.

const forgeTapeLabel = "leanpipe-recursion-tape-forge"

// putLaneE sets lane j of columns [base, base+192) to e (clearing what was there).
func putLaneE(w []uint64, j uint, base int, e field.E) {
	for k, c := range [3]field.K{e.C0, e.C1, e.C2} {
		for i := range 64 {
			col := base + 64*k + i
			w[col] = w[col]&^(1<<j) | (uint64(c)>>i&1)<<j
		}
	}
}

// tamperedFill is fillSlots (serial) with tamper applied to each slot's lane after
// the circuit is solved, A0·w and B0·w then recomputed from the changed witness: the
// witness a malicious prover commits, consistent with the matrices, wrong only where
// tamper wrote.
func tamperedFill(c *circuit.Circuit, n int, set func(v []uint64, lane uint, slot int), tamper func(v []uint64, lane uint, slot int)) func(par.Workers, int, []field.K, []field.K, []field.K) error {
	return func(_ par.Workers, nLog int, wit, a, b []field.K) error {
		size := c.Size()
		slots := 1 << nLog
		v, va, vb := make([]uint64, size), make([]uint64, size), make([]uint64, size)
		for g := range (slots + 63) / 64 {
			clear(v)
			v[c.ConstCol()] = ^uint64(0)
			lanes := min(64, slots-64*g)
			for j := range lanes {
				set(v, uint(j), slotOf(64*g+j, n))
			}
			c.Solve(v, va, vb)
			if tamper != nil {
				for j := range lanes {
					tamper(v, uint(j), slotOf(64*g+j, n))
				}
				circuit.RowValuesWords(c, va, vb, v)
			}
			off := g * size
			for k, src := range [][]uint64{v, va, vb} {
				c.PackLanes([][]field.K{wit, a, b}[k][off:off+lanes*size/64], src, lanes)
			}
		}
		return nil
	}
}

// slotOf is the live slot a slot repeats (padding repeats slot 0).
func slotOf(s, n int) int {
	if s >= n {
		return 0
	}
	return s
}

// arithTampered is ab.Segment(operands) with product i's output replaced by z[i]
// for each i in z.
func arithTampered(ab *ArithBlock, operands [][2]field.E, z map[int]field.E) flows.Segment {
	c := ab.compile()
	n := ab.Slots(len(operands))
	set := func(v []uint64, lane uint, s int) {
		for u := range ab.Products {
			if i := s*ab.Products + u; i < len(operands) {
				setLaneE(v, lane, 64+2*3*KBits*u, operands[i][0])
				setLaneE(v, lane, 64+2*3*KBits*u+3*KBits, operands[i][1])
			}
		}
	}
	tamper := func(v []uint64, lane uint, s int) {
		for i, e := range z {
			if si, u := ab.At(i); si == s {
				putLaneE(v, lane, ab.Out+3*KBits*u, e)
			}
		}
	}
	return flows.Segment{Circuit: c, N: n, Fill: tamperedFill(c, n, set, tamper)}
}

// squareTampered is sb.Segment(xs) with square i's output replaced by z[i].
func squareTampered(sb *SquareBlock, xs []field.E, z map[int]field.E) flows.Segment {
	c := sb.compile()
	n := sb.Slots(len(xs))
	set := func(v []uint64, lane uint, s int) {
		for u := range sb.Units {
			if i := s*sb.Units + u; i < len(xs) {
				setLaneE(v, lane, 64+3*KBits*u, xs[i])
			}
		}
	}
	tamper := func(v []uint64, lane uint, s int) {
		for i, e := range z {
			if si, u := sb.At(i); si == s {
				putLaneE(v, lane, sb.Out+3*KBits*u, e)
			}
		}
	}
	return flows.Segment{Circuit: c, N: n, Fill: tamperedFill(c, n, set, tamper)}
}

// relationsHold fills segs (at their slot logs) and reports the first relation of
// rels that is false on the filled columns, or -1: the check a malicious witness
// passes when only the block circuit stands in its way.
func relationsHold(t *testing.T, segs []flows.Segment, rels []flows.Relation) int {
	t.Helper()
	cols := make([][]field.K, len(segs))
	for i, s := range segs {
		nLog := max(3, bits.Len(uint(s.N-1)))
		words := 1 << (nLog + s.Circuit.LogSize() - 6)
		cols[i] = make([]field.K, words)
		a, b := make([]field.K, words), make([]field.K, words)
		if err := s.Fill(par.Serial(), nLog, cols[i], a, b); err != nil {
			t.Fatal(err)
		}
	}
	for r, rel := range rels {
		var v field.E
		for _, tm := range rel.Terms {
			v = v.Add(tm.Coeff.MulK(cols[tm.Segment][tm.Word]))
		}
		if v != rel.Value {
			return r
		}
	}
	return -1
}

// dataInput reads a tape input at the x operand word of data product i (segment 0).
func dataInput(t *testing.T, ab *ArithBlock, data []field.E) func(seg, word int) field.E {
	return func(seg, word int) field.E {
		for i := range data {
			if s, u := ab.At(i); seg == 0 && ab.SegmentWord(s, ab.XWord(u)) == word {
				return data[i]
			}
		}
		t.Fatalf("no data at segment %d word %d", seg, word)
		return field.E{}
	}
}

// TestForgeTapeWrongProduct: the sumcheck tape (TestTapeVerifiesSumcheck) run on a
// wrong round coefficient fails only its last assertion, claim = g(r)·h(r). A
// malicious prover writes the last product's output as the claim instead of
// g(r)·h(r): then every relation of the tape holds on the committed columns (checked
// here directly), and only the arithmetic block's rows (z = x·y materialised) stand
// against it. Rejected. The same fill without the tamper, on honest data, verifies;
// so does the honest fill with nothing changed.
func TestForgeTapeWrongProduct(t *testing.T) {
	rng := testrand.New(t)
	ab := NewArithBlock(arithTestLog)
	const n = 3
	sum, data := sumcheckRun(rng, n)
	tape := sumcheckTape(ab, sum, n)
	rels, err := tape.Relations(TapeLayout{F: ab, FSeg: 1})
	if err != nil {
		t.Fatal(err)
	}
	shapes := []flows.SegmentShape{ab.Shape(len(data)), ab.Shape(tape.Products())}
	ev := func() *flows.Evaluations { return &flows.Evaluations{Relations: rels} }
	run := func(committed []field.E, z map[int]field.E) ([]flows.Segment, error) {
		t.Helper()
		ops, _, _ := tape.Operands(dataInput(t, ab, committed))
		segs := []flows.Segment{ab.Segment(dataOps(committed)), arithTampered(ab, ops, z)}
		proof, err := flows.ProveSegments(forgeTapeLabel, nil, segs, ev(), 1, par.Serial())
		if err != nil {
			t.Fatal(err)
		}
		_, err = flows.VerifySegments(proof, forgeTapeLabel, nil, shapes, ev(), 1)
		return segs, err
	}
	if _, err := run(data, nil); err != nil {
		t.Fatalf("honest data through the tampering fill, nothing tampered: %v", err)
	}
	// The tamper path (A0·w, B0·w recomputed) writing the true product: verifies.
	_, _, honestUnits := tape.Operands(dataInput(t, ab, data))
	if _, err := run(data, map[int]field.E{tape.Products() - 1: honestUnits[len(honestUnits)-1]}); err != nil {
		t.Fatalf("the true product written through the tamper path: %v", err)
	}
	wrong := slices.Clone(data)
	wrong[3] = wrong[3].Add(field.One) // round 1's c0
	segs, err := run(wrong, nil)
	if err == nil {
		t.Fatal("a wrong round coefficient verified")
	}
	if r := relationsHold(t, segs, rels); r != len(rels)-1 {
		t.Fatalf("the wrong coefficient breaks relation %d, want the last claim (%d)", r, len(rels)-1)
	}
	// The last product's output made the claim: the assertion claim + z = 0 holds.
	in := dataInput(t, ab, wrong)
	_, _, units := tape.Operands(in)
	last := len(tape.Units) - 1
	f := tape.Asserts[0].Form.Eval(in, units)
	forgedZ := units[last].Add(f)
	if forgedZ == units[last] {
		t.Fatal("nothing to forge")
	}
	segs, err = run(wrong, map[int]field.E{tape.Products() - 1: forgedZ})
	if r := relationsHold(t, segs, rels); r != -1 {
		t.Fatalf("the forged witness breaks relation %d: the forgery is not what it claims", r)
	}
	if err == nil {
		t.Fatal("a product other than x·y (every relation true) verified")
	}
	// An inner product (unit 1, r·r of round 0) off by one, later operands honest:
	// its operand relations break and the block refuses it.
	if _, err := run(data, map[int]field.E{1: units[1].Add(field.One)}); err == nil {
		t.Fatal("a wrong inner product verified")
	}
}

// TestForgeTapeWrongSquare: a tape asserting y = x² (one squaring unit) with y ≠ x²
// committed. A malicious squaring segment whose output is y: the tape's relations
// all hold, only the block's materialised square refuses it. Rejected; x² verifies.
// Likewise x^4 = y over two squares, the first square's output forged and the second
// computed from it.
func TestForgeTapeWrongSquare(t *testing.T) {
	rng := testrand.New(t)
	ab := NewArithBlock(arithTestLog)
	sb := NewSquareBlock(arithTestLog)
	for _, k := range []int{1, 2} {
		tape := &Tape{}
		at := func(i int) Lin { s, u := ab.At(i); return tape.Input(0, ab.SegmentWord(s, ab.XWord(u))) }
		tape.Equal("y = x^(2^k)", tape.Frob(at(0), k), at(1))
		if tape.Squares() != k || tape.Products() != 0 {
			t.Fatalf("k = %d: %d squares, %d products", k, tape.Squares(), tape.Products())
		}
		rels, err := tape.Relations(TapeLayout{F: ab, FSeg: 0, S: sb, SSeg: 1})
		if err != nil {
			t.Fatal(err)
		}
		shapes := []flows.SegmentShape{ab.Shape(2), sb.Shape(k)}
		ev := func() *flows.Evaluations { return &flows.Evaluations{Relations: rels} }
		run := func(data, sq []field.E, z map[int]field.E) ([]flows.Segment, error) {
			t.Helper()
			if sq == nil {
				_, sq, _ = tape.Operands(dataInput(t, ab, data))
			}
			segs := []flows.Segment{ab.Segment(dataOps(data)), squareTampered(sb, sq, z)}
			proof, err := flows.ProveSegments(forgeTapeLabel, nil, segs, ev(), 1, par.Serial())
			if err != nil {
				t.Fatal(err)
			}
			_, err = flows.VerifySegments(proof, forgeTapeLabel, nil, shapes, ev(), 1)
			return segs, err
		}
		x := randEOf(rng)
		if _, err := run([]field.E{x, x.Frobenius(k)}, nil, nil); err != nil {
			t.Fatalf("k = %d: y = x^(2^k): %v", k, err)
		}
		if _, err := run([]field.E{x, x.Frobenius(k)}, nil, map[int]field.E{0: x.Square()}); err != nil {
			t.Fatalf("k = %d: the true square written through the tamper path: %v", k, err)
		}
		y := randEOf(rng)
		if _, err := run([]field.E{x, y}, nil, nil); err == nil {
			t.Fatalf("k = %d: y ≠ x^(2^k) verified", k)
		}
		// The first square's output forged as y^(2^-(k-1)), so that the chain (the
		// second square's input is the forged output) ends at y.
		root := y.Frobenius(1 - k)
		sq := []field.E{x}
		if k == 2 {
			sq = append(sq, root)
		}
		segs, err := run([]field.E{x, y}, sq, map[int]field.E{0: root})
		if r := relationsHold(t, segs, rels); r != -1 {
			t.Fatalf("k = %d: the forged square breaks relation %d: the forgery is not what it claims", k, r)
		}
		if err == nil {
			t.Fatalf("k = %d: a forged square (every relation true) verified", k)
		}
	}
}

// TestForgeTapeUnusedUnits: units past a tape's last product (in its last block)
// hold whatever the prover writes, valid products of arbitrary operands: the honest
// tape still verifies with them (they are not part of the statement), and a wrong
// round coefficient is still rejected whatever they hold. Tape.Relations names only
// the words of used units, and only live slots (TestForgeTapeRelationsLiveWords).
func TestForgeTapeUnusedUnits(t *testing.T) {
	rng := testrand.New(t)
	ab := NewArithBlock(arithTestLog)
	const n = 3
	sum, data := sumcheckRun(rng, n)
	tape := sumcheckTape(ab, sum, n)
	if tape.Products()%ab.Products == 0 {
		t.Fatal("no unused unit in the last block")
	}
	rels, err := tape.Relations(TapeLayout{F: ab, FSeg: 1})
	if err != nil {
		t.Fatal(err)
	}
	shapes := []flows.SegmentShape{ab.Shape(len(data)), ab.Shape(tape.Products())}
	ev := func() *flows.Evaluations { return &flows.Evaluations{Relations: rels} }
	for _, committed := range [][]field.E{data, append([]field.E{data[0].Add(field.One)}, data[1:]...)} {
		ops, _, _ := tape.Operands(dataInput(t, ab, committed))
		for len(ops)%ab.Products != 0 {
			ops = append(ops, [2]field.E{randEOf(rng), randEOf(rng)})
		}
		segs := []flows.Segment{ab.Segment(dataOps(committed)), ab.Segment(ops)}
		proof, err := flows.ProveSegments(forgeTapeLabel, nil, segs, ev(), 1, par.Serial())
		if err != nil {
			t.Fatal(err)
		}
		_, err = flows.VerifySegments(proof, forgeTapeLabel, nil, shapes, ev(), 1)
		if honest := committed[0] == data[0]; honest && err != nil {
			t.Fatalf("garbage in unused units: %v", err)
		} else if !honest && err == nil {
			t.Fatal("a wrong round coefficient with garbage in unused units verified")
		}
	}
}

// TestForgeTapeRelationsLiveWords: every word a tape's relations name on its
// products' segment is an operand or output word of a used unit (so of a live slot),
// and on its squares' segment likewise: no relation reads a padding slot or an
// unused unit, whose contents the statement does not fix.
func TestForgeTapeRelationsLiveWords(t *testing.T) {
	rng := testrand.New(t)
	ab := NewArithBlock(arithTestLog)
	sb := NewSquareBlock(arithTestLog)
	const n = 4
	sum, _ := sumcheckRun(rng, n)
	tape := sumcheckTape(ab, sum, n)
	x := tape.Input(0, ab.SegmentWord(0, ab.XWord(0)))
	tape.Equal("a Frobenius chain", tape.Frob(tape.Mul(x, x), 3), tape.Input(0, ab.SegmentWord(0, ab.XWord(1))))
	rels, err := tape.Relations(TapeLayout{F: ab, FSeg: 1, S: sb, SSeg: 2})
	if err != nil {
		t.Fatal(err)
	}
	allowed := [3]map[int]bool{nil, {}, {}}
	for i := range tape.Products() {
		s, u := ab.At(i)
		for _, w := range []int{ab.XWord(u), ab.YWord(u), ab.ZWord(u)} {
			for k := range 3 {
				allowed[1][ab.SegmentWord(s, w)+k] = true
			}
		}
	}
	for i := range tape.Squares() {
		s, u := sb.At(i)
		for _, w := range []int{sb.InWord(u), sb.OutWord(u)} {
			for k := range 3 {
				allowed[2][sb.SegmentWord(s, w)+k] = true
			}
		}
	}
	seen := [3]int{}
	for r, rel := range rels {
		for _, tm := range rel.Terms {
			seen[tm.Segment]++
			if tm.Segment > 0 && !allowed[tm.Segment][tm.Word] {
				t.Fatalf("relation %d names word %d of segment %d: not a used unit's", r, tm.Word, tm.Segment)
			}
		}
	}
	if seen[1] == 0 || seen[2] == 0 {
		t.Fatalf("terms per segment %v: the check saw nothing", seen)
	}
}

// TestForgeMergeNRStatement: a no-reveal 2→1 merge of 4-signer leaves, its proof
// kept and its statement changed: the children's deferred claims swapped, the
// children reordered (their key blocks and claims together), sizes moved between
// children, a child's rate or the merge's rate changed, the message or epoch changed,
// a key replaced, one child's claims given to both, and carried values TestMergeNR
// does not change (Z, S, χ′_in, τ, χ_out, VB). Every one is rejected (never a panic);
// so are pieces (batch, proof, carried claims, keys) of another merge of the same shape.
func TestForgeMergeNRStatement(t *testing.T) {
	skipProofs(t, "proves a no-reveal 2→1 merge")
	leaves := siblingLeaves(t, 2, 4, 2, 67)
	m, err := MergeNR(mergeChildren(leaves), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	cloneD := func(d DeferredReveal) DeferredReveal {
		d.ChiIn, d.S, d.ChiInPrime = slices.Clone(d.ChiIn), slices.Clone(d.S), slices.Clone(d.ChiInPrime)
		d.Tau, d.ChiOut = slices.Clone(d.Tau), slices.Clone(d.ChiOut)
		return d
	}
	clone := func() *MergedNR {
		c := *m
		c.Deferred = make([]DeferredReveal, len(m.Deferred))
		for i, d := range m.Deferred {
			c.Deferred[i] = cloneD(d)
		}
		c.Keys = slices.Clone(m.Keys)
		c.Children = slices.Clone(m.Children)
		return &c
	}
	bump := func(e *field.E) { *e = e.Add(field.One) }
	for _, tc := range []struct {
		name string
		edit func(c *MergedNR)
	}{
		{"deferred claims swapped", func(c *MergedNR) { c.Deferred[0], c.Deferred[1] = c.Deferred[1], c.Deferred[0] }},
		{"children reordered (keys and claims)", func(c *MergedNR) {
			c.Keys = append(slices.Clone(m.Keys[4:]), m.Keys[:4]...)
			c.Deferred[0], c.Deferred[1] = c.Deferred[1], c.Deferred[0]
		}},
		{"children's keys swapped, claims kept", func(c *MergedNR) {
			c.Keys = append(slices.Clone(m.Keys[4:]), m.Keys[:4]...)
		}},
		{"sizes 3 and 5", func(c *MergedNR) { c.Children[0].N, c.Children[1].N = 3, 5 }},
		{"sizes 5 and 3", func(c *MergedNR) { c.Children[0].N, c.Children[1].N = 5, 3 }},
		{"child 1 at rate 1", func(c *MergedNR) { c.Children[1].LogInvRate = 1 }},
		{"child 0 at rate 3", func(c *MergedNR) { c.Children[0].LogInvRate = 3 }},
		{"the merge at rate 1", func(c *MergedNR) { c.LogInvRate = 1 }},
		{"the merge at rate 3", func(c *MergedNR) { c.LogInvRate = 3 }},
		{"another epoch", func(c *MergedNR) { c.Epoch++ }},
		{"another message", func(c *MergedNR) { c.Message[0] ^= 1 }},
		{"a key replaced by another child's", func(c *MergedNR) { c.Keys[2] = c.Keys[6] }},
		{"child 0's claims for both", func(c *MergedNR) { c.Deferred[1] = cloneD(c.Deferred[0]) }},
		{"a third child of no keys", func(c *MergedNR) {
			c.Children = append(c.Children, ChildInfo{N: 0, LogInvRate: 2})
			c.Deferred = append(c.Deferred, cloneD(c.Deferred[1]))
		}},
		{"child 0's Z", func(c *MergedNR) { bump(&c.Deferred[0].Z) }},
		{"child 1's S", func(c *MergedNR) { bump(&c.Deferred[1].S[len(c.Deferred[1].S)-1]) }},
		{"child 0's chi_in'", func(c *MergedNR) { bump(&c.Deferred[0].ChiInPrime[0]) }},
		{"child 1's tau", func(c *MergedNR) { bump(&c.Deferred[1].Tau[0]) }},
		{"child 0's chi_out", func(c *MergedNR) { bump(&c.Deferred[0].ChiOut[len(c.Deferred[0].ChiOut)-1]) }},
		{"child 0's VB", func(c *MergedNR) { bump(&c.Deferred[0].VB) }},
		{"child 1's chi_in shortened", func(c *MergedNR) { c.Deferred[1].ChiIn = c.Deferred[1].ChiIn[1:] }},
	} {
		c := clone()
		tc.edit(c)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: Verify panicked: %v", tc.name, r)
				}
			}()
			if err := c.Verify(); err == nil {
				t.Fatalf("%s: verified with the proof kept", tc.name)
			}
		}()
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("the original after the edits: %v", err)
	}

	// Pieces of another merge (other leaves, the same shape): its batch, its proof,
	// its carried claims, each with the rest of m's.
	o, err := MergeNR(mergeChildren(siblingLeaves(t, 2, 4, 2, 68)), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(c *MergedNR)
	}{
		{"another merge's batch", func(c *MergedNR) { c.Batch = o.Batch }},
		{"another merge's proof", func(c *MergedNR) { c.Proof = o.Proof }},
		{"another merge's proof and batch", func(c *MergedNR) { c.Proof, c.Batch = o.Proof, o.Batch }},
		{"another merge's carried claims", func(c *MergedNR) { c.Deferred = o.Deferred }},
		{"another merge's keys, message and epoch", func(c *MergedNR) { c.Keys, c.Message, c.Epoch = o.Keys, o.Message, o.Epoch }},
		{"child 1's claims from the other merge", func(c *MergedNR) { c.Deferred[1] = cloneD(o.Deferred[1]) }},
	} {
		c := clone()
		tc.edit(c)
		if err := c.Verify(); err == nil {
			t.Fatalf("%s: verified", tc.name)
		}
	}
}

package recursion

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/testtranscript"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// Adversarial tests of merged proofs: a verifier handed another statement or another
// revealed interface, provers that lie about a child (through mergeWith's hooks,
// which skip nothing of the verifier), and mutated proof bytes. Each must be refused.

type mergeFixture struct {
	leaves []flows.Proved
	m      *Merged
}

var honest struct {
	sync.Mutex
	f *mergeFixture
}

// fixture returns one honest 2→1 merge of two 4-signer leaves, made once.
func fixture(t *testing.T) *mergeFixture {
	t.Helper()
	skipProofs(t, "proves a 2→1 merge")
	honest.Lock()
	defer honest.Unlock()
	if honest.f == nil {
		leaves := siblingLeaves(t, 2, 4, 2, 707)
		m, err := Merge(mergeChildren(leaves), 2, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		honest.f = &mergeFixture{leaves, m}
	}
	if err := honest.f.m.Verify(); err != nil {
		t.Fatal(err)
	}
	return honest.f
}

// copyMerged copies m's statement and interfaces deeply (the proof is shared).
func copyMerged(m *Merged) *Merged {
	c := *m
	c.Keys = append([]xmss.PublicKey(nil), m.Keys...)
	c.Children = append([]ChildInfo(nil), m.Children...)
	c.Interfaces = make([]ChildInterface, len(m.Interfaces))
	for i, ci := range m.Interfaces {
		d := ci
		d.Challenges = append([]field.E(nil), ci.Challenges...)
		d.Roots = append(d.Roots[:0:0], ci.Roots...)
		d.S = append([]field.E(nil), ci.S...)
		d.Enforced = append([]field.E(nil), ci.Enforced...)
		d.Induced = append([]field.E(nil), ci.Induced...)
		d.Nonces = append([]field.E(nil), ci.Nonces...)
		d.Boundaries = append([][4]uint64(nil), ci.Boundaries...)
		d.Grinds = append([][4]uint64(nil), ci.Grinds...)
		c.Interfaces[i] = d
	}
	return &c
}

func otherKey(t *testing.T) xmss.PublicKey {
	in, err := aggregate.Generate(1, 99991, "")
	if err != nil {
		t.Fatal(err)
	}
	return in.Signers[0].PublicKey
}

// TestMergeRejectsOtherStatements: the honest proof against another statement.
func TestMergeRejectsOtherStatements(t *testing.T) {
	f := fixture(t)
	extra := otherKey(t)
	cases := map[string]func(m *Merged){
		"a key replaced":               func(m *Merged) { m.Keys[5] = extra },
		"two keys of a child swapped":  func(m *Merged) { m.Keys[1], m.Keys[2] = m.Keys[2], m.Keys[1] },
		"keys swapped across children": func(m *Merged) { m.Keys[0], m.Keys[4] = m.Keys[4], m.Keys[0] },
		"a key dropped": func(m *Merged) {
			m.Keys = m.Keys[:len(m.Keys)-1]
			m.Children[1].N--
		},
		"a key added": func(m *Merged) {
			m.Keys = append(m.Keys, extra)
			m.Children[1].N++
		},
		"children resized":   func(m *Merged) { m.Children[0].N, m.Children[1].N = 3, 5 },
		"another message":    func(m *Merged) { m.Message[7] ^= 1 },
		"another epoch":      func(m *Merged) { m.Epoch++ },
		"another child rate": func(m *Merged) { m.Children[0].LogInvRate = 1 },
		"another merge rate": func(m *Merged) { m.LogInvRate = 3 },
		"children swapped": func(m *Merged) {
			m.Keys = append(append([]xmss.PublicKey(nil), m.Keys[4:]...), m.Keys[:4]...)
			m.Interfaces[0], m.Interfaces[1] = m.Interfaces[1], m.Interfaces[0]
		},
		"one child only": func(m *Merged) {
			m.Keys, m.Children, m.Interfaces = m.Keys[:4], m.Children[:1], m.Interfaces[:1]
		},
	}
	for name, edit := range cases {
		m := copyMerged(f.m)
		edit(m)
		if err := m.Verify(); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

// TestMergeRejectsOtherInterfaces: the honest proof with one revealed value changed.
func TestMergeRejectsOtherInterfaces(t *testing.T) {
	f := fixture(t)
	one := field.E{C2: 1}
	for c := range f.m.Interfaces {
		cases := map[string]func(ci *ChildInterface){
			"a challenge": func(ci *ChildInterface) { ci.Challenges[60] = ci.Challenges[60].Add(one) },
			"a query squeeze": func(ci *ChildInterface) {
				ci.Challenges[len(ci.Challenges)-3] = ci.Challenges[len(ci.Challenges)-3].Add(one)
			},
			"a root":             func(ci *ChildInterface) { ci.Roots[1][0] ^= 1 },
			"v_a":                func(ci *ChildInterface) { ci.VA = ci.VA.Add(one) },
			"v_b":                func(ci *ChildInterface) { ci.VB = ci.VB.Add(one) },
			"a slice value":      func(ci *ChildInterface) { ci.S[63] = ci.S[63].Add(one) },
			"the matrix value":   func(ci *ChildInterface) { ci.Values.VB = ci.Values.VB.Add(one) },
			"the key term":       func(ci *ChildInterface) { ci.Values.Key = ci.Values.Key.Add(one) },
			"an enforced sum":    func(ci *ChildInterface) { ci.Enforced[2] = ci.Enforced[2].Add(one) },
			"an induced weight":  func(ci *ChildInterface) { ci.Induced[3] = ci.Induced[3].Add(one) },
			"a nonce":            func(ci *ChildInterface) { ci.Nonces[0] = ci.Nonces[0].Add(field.One) },
			"a boundary":         func(ci *ChildInterface) { ci.Boundaries[3][2] ^= 1 },
			"the first boundary": func(ci *ChildInterface) { ci.Boundaries[0][0] ^= 1 },
			"the last boundary":  func(ci *ChildInterface) { ci.Boundaries[len(ci.Boundaries)-1][3] ^= 1 },
			"a grinding value":   func(ci *ChildInterface) { ci.Grinds[1][1] ^= 1 },
			"a challenge short":  func(ci *ChildInterface) { ci.Challenges = ci.Challenges[:len(ci.Challenges)-1] },
			"a boundary short":   func(ci *ChildInterface) { ci.Boundaries = ci.Boundaries[:len(ci.Boundaries)-1] },
		}
		for name, edit := range cases {
			m := copyMerged(f.m)
			edit(&m.Interfaces[c])
			if err := m.Verify(); err == nil {
				t.Errorf("child %d, %s changed: verified", c, name)
			}
		}
	}
}

// scalarLie returns a hook for a prover whose child 0 has stream scalar j changed at
// bit: its transcript is recomputed from there (the chain, the challenges, the
// grinding checks' chaining values), so that the transcript blocks and their pins
// agree with the changed stream and only the child's checks stand in its way.
func scalarLie(t *testing.T, st flows.Statement, j, bit int) func(i int, x *childExtract) {
	return func(i int, x *childExtract) {
		if i != 0 {
			return
		}
		sc, err := ChildStream(st, x.rev)
		if err != nil {
			t.Fatal(err)
		}
		k := -1
		for s, step := range sc.Steps {
			if step.Kind == StepScalar && step.Var == j {
				k = s
			}
		}
		if k < 0 {
			t.Fatalf("no step absorbs scalar %d", j)
		}
		x.chain = append([]transcript.Step(nil), x.chain...)
		x.chain[k].Block[bit/64] ^= 1 << (bit % 64)
		cv := x.chain[k].In
		for s := k; s < len(x.chain); s++ {
			x.chain[s].In = cv
			cv = transcript.Compress(cv, x.chain[s].Block)
			x.chain[s].Out = cv
		}
		rev := *x.rev
		rev.Challenges = nil
		rev.Nonces = nil
		for _, s := range x.chain {
			if s.Block == squeezeBlock {
				rev.Challenges = append(rev.Challenges, field.E{C0: field.K(s.Out[0]), C1: field.K(s.Out[1]), C2: field.K(s.Out[2])})
			}
		}
		x.grind = append([]transcript.Step(nil), x.grind...)
		for g, s := range sc.NonceSteps {
			blk := x.chain[s].Block
			rev.Nonces = append(rev.Nonces, field.E{C0: field.K(blk[0]), C1: field.K(blk[1]), C2: field.K(blk[2])})
			base, nonce := &x.grind[2*g], &x.grind[2*g+1]
			base.In = x.chain[s].In
			base.Out = transcript.Compress(base.In, base.Block)
			nonce.In, nonce.Block = base.Out, [4]uint64{blk[0], blk[1], blk[2], grindNonceTag}
			nonce.Out = transcript.Compress(nonce.In, nonce.Block)
		}
		x.rev = &rev
	}
}

// TestMergeRejectsLyingProvers: provers that put a lie in the merged proof's witness
// or statement, each caught by the verifier.
func TestMergeRejectsLyingProvers(t *testing.T) {
	f := fixture(t)
	children := mergeChildren(f.leaves)
	st := f.leaves[0].Statement
	lie := func(name string, h *mergeHooks) {
		t.Helper()
		m, err := mergeWith(children, 2, par.New(nil, 2), h)
		if err != nil {
			t.Logf("%s: no proof made (%v)", name, err)
			return // nothing to accept
		}
		if err := m.Verify(); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
	extra := otherKey(t)
	lie("a child's key claimed as another", &mergeHooks{statement: func(m *Merged) { m.Keys[2] = extra }})
	lie("a child's keys reordered", &mergeHooks{statement: func(m *Merged) { m.Keys[0], m.Keys[3] = m.Keys[3], m.Keys[0] }})
	lie("another message claimed", &mergeHooks{statement: func(m *Merged) { m.Message[0] ^= 0x80 }})
	lie("another epoch claimed", &mergeHooks{statement: func(m *Merged) { m.Epoch ^= 4 }})
	lie("a child's keys dropped", &mergeHooks{statement: func(m *Merged) {
		m.Keys = append(m.Keys[:1:1], m.Keys[2:]...)
		m.Children[0].N--
	}})
	lie("a wrong key term", &mergeHooks{child: func(i int, x *childExtract) {
		r := *x.rev
		r.Values.Key = r.Values.Key.Add(field.One)
		x.rev = &r
	}})
	lie("a wrong matrix value", &mergeHooks{child: func(i int, x *childExtract) {
		r := *x.rev
		r.Values.VA = r.Values.VA.Add(field.One)
		x.rev = &r
	}})
	lie("an opened row changed", &mergeHooks{child: func(i int, x *childExtract) {
		q := &x.levels[1].Queries[5]
		q.Row = append([]uint64(nil), q.Row...)
		q.Row[0] ^= 1
	}})
	lie("an enforced sum changed with its row", &mergeHooks{child: func(i int, x *childExtract) {
		r := *x.rev
		r.Enforced = append([]field.E(nil), r.Enforced...)
		r.Enforced[0] = r.Enforced[0].Add(field.One)
		x.rev = &r
	}})
	// A child with one stream scalar changed: a few positions here, 100 with
	// LEANPIPE_HEAVY (stream scalars are what the proof's bytes carry beyond the
	// openings; the openings' changes are the row test above).
	rng := testrand.New(t)
	vars := len(f.leaves[0].Proof.Stream)
	positions := [][2]int{{3, 5}, {2 + 64 + 7, 130}, {vars - 5, 64}}
	if heavyRun() {
		for range 100 {
			positions = append(positions, [2]int{rng.IntN(vars), rng.IntN(192)})
		}
	}
	for _, p := range positions {
		lie(fmt.Sprintf("stream scalar %d, bit %d", p[0], p[1]), &mergeHooks{child: scalarLie(t, st, p[0], p[1])})
	}
	// A child with one bit of its openings changed: a row word or a Merkle path node
	// of one query (the rest of a proof's bytes, raw or wire: the wire form only leaves
	// out path nodes another path of the level determines). A few here, 100 with
	// LEANPIPE_HEAVY.
	type openingLie struct{ level, query, pos, bit int }
	x, _, err := extractChild(f.leaves[0].Proof, f.leaves[0].Statement)
	if err != nil {
		t.Fatal(err)
	}
	levels := x.levels
	last := len(levels) - 1
	lies := []openingLie{{0, 0, 0, 0}, {0, 7, -1, 200}, {1, 3, 5, 63}, {last, 0, -3, 17}}
	if heavyRun() {
		for range 100 {
			l := rng.IntN(len(levels))
			q := rng.IntN(len(levels[l].Queries))
			in := levels[l].Queries[q]
			if rng.IntN(2) == 0 {
				lies = append(lies, openingLie{l, q, rng.IntN(len(in.Row)), rng.IntN(64)})
			} else {
				lies = append(lies, openingLie{l, q, -1 - rng.IntN(len(in.Path)), rng.IntN(256)})
			}
		}
	}
	for _, o := range lies {
		what := fmt.Sprintf("level %d, query %d: row word %d, bit %d", o.level, o.query, o.pos, o.bit)
		if o.pos < 0 {
			what = fmt.Sprintf("level %d, query %d: path node %d, bit %d", o.level, o.query, -1-o.pos, o.bit)
		}
		lie(what, &mergeHooks{child: func(i int, x *childExtract) {
			if i != 0 {
				return
			}
			q := &x.levels[o.level].Queries[o.query]
			if o.pos >= 0 {
				q.Row = append([]uint64(nil), q.Row...)
				q.Row[o.pos] ^= 1 << o.bit
				return
			}
			q.Path = append([]merkle.Digest(nil), q.Path...)
			q.Path[-1-o.pos][o.bit/8] ^= 1 << (o.bit % 8)
		}})
	}
}

// TestMergeMutations: changed bytes of a merged proof (its segmented proof in raw and
// wire form, and its file) are refused without a panic; LEANPIPE_HEAVY runs 1,000.
func TestMergeMutations(t *testing.T) {
	f := fixture(t)
	rng := testrand.New(t)
	n := 12
	if heavyRun() {
		n = 1000
	}
	for range n {
		q, what, ok := testtranscript.Mutate(rng, f.m.Proof)
		if !ok {
			continue
		}
		m := copyMerged(f.m)
		m.Proof = q
		if err := noPanic(m.Verify); err == nil {
			t.Fatalf("%s: verified", what)
		} else if !errors.Is(err, ErrMerged) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	file := f.m.ProofBytes()
	st := f.m.Statement()
	for range n {
		b := append([]byte(nil), file...)
		at := rng.IntN(len(b))
		if rng.IntN(2) == 0 {
			at = rng.IntN(min(len(b), 24+len(file)/8)) // the header and interfaces
		}
		b[at] ^= byte(1 + rng.IntN(255))
		if err := noPanic(func() error { return VerifyMerged(b, st) }); err == nil {
			t.Fatalf("file byte %d changed: verified", at)
		}
	}
	for _, cut := range []int{0, 7, 23, 24, 100, len(file) / 2, len(file) - 1} {
		if err := noPanic(func() error { return VerifyMerged(file[:cut], st) }); err == nil {
			t.Fatalf("file cut at %d: verified", cut)
		}
	}
}

// TestMergeNamesTheChildThatFails: a child that does not verify (one stream scalar
// changed, or presented for another child's statement) is refused before any work
// with a ChildError naming it, which is an ErrMergeInput.
func TestMergeNamesTheChildThatFails(t *testing.T) {
	f := fixture(t)
	bad := *f.leaves[1].Proof
	bad.Stream = append([]field.E(nil), bad.Stream...)
	bad.Stream[9] = bad.Stream[9].Add(field.One)
	for name, children := range map[string][]MergeChild{
		"a changed scalar":    {{f.leaves[0].Proof, f.leaves[0].Statement}, {&bad, f.leaves[1].Statement}},
		"another's statement": {{f.leaves[0].Proof, f.leaves[0].Statement}, {f.leaves[0].Proof, f.leaves[1].Statement}},
	} {
		_, err := Merge(children, 2, par.New(nil, 2))
		var ce *ChildError
		if !errors.As(err, &ce) || ce.Index != 1 || !errors.Is(err, ErrMergeInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMergeNativeChecks: a merged proof's verification batches its children's matrix
// claims (the proof's batch, replayed) and carries the batched claim and each child's
// key claim as native checks (flows.Evaluations.Native, enforced with the proof): all
// pass on an honest merge; a child's key claim changed fails its check; a child's
// matrix claim changed fails the batch's replay; a changed or missing batch is refused.
func TestMergeNativeChecks(t *testing.T) {
	f := fixture(t)
	mc, err := f.m.checks()
	if err != nil {
		t.Fatal(err)
	}
	// One batched matrix claim, then a key claim per child.
	if got, want := len(mc.ev.Native), 1+len(f.m.Children); got != want {
		t.Fatalf("%d native checks for %d children", got, len(f.m.Children))
	}
	for _, c := range mc.ev.Native {
		if err := c.Check(); err != nil {
			t.Fatalf("%s: %v", c.What, err)
		}
	}
	p := mc.plans[1]
	p.sc.Key.Value = p.sc.Key.Value.Add(field.One)
	for i, c := range mc.ev.Native {
		if err := c.Check(); (err != nil) != (i == 2) {
			t.Fatalf("%s with child 1's key claim changed: %v", c.What, err)
		}
	}
	// A child's matrix claim other than the one batched: the batch's replay refuses it.
	p.sc.Matrix.VB = p.sc.Matrix.VB.Add(field.One)
	if _, err := f.m.verifyBatch(mc.plans); err == nil {
		t.Fatal("the batch verified against a changed child matrix claim")
	}
	// A changed batch scalar, or none: the merged proof is refused.
	bad := *f.m
	b := *f.m.Batch
	b.Stream = append([]field.E(nil), b.Stream...)
	b.Stream[len(b.Stream)-1] = b.Stream[len(b.Stream)-1].Add(field.One)
	bad.Batch = &b
	if err := bad.Verify(); err == nil {
		t.Fatal("a changed batch scalar verified")
	}
	bad.Batch = nil
	if err := bad.Verify(); err == nil {
		t.Fatal("a merged proof without its batch verified")
	}
}

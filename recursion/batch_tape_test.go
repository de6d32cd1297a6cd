package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// TestBatchTapeHolds replays a real no-reveal merge's batch of carried key claims
// on a tape, the claims' coordinates and values committed: the schedule is the batch
// transcript's step for step, the batch identity holds on the true values, and a
// changed carried coordinate or value breaks it. (The leaves' matrix claims join the
// block claims' batch, which the merges' tests replay.)
func TestBatchTapeHolds(t *testing.T) {
	skipProofs(t, "proves a no-reveal 2→1 merge")
	m, err := MergeNR(mergeChildren(siblingLeaves(t, 2, 4, 2, 81)), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	kt, err := m.keyTable()
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, absorbed, err := flows.SegmentsLayout(l.shapes(), m.LogInvRate, m.statementBytes())
	if err != nil {
		t.Fatal(err)
	}
	var chain []transcript.Step
	tr := transcript.NewVerifier(m.Batch, []byte(MergeBatchLabelNR), nil)
	tr.Trace(func(s transcript.Step) {
		if s.OnChain {
			chain = append(chain, s)
		}
	})
	tr.AbsorbBytes(absorbed)
	_, keys, err := m.carriedClaims(kt.T.W.Log)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := VerifyKeyClaims(tr, kt.T.W.Log, kt.SlotBits, keys); err != nil {
		t.Fatal(err)
	}

	// The carried coordinates as committed values (segment 2, one per word triple).
	var carried []field.E
	tp := &Tape{}
	atom := func(v field.E) Lin { carried = append(carried, v); return tp.Input(2, 3*(len(carried)-1)) }
	atoms := func(vs []field.E) []Lin {
		out := make([]Lin, len(vs))
		for i, v := range vs {
			out[i] = atom(v)
		}
		return out
	}
	var tkeys []TapeTableClaim
	off := 0
	for i, d := range m.Deferred {
		tkeys = append(tkeys, TapeTableClaim{Tau: atoms(d.Tau), Chi: atoms(d.ChiOut), Offset: off, N: m.Children[i].N, Value: atom(d.Key)})
		off += m.Children[i].N
	}
	in, _ := nativeTapeInputs(nil, nil, nil)
	s := &tapeTr{t: tp, in: in}
	s.absorbBytes(absorbed)
	tapeBatchKeys(tp, s, kt.T.W.Log, kt.SlotBits, tkeys)
	if len(s.steps) != len(chain) {
		t.Fatalf("%d steps replayed, the batch has %d", len(s.steps), len(chain))
	}
	e := func(w [4]uint64) field.E { return field.E{C0: field.K(w[0]), C1: field.K(w[1]), C2: field.K(w[2])} }
	stream, chals := make([]field.E, s.vars), make([]field.E, s.chals)
	for i, st := range s.steps {
		if st.Tag != chain[i].Block[3] {
			t.Fatalf("step %d: tag %d, the batch's %d", i, st.Tag, chain[i].Block[3])
		}
		switch st.Kind {
		case StepScalar:
			stream[st.Var] = e(chain[i].Block)
		case StepSqueeze:
			chals[st.Challenge] = e(chain[i].Out)
		}
	}
	_, value := nativeTapeInputs(stream, chals, carried)
	_, _, units := tp.Operands(value)
	for i, st := range s.steps {
		if st.Observed != nil && st.Observed.Eval(value, units) != e(chain[i].Block) {
			t.Fatalf("step %d observes another value than the batch", i)
		}
	}
	if err := tapeHolds(tp, value); err != nil {
		t.Fatalf("%v on the true values", err)
	}
	t.Logf("the batch of %d children's carried claims: %d products, %d steps", len(m.Deferred), tp.Products(), len(s.steps))
	for _, k := range []int{0, 5, len(carried) - 1} {
		bad := append([]field.E(nil), carried...)
		bad[k] = bad[k].Add(field.One)
		_, v := nativeTapeInputs(stream, chals, bad)
		if tapeHolds(tp, v) == nil {
			t.Fatalf("carried value %d changed: every assertion holds", k)
		}
	}
}

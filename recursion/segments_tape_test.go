package recursion

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// TestSegmentsTapeHolds replays a real merged proof's segmented verification on a
// tape: its schedule is the proof's transcript step for step, and with the hints
// evaluated natively (each segment's matrices and public term, the linear batches'
// weights, each WHIR level's sums from the raw openings) every assertion holds on the
// true values: each segment's lincheck terminal, the linear claims and the WHIR
// terminal. A changed scalar of a segment's lincheck, or any hint, breaks one.
func TestSegmentsTapeHolds(t *testing.T) {
	skipProofs(t, "proves a 2→1 merge")
	m, err := Merge(mergeChildren(siblingLeaves(t, 2, 4, 2, 51)), 2, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	mc, err := m.checks()
	if err != nil {
		t.Fatal(err)
	}
	var chain []transcript.Step
	if _, err := flows.VerifySegmentsTraced(m.Proof, MergeLabel, m.statementBytes(), mc.shapes, mc.ev, m.LogInvRate, func(s transcript.Step) {
		if s.OnChain {
			chain = append(chain, s)
		}
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := flows.VerifySegments(m.Proof, MergeLabel, m.statementBytes(), mc.shapes, mc.ev, m.LogInvRate)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := nativeTapeInputs(nil, nil, nil)
	st, err := NewSegmentsTape(m.statementBytes(), mc.shapes, mc.ev, m.LogInvRate, in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range min(len(st.Steps), len(chain)) {
		if st.Steps[i].Tag != chain[i].Block[3] {
			t.Fatalf("step %d of %d/%d: tag %d (kind %d), the proof's %d", i, len(st.Steps), len(chain), st.Steps[i].Tag, st.Steps[i].Kind, chain[i].Block[3])
		}
	}
	if len(st.Steps) != len(chain) {
		t.Fatalf("%d steps replayed, the proof has %d", len(st.Steps), len(chain))
	}
	e := func(w [4]uint64) field.E { return field.E{C0: field.K(w[0]), C1: field.K(w[1]), C2: field.K(w[2])} }
	stream, chals := make([]field.E, st.Vars), make([]field.E, st.Challenges)
	for i, s := range st.Steps {
		switch s.Kind {
		case StepScalar:
			stream[s.Var] = e(chain[i].Block)
		case StepSqueeze:
			chals[s.Challenge] = e(chain[i].Out)
		}
	}
	hints := make([]field.E, len(st.Hints))
	_, value := nativeTapeInputs(stream, chals, hints)
	_, _, units := st.Tape.Operands(value)
	for i, s := range st.Steps {
		want := [3]uint64(chain[i].Block[:3])
		var got [3]uint64
		switch {
		case s.Kind == StepScalar || s.Kind == StepSqueeze:
			got = want // the values were read from these steps
		case s.Observed != nil:
			x := s.Observed.Eval(value, units)
			got = [3]uint64{uint64(x.C0), uint64(x.C1), uint64(x.C2)}
		default:
			got = s.Data
		}
		if s.Tag != chain[i].Block[3] || got != want {
			t.Fatalf("step %d (kind %d): tag %d data %x, the proof's tag %d data %x", i, s.Kind, s.Tag, got, chain[i].Block[3], want)
		}
	}
	// The hints, natively.
	evs := func(ls []Lin) []field.E {
		out := make([]field.E, len(ls))
		for i, l := range ls {
			out[i] = l.Eval(value, units)
		}
		return out
	}
	_, places, stackLog, _, err := flows.SegmentsLayout(mc.shapes, m.LogInvRate, m.statementBytes())
	if err != nil {
		t.Fatal(err)
	}
	rho := evs(st.Rho)
	// Each WHIR level's enforced sum and induced weight, from the raw openings: the
	// queries' indices drawn from the level's samples, their rows and paths, the eq
	// table of the level's folds (level 0's lanes descending) and its point.
	sh, err := flows.CommittedShape(places, stackLog, m.LogInvRate)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		t.Fatal(err)
	}
	openings := raw.Openings
	levelSums := make([][2]field.E, len(st.Levels))
	for l, lv := range st.Levels {
		samples := evs(lv.Samples)
		messageLog := cfg.MessageLog(l)
		idx := transcript.QueriesFrom(1<<(messageLog+cfg.LogInvRates[l]), cfg.Queries[l], func() field.E { x := samples[0]; samples = samples[1:]; return x })
		eq := make([]field.E, 1<<len(lv.Folds))
		field.EqTable(eq, evs(lv.Folds))
		if l == 0 {
			slices.Reverse(eq)
		}
		lambda, point := lv.Lambda.Eval(value, units), evs(lv.Point)
		pow := field.One
		for _, q := range idx {
			o := openings[0]
			openings = openings[1:]
			_, fold, induced := QueryTerms(&QueryInput{Index: q, Row: o.Leaf, Path: o.Path, Eq: eq, Weight: field.One, Point: point}, messageLog)
			levelSums[l][0] = levelSums[l][0].Add(pow.Mul(fold))
			levelSums[l][1] = levelSums[l][1].Add(pow.Mul(induced))
			pow = pow.Mul(lambda)
		}
	}
	for h, hk := range st.Hints {
		switch hk.Kind {
		case HintSegmentA, HintSegmentB, HintSegmentPublic:
			if hints[h], err = carriedValue(hk, evs(st.HintPoint(h)), mc.shapes, mc.ev, places); err != nil {
				t.Fatal(err)
			}
		case HintLinearWeight:
			hints[h] = linearWeight(mc.ev.Linear, hk.Of, st.Gamma.Eval(value, units), rho[len(rho)-places[hk.Of].Variables:])
		case HintLevelEnforced:
			hints[h] = levelSums[hk.Of][0]
		case HintLevelInduced:
			hints[h] = levelSums[hk.Of][1]
		}
	}
	holds := func(value func(seg, word int) field.E) error {
		_, _, units := st.Tape.Operands(value)
		for _, a := range st.Tape.Asserts {
			if !a.Form.Eval(value, units).IsZero() {
				return fmt.Errorf("%s fails", a.What)
			}
		}
		return nil
	}
	if err := holds(value); err != nil {
		t.Fatalf("%v on the true values", err)
	}
	t.Logf("%d segments: %d products, %d squares, %d assertions, %d hints, %d scalars, %d challenges",
		len(mc.shapes), st.Tape.Products(), st.Tape.Squares(), len(st.Tape.Asserts), len(st.Hints), st.Vars, st.Challenges)
	// Every hint changed breaks an assertion.
	for h := range hints {
		bad := append([]field.E(nil), hints...)
		bad[h] = bad[h].Add(field.One)
		_, v := nativeTapeInputs(stream, chals, bad)
		if holds(v) == nil {
			t.Fatalf("hint %d (%+v) changed: every assertion holds", h, st.Hints[h])
		}
	}
	// A scalar of segment 1's lincheck rounds (past its 2 + 64 + zerocheck scalars).
	mutated := false
	for i, s := range st.Steps {
		if s.Kind == StepScalar && st.Flock[1].alpha.Terms[0].Atom.Word/3 < chalBefore(st.Steps, i) {
			mutated = true
			bad := append([]field.E(nil), stream...)
			bad[s.Var] = bad[s.Var].Add(field.One)
			_, v := nativeTapeInputs(bad, chals, hints)
			if holds(v) == nil {
				t.Fatal("a changed lincheck scalar keeps every assertion")
			}
			break
		}
	}
	if !mutated {
		t.Fatal("no scalar after segment 1's α to change")
	}
}

// chalBefore counts the squeezes before step i.
func chalBefore(steps []TapeStep, i int) int {
	n := 0
	for _, s := range steps[:i] {
		if s.Kind == StepSqueeze {
			n++
		}
	}
	return n
}

// linearWeight is a batch's weight at ρ (its segment's last variables of the rounds):
// Σ_c γ^c Σ_t coeff_t·eq(word_t, ρ), over the claims on segment seg (the native evaluation of a revealing merge's HintLinearWeight).
func linearWeight(claims []flows.LinearClaim, seg int, gamma field.E, rho []field.E) field.E {
	var total field.E
	pow := field.One
	for _, c := range claims {
		if c.Segment == seg {
			var sum field.E
			for _, tm := range c.Terms {
				sum = sum.Add(tm.Coeff.Mul(eqIndex(rho, tm.Word)))
			}
			total = total.Add(pow.Mul(sum))
		}
		pow = pow.Mul(gamma)
	}
	return total
}

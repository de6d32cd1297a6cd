package recursion

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

func checksHold(sc *StreamChecks, stream []field.E) error {
	for _, c := range sc.Checks {
		if !c.Value.Eval(stream).IsZero() {
			return fmt.Errorf("%s fails", c.What)
		}
	}
	return nil
}

// TestChildStreamChecks replays a real child's verification on its stream as
// unknowns: the schedule is the transcript's step for step, every check holds on the
// true stream, every stream scalar is in a check, and each revealed value, changed,
// breaks a check.
func TestChildStreamChecks(t *testing.T) {
	for _, rate := range []int{1, 2} {
		p, v := childWithValues(t, 4, rate, 31+uint64(rate))
		rev, stream, err := RevealChild(p.Proof, p.Statement)
		if err != nil {
			t.Fatal(err)
		}
		if rev.Values != v {
			t.Fatal("RevealChild's deferred values differ from ChildValuesOf's")
		}
		sc, err := ChildStream(p.Statement, rev)
		if err != nil {
			t.Fatal(err)
		}
		chain, _, err := ChildTrace(p.Proof, p.Statement, v)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Steps) != len(chain) || sc.Vars != len(stream) {
			t.Fatalf("rate %d: %d steps and %d scalars replayed, the child has %d and %d", rate, len(sc.Steps), sc.Vars, len(chain), len(stream))
		}
		for i, s := range sc.Steps {
			blk := chain[i].Block
			if s.Tag != blk[3] {
				t.Fatalf("rate %d, step %d: tag %d, the child's %d", rate, i, s.Tag, blk[3])
			}
			var data [3]uint64
			switch s.Kind {
			case StepScalar:
				x := stream[s.Var]
				data = [3]uint64{uint64(x.C0), uint64(x.C1), uint64(x.C2)}
			case StepPublic:
				data = s.Data
			case StepSqueeze:
				out := chain[i].Out
				if c := rev.Challenges[s.Challenge]; c != (field.E{C0: field.K(out[0]), C1: field.K(out[1]), C2: field.K(out[2])}) {
					t.Fatalf("rate %d, step %d: challenge %d is not the step's output", rate, i, s.Challenge)
				}
			}
			if [3]uint64(blk[:3]) != data {
				t.Fatalf("rate %d, step %d (kind %d): data %x, the child absorbed %x", rate, i, s.Kind, data, blk[:3])
			}
		}
		if err := checksHold(sc, stream); err != nil {
			t.Fatalf("rate %d: %v on the true stream", rate, err)
		}
		seen := make([]bool, sc.Vars)
		if len(sc.Nonces) != len(rev.Roots) || len(sc.NonceSteps) != len(sc.Nonces) {
			t.Fatalf("rate %d: %d nonces at %d steps for %d levels", rate, len(sc.Nonces), len(sc.NonceSteps), len(rev.Roots))
		}
		for i, j := range sc.NonceSteps {
			if chain[j].Block[3] != tagNonce || sc.Steps[j].Var != sc.Nonces[i] {
				t.Fatalf("rate %d: nonce %d at step %d is not a nonce step", rate, i, j)
			}
		}
		// The levels the verifier derives are the opening's, rows and paths apart.
		lqs, err := ChildQueries(p.Proof, p.Statement, v)
		if err != nil {
			t.Fatal(err)
		}
		for l, lq := range lqs {
			got := sc.Levels[l]
			if got.Root != lq.Root || got.Lambda != lq.Lambda || got.MessageLog != lq.MessageLog || got.Enforced != lq.Enforced ||
				!slices.Equal(got.Folds, lq.Folds) || !slices.Equal(got.Point, lq.Point) || len(got.Queries) != len(lq.Queries) {
				t.Fatalf("rate %d: level %d differs from the opening's", rate, l)
			}
			for i, q := range lq.Queries {
				g := got.Queries[i]
				if g.Index != q.Index || g.Weight != q.Weight || !slices.Equal(g.Eq, q.Eq) || !slices.Equal(g.Point, q.Point) {
					t.Fatalf("rate %d: level %d query %d differs from the opening's", rate, l, i)
				}
			}
		}
		// The deferred claims are VerifyChild's.
		cc, err := VerifyChild(p.Proof, p.Statement, v)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cc.Matrix.Row.Low, sc.Matrix.Row.Low) || !slices.Equal(cc.Matrix.Row.High, sc.Matrix.Row.High) ||
			!slices.Equal(cc.Matrix.Col.Low, sc.Matrix.Col.Low) || !slices.Equal(cc.Matrix.Col.High, sc.Matrix.Col.High) ||
			cc.Matrix.VA != sc.Matrix.VA || cc.Matrix.VB != sc.Matrix.VB || cc.Alpha != sc.Alpha ||
			!slices.Equal(cc.Key.Tau, sc.Key.Tau) || !slices.Equal(cc.Key.ChiOut, sc.Key.ChiOut) || cc.Key.Value != sc.Key.Value {
			t.Fatalf("rate %d: the deferred claims differ from VerifyChild's", rate)
		}
		for _, c := range sc.Checks {
			for _, tm := range c.Value.Terms {
				seen[tm.J] = true
			}
		}
		for j, ok := range seen {
			if !ok {
				t.Fatalf("rate %d: stream scalar %d is in no check", rate, j)
			}
		}
		// Each revealed value, changed, breaks a check on the true stream.
		one := field.E{C1: 1}
		for name, edit := range map[string]func(r *ChildReveal){
			"v_a":          func(r *ChildReveal) { r.VA = r.VA.Add(one) },
			"v_b":          func(r *ChildReveal) { r.VB = r.VB.Add(one) },
			"slice value":  func(r *ChildReveal) { r.S[17] = r.S[17].Add(one) },
			"matrix value": func(r *ChildReveal) { r.Values.VA = r.Values.VA.Add(one) },
			"key term":     func(r *ChildReveal) { r.Values.Key = r.Values.Key.Add(one) },
			"enforced sum": func(r *ChildReveal) { r.Enforced[1] = r.Enforced[1].Add(one) },
			"induced":      func(r *ChildReveal) { r.Induced[0] = r.Induced[0].Add(one) },
			"last induced": func(r *ChildReveal) { r.Induced[len(r.Induced)-1] = r.Induced[len(r.Induced)-1].Add(one) },
			"root":         func(r *ChildReveal) { r.Roots[2][5] ^= 1 },
			"challenge":    func(r *ChildReveal) { r.Challenges[40] = r.Challenges[40].Add(one) },
			"nonce":        func(r *ChildReveal) { r.Nonces[1] = r.Nonces[1].Add(field.One) },
			"last challenge": func(r *ChildReveal) {
				r.Challenges[len(r.Challenges)-1] = r.Challenges[len(r.Challenges)-1].Add(one)
			},
		} {
			bad := *rev
			bad.S = append([]field.E(nil), rev.S...)
			bad.Enforced = append([]field.E(nil), rev.Enforced...)
			bad.Induced = append([]field.E(nil), rev.Induced...)
			bad.Roots = append(bad.Roots[:0:0], rev.Roots...)
			bad.Challenges = append([]field.E(nil), rev.Challenges...)
			bad.Nonces = append([]field.E(nil), rev.Nonces...)
			edit(&bad)
			sc2, err := ChildStream(p.Statement, &bad)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if checksHold(sc2, stream) == nil {
				t.Errorf("rate %d: another %s: every check holds", rate, name)
			}
		}
		short := *rev
		short.Challenges = rev.Challenges[:len(rev.Challenges)-1]
		if _, err := ChildStream(p.Statement, &short); err == nil {
			t.Fatal("a challenge short: replayed")
		}
		t.Logf("rate %d: %d steps, %d stream scalars, %d checks, %d challenges", rate, len(sc.Steps), sc.Vars, len(sc.Checks), len(rev.Challenges))
	}
}

// TestChildStreamOnTranscriptBlocks proves a real child's transcript blocks with its
// stream checks as linear claims on their data: it verifies, and a parent whose
// revealed values differ from the child's, or whose blocks hold another stream (its
// chain and challenges recomputed, so that only the checks stand in the way), is
// rejected.
func TestChildStreamOnTranscriptBlocks(t *testing.T) {
	skipProofs(t, "proves a child's transcript blocks (2^23 columns)")
	tb := testTranscriptBlock()
	if tb.Data%64 != 0 {
		t.Fatalf("transcript data at column %d, not on a word", tb.Data)
	}
	p, v := childWithValues(t, 4, 2, 71)
	rev, stream, err := RevealChild(p.Proof, p.Statement)
	if err != nil {
		t.Fatal(err)
	}
	chain, _, err := ChildTrace(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ChildStream(p.Statement, rev)
	if err != nil {
		t.Fatal(err)
	}
	runs := TranscriptRuns(chain)
	const label = "recursion-stream-checks"
	prove := func(rs []TranscriptRun, lin []flows.LinearClaim) *transcript.Proof {
		pr, err := flows.ProveSegments(label, nil, []flows.Segment{tb.TranscriptSegment(rs)}, &flows.Evaluations{Linear: lin}, 2, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	verify := func(pr *transcript.Proof, rs []TranscriptRun, lin []flows.LinearClaim) error {
		_, err := flows.VerifySegments(pr, label, nil, []flows.SegmentShape{tb.TranscriptShape(rs)}, &flows.Evaluations{Linear: lin}, 2)
		return err
	}
	lin := sc.LinearClaims(tb, 0, 0)
	honest := prove(runs, lin)
	if err := verify(honest, runs, lin); err != nil {
		t.Fatal(err)
	}
	bad := *rev
	bad.Enforced = append([]field.E(nil), rev.Enforced...)
	bad.Enforced[0] = bad.Enforced[0].Add(field.One)
	scBad, err := ChildStream(p.Statement, &bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(honest, runs, scBad.LinearClaims(tb, 0, 0)); err == nil {
		t.Fatal("another revealed enforced sum verified")
	}
	// A stream with one round coefficient changed (the lincheck's first round): the
	// runs are recomputed from there, and the verifier's pins follow them.
	j := -1
	for i, s := range sc.Steps {
		if s.Kind == StepScalar && s.Var == 2+64+3*10 { // a scalar past the root, the coset and some rounds
			j = i
		}
	}
	if j < 0 {
		t.Fatal("no such stream scalar")
	}
	forged := append([]transcript.Step(nil), chain...)
	forged[j].Block[1] ^= 1 << 33
	cv := forged[j].In
	for i := j; i < len(forged); i++ {
		forged[i].In = cv
		cv = transcript.Compress(cv, forged[i].Block)
		forged[i].Out = cv
	}
	fr := TranscriptRuns(forged)
	if err := verify(prove(fr, lin), fr, lin); err == nil {
		t.Fatal("a changed stream scalar verified against the checks")
	}
	_ = stream
	t.Logf("%d runs, %d linear claims, proof %d bytes", len(runs), len(lin), len(honest.MarshalWire()))
}

package ringswitch

import (
	"errors"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// TestForgedSliceClaimsRejected: the ring switch's verifier draws Φ and turns the 64
// slice claims and their point into one claim on the committed column; it has no
// check of its own: the stacked opening's terminal check guards its output. Proved
// honestly, the column opens against the claim. A prover that claims a forged slice
// value, a forged coordinate of the point or a forged target, and then proves the
// opening honestly from its column (so every later message is consistent with the
// transcript, grinding included), is rejected by that terminal check (open.ErrTerminal).
func TestForgedSliceClaimsRejected(t *testing.T) {
	rng := testrand.New(t)
	const mu = commit.MinStackLog
	q := make([]field.K, 1<<mu)
	for i := range q {
		q[i] = field.K(rng.Uint64())
	}
	point := randEs(rng, mu)
	s := sliceClaims(q, point)
	c, err := commit.Commit(q, mu, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	label := []byte("ringswitch-reject-test")
	place := open.Placement{Variables: mu}
	// run proves with the claims given (the prover's weights are those of point), then
	// verifies with the same claims.
	run := func(point, s []field.E, forgeTarget bool) error {
		pr := transcript.NewProver(label, nil)
		halves := commit.RootHalves(c.Root())
		pr.SendMany(halves[:])
		claim := Prove(pr, point, s, nil, par.New(nil, 2))
		if forgeTarget {
			claim.Target = claim.Target.Add(field.One)
		}
		if err := open.ProveStacked(pr, c, place, claim, nil, par.New(nil, 2)); err != nil {
			t.Fatal(err)
		}
		tv := transcript.NewVerifier(pr.Proof(), label, nil)
		root, err := open.ReceiveRoot(tv)
		if err != nil {
			return err
		}
		vc := Verify(tv, point, s)
		if forgeTarget {
			vc.Target = vc.Target.Add(field.One)
		}
		if err := open.VerifyStacked(tv, root, commit.FullShape(mu, 1), place, vc, nil); err != nil {
			return err
		}
		return tv.Finish()
	}
	if err := run(point, s, false); err != nil {
		t.Fatalf("honest ring switch rejected: %v", err)
	}
	for _, i := range []int{0, 63} {
		bad := append([]field.E(nil), s...)
		bad[i] = bad[i].Add(field.E{C1: 1})
		if err := run(point, bad, false); !errors.Is(err, open.ErrTerminal) {
			t.Fatalf("slice value %d forged: err = %v, want open.ErrTerminal", i, err)
		}
	}
	for _, k := range []int{0, mu - 1} {
		bad := append([]field.E(nil), point...)
		bad[k] = bad[k].Add(field.One)
		if err := run(bad, s, false); !errors.Is(err, open.ErrTerminal) {
			t.Fatalf("point coordinate %d forged: err = %v, want open.ErrTerminal", k, err)
		}
	}
	if err := run(point, s, true); !errors.Is(err, open.ErrTerminal) {
		t.Fatalf("target forged: err = %v, want open.ErrTerminal", err)
	}
}

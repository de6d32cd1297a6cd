package flows

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// Adversarial tests of linear claims (Evaluations.Linear) over segments of different
// sizes: the batched sumcheck joins a smaller segment's batch late, so the tests put
// claims on segments of 13, 10 and 11 column variables (one without claims between
// them) and check that every false claim is refused, that degenerate claims (all
// coefficients zero, a word repeated so that its coefficients cancel) mean exactly
// what they say, and that a prover that runs the sumcheck on a false claim and picks
// its final column value to pass the sumcheck's last check is refused by the opening.

// mixedLinear returns three layered segments of 40, 5 and 12 live slots (2^6, 2^3 and
// 2^4 slots: 13, 10 and 11 column variables) and their inputs.
func mixedLinear(t *testing.T) ([]Segment, []SegmentShape, [][]uint64) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	ins := [][]uint64{randInputs(rng, 40), randInputs(rng, 5), randInputs(rng, 12)}
	segs := make([]Segment, len(ins))
	shapes := make([]SegmentShape, len(ins))
	for i, xs := range ins {
		segs[i] = layeredSegment(layered, xs)
		shapes[i] = SegmentShape{Circuit: layered, N: len(xs)}
	}
	return segs, shapes, ins
}

// inputTerm is the term coeff·x_s on slot s's input word (128 words per slot).
func inputTerm(s int, coeff field.E) LinearTerm { return LinearTerm{Word: 1 + s*128, Coeff: coeff} }

func randE(rng interface{ Uint64() uint64 }) field.E {
	return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
}

// TestLinearAdversaryMixedSizes: claims on the largest and the smallest of three
// segments of different sizes (the middle one has none) verify when true; each false
// one, on either segment, is refused; a claim whose coefficients are all zero holds
// exactly when its value is zero; a word listed twice with one coefficient (the terms
// cancel in characteristic 2) is a claim on the other words only; a claim on a padding
// slot holds for the value padding carries (slot 0's here) and no other.
func TestLinearAdversaryMixedSizes(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, ins := mixedLinear(t)
	sum := func(seg int, slots []int, coeffs []field.E) LinearClaim {
		c := LinearClaim{Segment: seg}
		for i, s := range slots {
			c.Terms = append(c.Terms, inputTerm(s, coeffs[i]))
			x := ins[seg][0]
			if s < len(ins[seg]) {
				x = ins[seg][s]
			}
			c.Value = c.Value.Add(coeffs[i].MulK(field.K(x)))
		}
		return c
	}
	a, b, c, d := randE(rng), randE(rng), randE(rng), randE(rng)
	claims := []LinearClaim{
		sum(0, []int{0, 17, 39}, []field.E{a, b, c}),
		sum(1, []int{0, 4}, []field.E{c, d}),
		sum(0, []int{3}, []field.E{d}),
		sum(1, []int{2}, []field.E{a}),
	}
	const label = "leanpipe-linear-adversary"
	ev := func(cs []LinearClaim) *Evaluations { return &Evaluations{Linear: cs} }
	verify := func(proof *transcript.Proof, cs []LinearClaim) error {
		_, err := VerifySegments(proof, label, nil, shapes, ev(cs), 1)
		return err
	}
	prove := func(cs []LinearClaim) *transcript.Proof {
		t.Helper()
		p, err := ProveSegments(label, nil, segs, ev(cs), 1, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	proof := prove(claims)
	if err := verify(proof, claims); err != nil {
		t.Fatal(err)
	}
	with := func(extra ...LinearClaim) []LinearClaim {
		return append(append([]LinearClaim(nil), claims...), extra...)
	}
	one := field.One
	// Each false variant, proved by the honest prover (which does not check claims)
	// and verified under the same claims: refused.
	for name, cs := range map[string][]LinearClaim{
		"large segment, value + 1": func() []LinearClaim {
			cs := with()
			cs[0].Value = cs[0].Value.Add(one)
			return cs
		}(),
		"small segment, value + Y": func() []LinearClaim {
			cs := with()
			cs[3].Value = cs[3].Value.Add(field.E{C1: 1})
			return cs
		}(),
		"zero coefficients, value 1":      with(LinearClaim{Segment: 1, Terms: []LinearTerm{inputTerm(1, field.Zero), inputTerm(3, field.Zero)}, Value: one}),
		"no terms, value 1":               with(LinearClaim{Segment: 0, Value: one}),
		"cancelled word, its value":       with(LinearClaim{Segment: 1, Terms: []LinearTerm{inputTerm(2, a), inputTerm(2, a)}, Value: a.MulK(field.K(ins[1][2]))}),
		"padding slot, another value":     with(LinearClaim{Segment: 1, Terms: []LinearTerm{inputTerm(6, one)}, Value: field.FromK(field.K(ins[1][1]))}),
		"on the segment without claims":   with(sum(2, []int{1}, []field.E{a}), LinearClaim{Segment: 2, Terms: []LinearTerm{inputTerm(2, one)}, Value: one}),
		"two true claims, one false term": with(sum(2, []int{5}, []field.E{b}), LinearClaim{Segment: 0, Terms: []LinearTerm{inputTerm(5, one)}, Value: field.FromK(field.K(ins[0][5] ^ 1))}),
	} {
		p := prove(cs)
		if err := verify(p, cs); err == nil {
			t.Errorf("%s: verified", name)
		}
		// The honest proof of the true claims under the false ones: refused too.
		if err := verify(proof, cs); err == nil {
			t.Errorf("%s: the true claims' proof verified", name)
		}
	}
	// Degenerate claims that are true: they verify.
	for name, cs := range map[string][]LinearClaim{
		"zero coefficients, value 0": with(LinearClaim{Segment: 1, Terms: []LinearTerm{inputTerm(1, field.Zero)}}),
		"cancelled word, value 0":    with(LinearClaim{Segment: 1, Terms: []LinearTerm{inputTerm(2, a), inputTerm(2, a)}}),
		"padding slot, slot 0's":     with(LinearClaim{Segment: 1, Terms: []LinearTerm{inputTerm(6, one)}, Value: field.FromK(field.K(ins[1][0]))}),
		"segment 2 as well":          with(sum(2, []int{0, 11}, []field.E{b, c})),
		"only the small segment":     {claims[1], claims[3]},
		"only the mid-size segment":  {sum(2, []int{7}, []field.E{d})},
		"claims in another order":    {claims[3], claims[2], claims[1], claims[0]},
		"one word in two claims":     with(sum(0, []int{17}, []field.E{d})),
		"the large segment's last word": with(LinearClaim{Segment: 0, Terms: []LinearTerm{{Word: 1<<13 - 1, Coeff: one}},
			Value: field.FromK(segmentWord(t, segs[0], 6, 1<<13-1))}),
	} {
		if err := verify(prove(cs), cs); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// segmentWord is word w of a segment's packed column of 2^nLog slots.
func segmentWord(t *testing.T, s Segment, nLog, w int) field.K {
	t.Helper()
	words := 1 << (s.Circuit.LogSize() + nLog - 6)
	wit, as, bs := make([]field.K, words), make([]field.K, words), make([]field.K, words)
	if err := s.Fill(par.Serial(), nLog, wit, as, bs); err != nil {
		t.Fatal(err)
	}
	return wit[w]
}

// TestLinearAdversaryFinalValueLie: a prover holding a witness off a claim runs the
// linear sumcheck with honest round polynomials (the verifier derives each fixed
// coefficient from its own running claim, so the rounds follow the false sum), then
// sends for one batch the column value that makes the sumcheck's last check pass. The
// sumcheck accepts; the stacked opening, where that value is a point claim, refuses.
// Without a lie the hostile prover's proof is ProveSegments' (a control).
func TestLinearAdversaryFinalValueLie(t *testing.T) {
	rng := testrand.New(t)
	segs, shapes, ins := mixedLinear(t)
	a, b := randE(rng), randE(rng)
	truth := []LinearClaim{
		{Segment: 0, Terms: []LinearTerm{inputTerm(9, a)}, Value: a.MulK(field.K(ins[0][9]))},
		{Segment: 1, Terms: []LinearTerm{inputTerm(3, b)}, Value: b.MulK(field.K(ins[1][3]))},
	}
	ev := func(cs []LinearClaim) *Evaluations { return &Evaluations{Linear: cs} }
	honestProof, err := ProveSegments(forgeLabel, nil, segs, ev(truth), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	same, err := forgeLinear(segs, truth, -1)
	if err != nil {
		t.Fatal(err)
	}
	if string(same.MarshalWire()) != string(honestProof.MarshalWire()) {
		t.Fatal("forgeLinear without a lie differs from ProveSegments")
	}
	for k, c := range truth {
		for lie := range 2 {
			cs := append([]LinearClaim(nil), truth...)
			cs[k].Value = c.Value.Add(field.One)
			forged, err := forgeLinear(segs, cs, lie)
			if err != nil {
				t.Fatal(err)
			}
			_, err = VerifySegments(forged, forgeLabel, nil, shapes, ev(cs), 1)
			rejected(t, fmt.Sprintf("claim %d false, batch %d's value adjusted", k, lie), err)
			if !errorsIsOpen(err) {
				t.Errorf("claim %d false, batch %d adjusted: refused by %v, not by the opening", k, lie, err)
			}
		}
	}
}

// errorsIsOpen reports whether err comes from the stacked opening (not from the
// linear sumcheck, which the forged proof passes).
func errorsIsOpen(err error) bool {
	return err != nil && !strings.Contains(err.Error(), "linear claims")
}

// forgeLinear is ProveSegments at rate 1 under forgeLabel with the linear claims
// claims and no points, whose linear sumcheck tracks the verifier's running claim
// (started from the claims' values, true or not) and, when lie ≥ 0, sends for batch
// lie the column value that makes the last check hold (the others' are true).
func forgeLinear(segs []Segment, claims []LinearClaim, lie int) (*transcript.Proof, error) {
	workers := par.New(nil, 2)
	run, err := proveSegmentRings(forgeLabel, nil, segs, 1, workers, func(*time.Duration) {}, new(SegmentsProfile))
	if err != nil {
		return nil, err
	}
	tr, stack, places, stackLog, com, rings := run.tr, run.stack, run.places, run.stackLog, run.com, run.rings
	// The linear sumcheck (proveLinear), with the verifier's running claim tracked.
	pow := claimPowers(len(claims), tr.Sample())
	batches := linearBatches(claims, len(places))
	fs, ws := make([][]field.E, len(batches)), make([][]field.E, len(batches))
	sums := make([]field.E, len(batches))
	rounds := 0
	for k, bt := range batches {
		p := places[bt.segment]
		w := make([]field.E, 1<<p.Variables)
		for _, i := range bt.claims {
			for _, tm := range claims[i].Terms {
				w[tm.Word] = w[tm.Word].Add(pow[i].Mul(tm.Coeff))
			}
			sums[k] = sums[k].Add(pow[i].Mul(claims[i].Value))
		}
		f := make([]field.E, len(w))
		for i, x := range stack[p.Offset : p.Offset+len(w)] {
			f[i] = field.FromK(x)
		}
		fs[k], ws[k] = f, w
		rounds = max(rounds, p.Variables)
	}
	var running field.E
	rho := make([]field.E, rounds)
	for r := range rho {
		var q0, q1, qInf field.E
		for k, bt := range batches {
			if r == rounds-places[bt.segment].Variables {
				running = running.Add(sums[k])
			}
			if r < rounds-places[bt.segment].Variables {
				continue
			}
			a0, a1, ai := field.SumcheckRoundLow(fs[k], ws[k])
			q0, q1, qInf = q0.Add(a0), q1.Add(a1), qInf.Add(ai)
		}
		tr.SendRoundPoly([]field.E{q0, q0.Add(q1).Add(qInf), qInf}, false)
		rho[r] = tr.Sample()
		// The verifier's polynomial: c0 = q0, c2 = qInf, c1 = running + c2.
		running = field.PolyEval([]field.E{q0, running.Add(qInf), qInf}, rho[r])
		for k, bt := range batches {
			if r < rounds-places[bt.segment].Variables {
				continue
			}
			h := len(fs[k]) / 2
			field.FoldLow(fs[k][:h], fs[k], rho[r])
			field.FoldLow(ws[k][:h], ws[k], rho[r])
			fs[k], ws[k] = fs[k][:h], ws[k][:h]
		}
	}
	vals := make([]field.E, len(batches))
	var others field.E
	for k, bt := range batches {
		vals[k] = fs[k][0]
		if k != lie {
			pt := rho[rounds-places[bt.segment].Variables:]
			others = others.Add(linearWeightAt(claims, bt.claims, pow, pt).Mul(vals[k]))
		}
	}
	if lie >= 0 {
		bt := batches[lie]
		w := linearWeightAt(claims, bt.claims, pow, rho[rounds-places[bt.segment].Variables:])
		vals[lie] = running.Add(others).Mul(w.Inv())
	}
	var points []open.PointClaim
	for k, bt := range batches {
		p := places[bt.segment]
		tr.Send(vals[k])
		points = append(points, open.PointClaim{Point: stackPoint(p, stackLog, rho[rounds-p.Variables:]), Value: vals[k]})
	}
	if err := open.ProveStackedRings(tr, com, rings, points, workers); err != nil {
		return nil, err
	}
	return tr.Proof(), nil
}

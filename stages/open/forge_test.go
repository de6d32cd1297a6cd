package open

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/testtranscript"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/transcript"
)

// Adversarial tests of the stacked opening of several ring claims
// (VerifyStackedRings, ProveStackedRings). Each asserts that the verifier rejects a
// false or malformed statement, so it passes while the code is sound.

// verifyNoPanic runs in.verify, turning a panic into an error that names it.
func (in *ringsInstance) verifyNoPanic(proof *transcript.Proof, rings []PlacedRing) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	return in.verify(proof, rings)
}

// A placement outside the stack, misaligned or virtual is refused by both sides with
// ErrClaim, before anything is read; neither side panics.
func TestForgeStackedRingsBadPlacements(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12, 12})
	good := in.rings(true)
	c, err := commit.Commit(in.stack, in.stackLog, 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	top := 1 << in.stackLog
	for name, p := range map[string]Placement{
		"negative offset":      {Variables: 12, Offset: -(1 << 12)},
		"misaligned":           {Variables: 12, Offset: 1 << 11},
		"past the end":         {Variables: 12, Offset: top},
		"straddling the end":   {Variables: 13, Offset: top - 1<<12},
		"wider than the stack": {Variables: in.stackLog + 1, Offset: 0},
		"virtual":              Virtual,
		"one word past":        {Variables: 0, Offset: top},
	} {
		for _, prover := range []bool{false, true} {
			rings := in.rings(prover)
			rings[1].Place = p
			if prover && p.Variables >= 0 {
				rings[1].Claim.Weights = make([]field.E, 1<<p.Variables)
			}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("PANIC: %v", r)
					}
				}()
				if prover {
					err = ProveStackedRings(transcript.NewProver(testLabel, nil), c, rings, in.pc, par.Serial())
				} else {
					err = in.verify(in.prove(t, good, 1), rings)
				}
			}()
			if !errors.Is(err, ErrClaim) {
				t.Errorf("%s (prover %v): %v, want ErrClaim", name, prover, err)
			}
		}
	}
}

// TestForgeStackedRingsOffsetOverflow: a placement whose Offset+2^Variables overflows
// int passes checkStacked (the sum wraps negative). The verifier then reads the claim
// as one on the stack's last word (SelectorEq keeps only the low StackLog bits of the
// selector) and the prover panics slicing its weight buffer.
func TestForgeStackedRingsOffsetOverflow(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	c, err := commit.Commit(in.stack, in.stackLog, 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	last := 1<<in.stackLog - 1
	// Prove the true claim "last word = v" at its honest placement, then present it
	// to the verifier under the placement {0, MaxInt}.
	honest := in.rings(true)
	honest = append(honest, PlacedRing{Place: Placement{Variables: 0, Offset: last},
		Claim: RingClaim{Target: field.FromK(in.stack[last]), Weights: []field.E{field.One},
			WeightAt: func([]field.E) field.E { return field.One }}})
	proof := in.prove(t, honest, 1)
	forged := in.rings(false)
	forged = append(forged, PlacedRing{Place: Placement{Variables: 0, Offset: math.MaxInt},
		Claim: RingClaim{Target: field.FromK(in.stack[last]), WeightAt: func([]field.E) field.E { return field.One }}})
	verr := in.verifyNoPanic(proof, forged)
	var perr error
	func() {
		defer func() {
			if r := recover(); r != nil {
				perr = fmt.Errorf("PANIC: %v", r)
			}
		}()
		bad := in.rings(true)
		bad = append(bad, PlacedRing{Place: Placement{Variables: 0, Offset: math.MaxInt},
			Claim: RingClaim{Target: field.FromK(in.stack[last]), Weights: []field.E{field.One},
				WeightAt: func([]field.E) field.E { return field.One }}})
		perr = ProveStackedRings(transcript.NewProver(testLabel, nil), c, bad, in.pc, par.Serial())
	}()
	if !errors.Is(verr, ErrClaim) || !errors.Is(perr, ErrClaim) {
		t.Fatalf("a placement at Offset MaxInt passed checkStacked by overflow (verifier: %v; prover: %v)", verr, perr)
	}
}

// batchingChallenge is the batching challenge the verifier draws on in's honest
// claims: the first sample of VerifyStackedRings, read through a recording transcript
// (so the test follows whatever the verifier binds before it).
func (in *ringsInstance) batchingChallenge(t *testing.T, proof *transcript.Proof) field.E {
	t.Helper()
	tr := &firstSample{Verifier: transcript.NewVerifier(proof, testLabel, nil)}
	root, err := ReceiveRoot(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyStackedRings(tr, root, commit.FullShape(in.stackLog, 1), in.rings(false), in.pc); err != nil {
		t.Fatal(err)
	}
	return tr.first
}

// firstSample records the first challenge drawn after the root.
type firstSample struct {
	*transcript.Verifier
	first field.E
	drawn bool
}

func (f *firstSample) Sample() field.E {
	x := f.Verifier.Sample()
	if !f.drawn {
		f.first, f.drawn = x, true
	}
	return x
}

// Two claims on one column with one weight must both be true: equal lies, opposite
// lies, or lies that cancel at a guessed challenge are refused.
func TestForgeStackedRingsDuplicateClaims(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	// Claim 2 repeats claim 1 (same column, same point).
	in.places = append(in.places, in.places[1])
	in.points = append(in.points, in.points[1])
	in.targets = append(in.targets, in.targets[1])
	proof := in.prove(t, in.rings(true), 1)
	if err := in.verify(proof, in.rings(false)); err != nil {
		t.Fatal(err)
	}
	d := field.E{C0: 5, C1: 7, C2: 11}
	guess := field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64())}
	for name, lie := range map[string][2]field.E{
		"equal lies":     {d, d},
		"one lie":        {field.Zero, d},
		"guessed cancel": {guess.Mul(d), d}, // cancels only if α were guess
	} {
		bad := in.rings(false)
		bad[1].Claim.Target = bad[1].Claim.Target.Add(lie[0])
		bad[2].Claim.Target = bad[2].Claim.Target.Add(lie[1])
		if err := in.verifyNoPanic(proof, bad); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestForgeStackedRingsUnboundTargets: were the batching challenge α drawn before the
// ring targets entered the transcript, a caller whose targets the transcript does not
// already fix would let the prover choose them after α: T₁ + α·d on the first column
// and T₂ + d on the second pool to the true T₁ + α·T₂ in characteristic 2. Several
// ring claims now bind their targets before α (the forge found this; one ring
// claim's stream is unchanged), so the shifted pair, computed against the honest α,
// meets another α and is refused.
func TestForgeStackedRingsUnboundTargets(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	proof := in.prove(t, in.rings(true), 1)
	alpha := in.batchingChallenge(t, proof)
	d := field.E{C0: 1, C1: 2, C2: 3}
	bad := in.rings(false)
	bad[0].Claim.Target = bad[0].Claim.Target.Add(alpha.Mul(d))
	bad[1].Claim.Target = bad[1].Claim.Target.Add(d)
	if err := in.verifyNoPanic(proof, bad); err == nil {
		t.Fatal("forgery: VerifyStackedRings draws the batching challenge before binding ring targets; false targets T₁+α·d, T₂+d verify when a caller's targets are not transcript-derived")
	} else if strings.HasPrefix(err.Error(), "PANIC") {
		t.Fatal(err)
	}
}

// A zero-variable column (one word) is an ordinary claim: the true word verifies,
// another value does not; so does a claim whose column is the whole stack.
func TestForgeStackedRingsExtremeColumns(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	for _, at := range []int{0, 5, 1<<12 + 3, 1<<in.stackLog - 1} {
		word := PlacedRing{Place: Placement{Variables: 0, Offset: at},
			Claim: RingClaim{Target: field.FromK(in.stack[at]), Weights: []field.E{field.One},
				WeightAt: func([]field.E) field.E { return field.One }}}
		rings := append(in.rings(true), word)
		proof := in.prove(t, rings, 1)
		vr := append(in.rings(false), word)
		if err := in.verifyNoPanic(proof, vr); err != nil {
			t.Fatalf("word %d: %v", at, err)
		}
		vr[len(vr)-1].Claim.Target = field.FromK(in.stack[at] ^ 1)
		if err := in.verifyNoPanic(proof, vr); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
			t.Fatalf("word %d, a false value: %v", at, err)
		}
		// The same claim presented on a neighbouring word.
		vr[len(vr)-1].Claim.Target = field.FromK(in.stack[at])
		vr[len(vr)-1].Place.Offset = at ^ 1
		if in.stack[at] != in.stack[at^1] {
			if err := in.verifyNoPanic(proof, vr); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
				t.Fatalf("word %d claimed at %d: %v", at, at^1, err)
			}
		}
	}
	// The whole stack as one column beside a smaller one.
	whole := Placement{Variables: in.stackLog, Offset: 0}
	pt := randPoint(rng, in.stackLog)
	tw := make([]field.E, 1<<in.stackLog)
	field.EqTable(tw, pt)
	all := PlacedRing{Place: whole, Claim: RingClaim{Target: field.EvalMLEK(in.stack, pt), Weights: tw,
		WeightAt: func(x []field.E) field.E { return field.EqEval(pt, x) }}}
	proof := in.prove(t, append(in.rings(true), all), 2)
	all.Claim.Weights = nil
	vr := append(in.rings(false), all)
	if err := in.verifyNoPanic(proof, vr); err != nil {
		t.Fatalf("whole-stack column: %v", err)
	}
	vr[len(vr)-1].Claim.Target = vr[len(vr)-1].Claim.Target.Add(field.One)
	if err := in.verifyNoPanic(proof, vr); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
		t.Fatalf("whole-stack column, a false target: %v", err)
	}
}

// A verifier weight that differs from the prover's in one entry of one column (its
// multilinear extension differs off the cube) is refused, whichever column.
func TestForgeStackedRingsWeightMismatch(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12, 12, 9})
	proof := in.prove(t, in.rings(true), 1)
	for col := range in.places {
		pt := in.points[col]
		table := make([]field.E, 1<<len(pt))
		field.EqTable(table, pt)
		j := rng.IntN(len(table))
		table[j] = table[j].Add(field.One)
		bad := in.rings(false)
		bad[col].Claim.WeightAt = func(x []field.E) field.E { return field.EvalMLE(table, x) }
		if err := in.verifyNoPanic(proof, bad); !errors.Is(err, ErrTerminal) {
			t.Fatalf("column %d, weight entry %d changed: %v", col, j, err)
		}
	}
	// Two columns of one size exchanged weights (each weight on the other's column).
	bad := in.rings(false)
	bad[1].Claim.WeightAt, bad[2].Claim.WeightAt = bad[2].Claim.WeightAt, bad[1].Claim.WeightAt
	if err := in.verifyNoPanic(proof, bad); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
		t.Fatalf("exchanged weights: %v", err)
	}
	// Claims in another order (targets follow their columns): the powers move.
	bad = in.rings(false)
	bad[0], bad[3] = bad[3], bad[0]
	if err := in.verifyNoPanic(proof, bad); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
		t.Fatalf("claims reordered: %v", err)
	}
	// One claim dropped or one added (a true one).
	if err := in.verifyNoPanic(proof, in.rings(false)[:3]); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
		t.Fatalf("a claim dropped: %v", err)
	}
	extra := in.rings(false)
	extra = append(extra, extra[0])
	if err := in.verifyNoPanic(proof, extra); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
		t.Fatalf("a true claim added: %v", err)
	}
}

func fuzzCount() int {
	if heavy() {
		return 2000
	}
	return 200
}

// TestForgeStackedRingsFuzz: random mutations of a valid proof with three ring claims
// (two sharing a column) and a point claim are rejected and never panic.
func TestForgeStackedRingsFuzz(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12, 10})
	in.places = append(in.places, in.places[1])
	in.points = append(in.points, randPoint(rng, in.places[1].Variables))
	p := in.places[1]
	in.targets = append(in.targets, field.EvalMLEK(in.stack[p.Offset:p.Offset+1<<p.Variables], in.points[3]))
	proof := in.prove(t, in.rings(true), 2)
	rings := in.rings(false)
	if err := in.verify(proof, rings); err != nil {
		t.Fatal(err)
	}
	parsed := 0
	for range fuzzCount() {
		q, what, ok := testtranscript.Mutate(rng, proof)
		if !ok {
			continue
		}
		parsed++
		err := in.verifyNoPanic(q, rings)
		if err == nil {
			if what[:4] == "byte" && equalProofs(q, proof) {
				continue // a byte the parse ignores (e.g. a wire form's padding)
			}
			t.Fatalf("%s: accepted", what)
		}
		if strings.HasPrefix(err.Error(), "PANIC") {
			t.Fatalf("%s: %v", what, err)
		}
	}
	t.Logf("%d mutations parsed and were rejected", parsed)
}

// equalProofs reports whether two proofs carry the same stream and the same raw form.
func equalProofs(a, b *transcript.Proof) bool {
	return string(a.MarshalRaw()) == string(b.MarshalRaw())
}

// A proof verified against another root than the one it sent is refused.
func TestForgeStackedRingsOtherRoot(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	proof := in.prove(t, in.rings(true), 1)
	tr := transcript.NewVerifier(proof, testLabel, nil)
	if _, err := ReceiveRoot(tr); err != nil {
		t.Fatal(err)
	}
	var other merkle.Digest
	other[0] = 1
	if err := VerifyStackedRings(tr, other, commit.FullShape(in.stackLog, 1), in.rings(false), in.pc); err == nil {
		t.Fatal("another root verified")
	}
}

// Point claims are bound before the batching challenge: one point claimed twice with
// different values, or a true value moved to another point, is refused.
func TestForgeStackedRingsPointClaims(t *testing.T) {
	rng := testrand.New(t)
	in := newRingsInstance(rng, []int{13, 12})
	pt := in.pc[0].Point
	v := in.pc[0].Value
	// Region points: high coordinates boolean (one column's region).
	region := randPoint(rng, 12)
	for k := 12; k < in.stackLog; k++ {
		region = append(region, field.FromK(field.K((k+1)&1))) // selector 0b…0101
	}
	rv := field.EvalMLEK(in.stack, region)
	in.pc = []PointClaim{{pt, v}, {pt, v}, {region, rv}}
	proof := in.prove(t, in.rings(true), 1)
	if err := in.verify(proof, in.rings(false)); err != nil {
		t.Fatal(err)
	}
	check := func(name string, pc []PointClaim) {
		t.Helper()
		saved := in.pc
		in.pc = pc
		defer func() { in.pc = saved }()
		if err := in.verifyNoPanic(proof, in.rings(false)); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	d := field.E{C1: 9}
	check("one point, two values", []PointClaim{{pt, v}, {pt, v.Add(d)}, {region, rv}})
	check("equal lies", []PointClaim{{pt, v.Add(d)}, {pt, v.Add(d)}, {region, rv}})
	check("a region value at the other region", []PointClaim{{pt, v}, {pt, v},
		{append(append([]field.E(nil), region[:12]...), regionFlip(region[12:])...), rv}})
	check("values exchanged", []PointClaim{{pt, rv}, {pt, v}, {region, v}})
	short := append([]field.E(nil), pt[:len(pt)-1]...)
	saved := in.pc
	in.pc = []PointClaim{{short, v}}
	if err := in.verifyNoPanic(proof, in.rings(false)); !errors.Is(err, ErrClaim) {
		t.Fatalf("a point of the wrong length: %v", err)
	}
	in.pc = saved
}

// regionFlip returns boolean coordinates with the first one flipped.
func regionFlip(high []field.E) []field.E {
	out := append([]field.E(nil), high...)
	out[0] = out[0].Add(field.One)
	return out
}

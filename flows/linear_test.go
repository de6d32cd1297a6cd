package flows

import (
	"bytes"

	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// inputClaims is a linear claim per segment (segment i holding inputs[i]) on the
// layered blocks' input word (word 1 of each 2^13-column block, 128 words per slot):
// Σ_s a_s·x_s = Σ_s a_s·xs[s] over the live slots.
func inputClaims(rng interface{ Uint64() uint64 }, inputs ...[]uint64) []LinearClaim {
	const wordsPerSlot = 1 << (13 - 6)
	var out []LinearClaim
	for seg, xs := range inputs {
		c := LinearClaim{Segment: seg}
		for s, x := range xs {
			a := field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
			c.Terms = append(c.Terms, LinearTerm{Word: 1 + s*wordsPerSlot, Coeff: a})
			c.Value = c.Value.Add(a.MulK(field.K(x)))
		}
		out = append(out, c)
	}
	return out
}

func TestSegmentsLinearClaims(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	const n = 12
	xs, zs := make([]uint64, n), make([]uint64, n)
	for i := range xs {
		xs[i], zs[i] = rng.Uint64(), rng.Uint64()
	}
	claims := inputClaims(rng, zs, xs)
	// An E-valued term: words 1, 2, 3 of slot 5 read as one E value x, coefficient a.
	a := field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: 7}
	proofE := LinearClaim{Segment: 1}
	for _, tm := range LinearTermsE(1+5*128, a) {
		proofE.Terms = append(proofE.Terms, tm)
	}
	const label = "leanpipe-segments-linear"
	shapes := []SegmentShape{{layered, n, nil}, {layered, n, nil}}
	segs := []Segment{layeredSegment(layered, zs), layeredSegment(layered, xs)}
	// Find the E value the words hold by proving once with a claim of any value is
	// not possible (the prover does not check claims); compute it from a witness.
	wit := make([]field.K, 1<<(13-6+4))
	as, bs := make([]field.K, len(wit)), make([]field.K, len(wit))
	if err := segs[1].Fill(par.Serial(), 4, wit, as, bs); err != nil {
		t.Fatal(err)
	}
	x := field.E{C0: wit[1+5*128], C1: wit[2+5*128], C2: wit[3+5*128]}
	proofE.Value = a.Mul(x)
	claims = append(claims, proofE)
	ev := func(cs []LinearClaim) *Evaluations { return &Evaluations{Linear: cs} }

	proof, err := ProveSegments(label, nil, segs, ev(claims), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, label, nil, shapes, ev(claims), 1); err != nil {
		t.Fatal(err)
	}
	one, err := ProveSegments(label, nil, segs, ev(claims), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(proof.MarshalWire(), one.MarshalWire()) {
		t.Fatal("the proof depends on the workers")
	}
	edit := func(f func(cs []LinearClaim)) []LinearClaim {
		cs := make([]LinearClaim, len(claims))
		for i, c := range claims {
			cs[i] = c
			cs[i].Terms = append([]LinearTerm(nil), c.Terms...)
		}
		f(cs)
		return cs
	}
	for name, cs := range map[string][]LinearClaim{
		"another value":       edit(func(cs []LinearClaim) { cs[0].Value = cs[0].Value.Add(field.One) }),
		"another E value":     edit(func(cs []LinearClaim) { cs[2].Value = cs[2].Value.Add(field.E{C2: 1}) }),
		"another coefficient": edit(func(cs []LinearClaim) { cs[1].Terms[3].Coeff = cs[1].Terms[3].Coeff.Add(field.One) }),
		"another word":        edit(func(cs []LinearClaim) { cs[1].Terms[3].Word++ }),
		"a claim dropped":     edit(func(cs []LinearClaim) {})[:2],
		"on another segment":  edit(func(cs []LinearClaim) { cs[2].Segment = 0 }),
		"a term on padding only": edit(func(cs []LinearClaim) {
			cs[0].Terms = append(cs[0].Terms, LinearTerm{Word: 1 + 13*128, Coeff: field.One})
		}),
	} {
		if _, err := VerifySegments(proof, label, nil, shapes, ev(cs), 1); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
	// A witness that breaks the claims: the prover runs (it does not check them), the
	// verifier refuses.
	ys := append([]uint64(nil), xs...)
	ys[7] ^= 1 << 40
	bad, err := ProveSegments(label, nil, []Segment{layeredSegment(layered, zs), layeredSegment(layered, ys)}, ev(claims), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(bad, label, nil, shapes, ev(claims), 1); err == nil {
		t.Fatal("a witness off the claims verified")
	}
	// Every scalar of the proof matters once the claims are in it.
	for at := range proof.Stream {
		if at%7 != 0 {
			continue
		}
		mut := *proof
		mut.Stream = append([]field.E(nil), proof.Stream...)
		mut.Stream[at] = mut.Stream[at].Add(field.E{C1: 1})
		if _, err := VerifySegments(&mut, label, nil, shapes, ev(claims), 1); err == nil {
			t.Fatalf("scalar %d changed: verified", at)
		}
	}
	// Out-of-range words are input errors, not panics.
	if _, err := VerifySegments(proof, label, nil, shapes, ev(edit(func(cs []LinearClaim) { cs[0].Terms[0].Word = 1 << 11 })), 1); err == nil {
		t.Fatal("a word past the column verified")
	}
}

// TestEvalColumn: the column's extension read through its Boolean coordinates equals
// the full evaluation.
func TestEvalColumn(t *testing.T) {
	rng := testrand.New(t)
	col := make([]field.K, 1<<10)
	for i := range col {
		col[i] = field.K(rng.Uint64())
	}
	rnd := func() field.E {
		return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	for trial := range 50 {
		p := make([]field.E, 10)
		for k := range p {
			switch rng.IntN(3) {
			case 0:
				p[k] = field.Zero
			case 1:
				p[k] = field.One
			default:
				p[k] = rnd()
			}
		}
		if trial == 0 {
			clear(p) // all Boolean
		}
		if got, want := evalColumn(col, p), field.EvalMLEK(col, p); got != want {
			t.Fatalf("trial %d: %v, want %v", trial, got, want)
		}
	}
}

// TestSegmentsLinearClaimsOfSizes: segments of different sizes join the one sumcheck at
// different rounds; true claims on each verify, a false one on the smallest does not.
func TestSegmentsLinearClaimsOfSizes(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(4)
	ins := [][]uint64{make([]uint64, 40), make([]uint64, 9), make([]uint64, 130)}
	for _, xs := range ins {
		for i := range xs {
			xs[i] = rng.Uint64()
		}
	}
	claims := inputClaims(rng, ins...)
	var segs []Segment
	var shapes []SegmentShape
	for _, xs := range ins {
		segs = append(segs, layeredSegment(layered, xs))
		shapes = append(shapes, SegmentShape{layered, len(xs), nil})
	}
	const label = "leanpipe-segments-linear-sizes"
	ev := func(cs []LinearClaim) *Evaluations { return &Evaluations{Linear: cs} }
	proof, err := ProveSegments(label, nil, segs, ev(claims), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, label, nil, shapes, ev(claims), 1); err != nil {
		t.Fatal(err)
	}
	bad := append([]LinearClaim(nil), claims...)
	bad[1].Value = bad[1].Value.Add(field.One)
	if _, err := VerifySegments(proof, label, nil, shapes, ev(bad), 1); err == nil {
		t.Fatal("a false claim on the smallest segment verified")
	}
	lie, err := ProveSegments(label, nil, segs, ev(bad), 1, par.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(lie, label, nil, shapes, ev(bad), 1); err == nil {
		t.Fatal("a proof of a false claim on the smallest segment verified")
	}
}

package zerocheck

import (
	"errors"
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/internal/vectors/hexfield"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// parseE decodes a KAT E element (internal/vectors/hexfield).
var parseE = hexfield.E

func TestFixedChallengesKAT(t *testing.T) {
	var kat [][3]string
	vectors.KAT(t, "flock_fixed_challenges", &kat)
	got := FixedChallenges()
	if len(kat) != NInner || len(got) != NInner {
		t.Fatalf("got %d challenges, KAT has %d, want %d", len(got), len(kat), NInner)
	}
	for i := range kat {
		if want := parseE(t, kat[i]); got[i] != want {
			t.Errorf("challenge %d = %v, want %v", i, got[i], want)
		}
	}
}

func TestSkipLagrangeKAT(t *testing.T) {
	var kat []struct {
		Z           [3]string   `json:"z"`
		Weights     [][3]string `json:"weights_over_phi_0_64"`
		Coset       [][3]string `json:"coset_values"`
		Interpolate [3]string   `json:"interpolate_zero_then_coset_at_z"`
	}
	vectors.KAT(t, "skip_lagrange", &kat)
	if len(kat) == 0 {
		t.Fatal("empty skip_lagrange section")
	}
	d := domain()
	for n, c := range kat {
		z := parseE(t, c.Z)
		var w [skipSize]field.E
		d.lagrange64(w[:], z)
		if len(c.Weights) != skipSize {
			t.Fatalf("case %d: %d weights", n, len(c.Weights))
		}
		for i := range w {
			if want := parseE(t, c.Weights[i]); w[i] != want {
				t.Fatalf("case %d: weight %d = %v, want %v", n, i, w[i], want)
			}
		}
		if len(c.Coset) != skipSize {
			t.Fatalf("case %d: %d coset values", n, len(c.Coset))
		}
		{
			coset := make([]field.E, skipSize)
			for i := range coset {
				coset[i] = parseE(t, c.Coset[i])
			}
			if got, want := d.interpolateCoset(coset, z), parseE(t, c.Interpolate); got != want {
				t.Fatalf("case %d: interpolation = %v, want %v", n, got, want)
			}
		}
	}
}

// The bit-sliced product must be the GF(2^8) product of the PHI images, lane by lane.
func TestMulPlanes(t *testing.T) {
	rng := testrand.New(t)
	d := domain()
	for range 50 {
		var a, b [8]uint64
		for p := range a {
			a[p], b[p] = rng.Uint64(), rng.Uint64()
		}
		prod := mulPlanes(&a, &b)
		_ = d
		var ab, bb, pb [skipSize]byte
		planesToBytes(&a, &ab)
		planesToBytes(&b, &bb)
		planesToBytes(&prod, &pb)
		for j := range ab {
			if field.Phi8(ab[j]).Mul(field.Phi8(bb[j])) != field.Phi8(pb[j]) {
				t.Fatalf("lane %d: %#x·%#x gave %#x", j, ab[j], bb[j], pb[j])
			}
		}
	}
}

func TestTailMass(t *testing.T) {
	rng := testrand.New(t)
	r := make([]field.E, 5)
	for i := range r {
		r[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	eq := make([]field.E, 32)
	field.EqTable(eq, r)
	for start := 0; start <= 32; start++ {
		want := field.Zero
		for j := start; j < 32; j++ {
			want = want.Add(eq[j])
		}
		if got := tailMass(r, start); got != want {
			t.Fatalf("tailMass(start %d) = %v, want %v", start, got, want)
		}
	}
}

func testSizes() []int {
	if testing.Short() {
		return []int{13, 15, 17}
	}
	return []int{13, 15, 17, 18}
}

// The optimized prover must put exactly the naive prover's scalars on the stream.
func TestMatchesNaive(t *testing.T) {
	rng := testrand.New(t)
	for _, m := range testSizes() {
		in := randInput(rng, m, 0, 0)
		got, res := proveStream(t, in, 2)
		p := transcript.NewProver(testLabel, nil)
		want := naiveProve(t, p, in)
		sameStream(t, fmt.Sprintf("m=%d", m), got, p.Proof().Stream)
		if !sameResult(res, want) {
			t.Fatalf("m=%d: prover result differs from the naive one", m)
		}
		if n := len(got); n != skipSize+2*(m-KSkip)+2 {
			t.Fatalf("m=%d: %d scalars", m, n)
		}
	}
}

// Round trip: Verify on the prover's stream yields the prover's result, which is the
// true quirky evaluation of a, b and c.
func TestRoundTripAndClaims(t *testing.T) {
	rng := testrand.New(t)
	sizes := []int{13, 17, 18, 19, 20}
	if testing.Short() {
		sizes = []int{13, 17}
	}
	for _, m := range sizes {
		in := randInput(rng, m, 0, 0)
		stream, res := proveStream(t, in, 2)
		v := transcript.NewVerifier(&transcript.Proof{Stream: stream}, testLabel, nil)
		got, err := Verify(v, m)
		if err != nil {
			t.Fatalf("m=%d: Verify: %v", m, err)
		}
		if err := v.Finish(); err != nil {
			t.Fatalf("m=%d: stream not consumed: %v", m, err)
		}
		if !sameResult(got, res) {
			t.Fatalf("m=%d: verifier result differs from the prover's", m)
		}
		if m > 18 {
			continue // the direct evaluations below are quadratic-ish; keep them small
		}
		for name, w := range map[string][]field.K{"a": in.A, "b": in.B, "c": in.C} {
			want := quirkyEval(w, got.ZSkip, got.Chi)
			claim := map[string]field.E{"a": got.VA, "b": got.VB, "c": got.VC}[name]
			if claim != want {
				t.Fatalf("m=%d: claim on %s is not its quirky evaluation", m, name)
			}
		}
	}
}

func TestWorkerIndependence(t *testing.T) {
	rng := testrand.New(t)
	in := randInput(rng, 18, 14, 3)
	ref, _ := proveStream(t, in, 1)
	for _, w := range []int{2, 3, 4} {
		got, _ := proveStream(t, in, w)
		sameStream(t, fmt.Sprintf("workers=%d", w), got, ref)
	}
	// Reused buffers, across sizes, change nothing either.
	small := randInput(rng, 17, 14, 8)
	smallRef, _ := proveStream(t, small, 1)
	buf := new(Buffers)
	for n, c := range []struct {
		in   Input
		want []field.E
	}{{in, ref}, {small, smallRef}, {in, ref}, {small, smallRef}} {
		p := transcript.NewProver(testLabel, nil)
		if _, err := ProveWith(p, c.in, par.New(nil, 2), buf); err != nil {
			t.Fatal(err)
		}
		sameStream(t, fmt.Sprintf("reused buffers, proof %d", n), p.Proof().Stream, c.want)
	}
}

// The padding-tail shortcut must not change a byte: for each live count, the stream
// with the shortcut equals the stream of a prover that reads every instance.
func TestTailSkip(t *testing.T) {
	rng := testrand.New(t)
	type tc struct{ m, logInst int }
	// Instances of 2^16 and 2^17 bits have pads of more than one split-eq row,
	// which the workers share.
	cases := []tc{{17, 14}, {17, 13}, {15, 14}, {14, 14}, {13, 13}, {18, 16}, {19, 17}, {20, 14}}
	if testing.Short() {
		cases = cases[:7]
	}
	for _, c := range cases {
		count := 1 << (c.m - c.logInst)
		lives := []int{}
		if count <= 16 {
			for l := 0; l <= count; l++ {
				lives = append(lives, l)
			}
		} else {
			// 0, mid-row, each split-eq row boundary of the bits round (8 instances
			// of 128 pairs per 1024-pair row), the first and the last instance.
			lives = []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, count - 1, count}
		}
		for _, live := range lives {
			in := randInput(rng, c.m, c.logInst, live)
			got, _ := proveStream(t, in, 2)
			full := in
			full.Live = count
			want, _ := proveStream(t, full, 2)
			sameStream(t, fmt.Sprintf("m=%d logInst=%d live=%d", c.m, c.logInst, live), got, want)
			flat := in
			flat.LogInstance = 0
			want, _ = proveStream(t, flat, 1)
			sameStream(t, fmt.Sprintf("m=%d logInst=%d live=%d (no structure)", c.m, c.logInst, live), got, want)
		}
	}
}

// A false statement cannot leave all three claims true.
func TestFalseStatement(t *testing.T) {
	rng := testrand.New(t)
	for _, m := range []int{13, 15} {
		for seed := 0; seed < 10; seed++ {
			in := randInput(rng, m, 0, 0)
			for range 1 + rng.IntN(3) {
				i := rng.IntN(1 << m)
				in.C[i>>6] ^= 1 << (i & 63)
			}
			stream, _ := proveStream(t, in, 1)
			res, err := verifyStream(stream, m)
			if err != nil {
				t.Fatalf("m=%d: Verify: %v", m, err)
			}
			if res.VA == quirkyEval(in.A, res.ZSkip, res.Chi) && res.VB == quirkyEval(in.B, res.ZSkip, res.Chi) &&
				res.VC == quirkyEval(in.C, res.ZSkip, res.Chi) {
				t.Fatalf("m=%d seed %d: false statement left every claim true", m, seed)
			}
		}
	}
}

// Every scalar of the stream matters: flipping one changes the result (Verify
// itself only fails on shape).
func TestTamperEveryScalar(t *testing.T) {
	rng := testrand.New(t)
	m := 14
	in := randInput(rng, m, 0, 0)
	stream, honest := proveStream(t, in, 1)
	for i := range stream {
		bad := append([]field.E(nil), stream...)
		bad[i].C1 ^= 1 << (i % 64)
		res, err := verifyStream(bad, m)
		if err != nil {
			continue
		}
		if sameResult(res, honest) {
			t.Fatalf("flipping scalar %d left the result unchanged", i)
		}
		if res.VA == quirkyEval(in.A, res.ZSkip, res.Chi) && res.VB == quirkyEval(in.B, res.ZSkip, res.Chi) &&
			res.VC == quirkyEval(in.C, res.ZSkip, res.Chi) {
			t.Fatalf("flipping scalar %d left every claim true", i)
		}
	}
	for n := 0; n < len(stream); n += 7 {
		if _, err := verifyStream(stream[:n], m); err == nil {
			t.Fatalf("a stream truncated to %d scalars was accepted", n)
		}
	}
	if _, err := verifyStream(stream, MinVars-1); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("m = %d: got %v, want ErrTooSmall", MinVars-1, err)
	}
}

func TestBadInput(t *testing.T) {
	rng := testrand.New(t)
	in := randInput(rng, 15, 14, 1)
	for name, f := range map[string]func(*Input){
		"short":     func(in *Input) { in.A = in.A[:10] },
		"live":      func(in *Input) { in.Live = 3 },
		"negative":  func(in *Input) { in.Live = -1 },
		"instance":  func(in *Input) { in.LogInstance = 12 },
		"too small": func(in *Input) { in.M = 12 },
	} {
		bad := in
		f(&bad)
		p := transcript.NewProver(testLabel, nil)
		if _, err := Prove(p, bad, par.New(nil, 1)); !errors.Is(err, ErrInput) {
			t.Errorf("%s: got %v, want ErrInput", name, err)
		}
	}
}

package recursion

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

var claimsLabel = []byte("recursion-claims-test")

func randomWeight(r *rand.Rand, vars int) Weight { return randomTensor(r, LowBits, vars) }

// randomTensor is a tensor weight over 2^logSize indices with 2^lowLog random low
// entries and random high coordinates.
func randomTensor(r *rand.Rand, lowLog, logSize int) circuit.Tensor {
	w := circuit.Tensor{Low: make([]field.E, 1<<lowLog), High: make([]field.E, logSize-lowLog)}
	for i := range w.Low {
		w.Low[i] = randomE(r)
	}
	for i := range w.High {
		w.High[i] = randomE(r)
	}
	return w
}

// trueClaims draws n claims with random tensor weights on c and their true values.
func trueClaims(r *rand.Rand, c *circuit.Circuit, n int) []MatrixClaim {
	claims := make([]MatrixClaim, n)
	e, w := make([]field.E, c.Size()), make([]field.E, c.Size())
	for i := range claims {
		cl := MatrixClaim{Row: randomWeight(r, c.LogSize()), Col: randomWeight(r, c.LogSize())}
		cl.Row.Fill(e)
		cl.Col.Fill(w)
		cl.VA, cl.VB = c.BilinearPair(e, w)
		claims[i] = cl
	}
	return claims
}

func batch(t *testing.T, c *circuit.Circuit, prove, verify []MatrixClaim) (MatrixClaim, MatrixClaim, error) {
	t.Helper()
	p := transcript.NewProver(claimsLabel, nil)
	got, err := BatchMatrixClaims(p, c, prove)
	if err != nil {
		t.Fatal(err)
	}
	v := transcript.NewVerifier(p.Proof(), claimsLabel, nil)
	out, err := VerifyMatrixClaims(v, c.LogSize(), verify)
	if err == nil {
		err = v.Finish()
	}
	return got, out, err
}

func TestWeightEval(t *testing.T) {
	r := testrand.New(t)
	w := randomWeight(r, 10)
	tab := make([]field.E, 1<<10)
	w.Fill(tab)
	pt := make([]field.E, 10)
	for i := range pt {
		pt[i] = randomE(r)
	}
	if got, want := weightEval(w, pt), field.EvalMLE(tab, pt); got != want {
		t.Fatalf("Eval %v, the table's extension %v", got, want)
	}
	// EqWeight is the equality kernel.
	eqw := EqWeight(pt)
	eqt := make([]field.E, 1<<10)
	eqw.Fill(tab)
	field.EqTable(eqt, pt)
	for i := range tab {
		if tab[i] != eqt[i] {
			t.Fatalf("EqWeight entry %d", i)
		}
	}
}

func TestBatchMatrixClaims(t *testing.T) {
	c := circuit.BLAKE2s()
	r := testrand.New(t)
	for _, n := range []int{1, 2, 5} {
		claims := trueClaims(r, c, n)
		got, out, err := batch(t, c, claims, claims)
		if err != nil {
			t.Fatalf("%d claims: %v", n, err)
		}
		if got.VA != out.VA || got.VB != out.VB {
			t.Fatalf("%d claims: prover and verifier disagree on the batched claim", n)
		}
		if err := CheckMatrixClaim(c, out); err != nil {
			t.Fatalf("%d claims: the batched claim: %v", n, err)
		}
		// A batched claim batches again (a carried claim beside fresh ones).
		_, again, err := batch(t, c, append([]MatrixClaim{out}, claims[0]), append([]MatrixClaim{out}, claims[0]))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckMatrixClaim(c, again); err != nil {
			t.Fatalf("re-batched claim: %v", err)
		}
	}
}

func TestBatchRejectsFalseClaims(t *testing.T) {
	c := circuit.BLAKE2s()
	r := testrand.New(t)
	claims := trueClaims(r, c, 3)
	// The verifier given a claim with one value changed (the prover batched the true
	// ones): the final identity fails.
	for _, which := range []string{"VA", "VB"} {
		lie := append([]MatrixClaim(nil), claims...)
		if which == "VA" {
			lie[1].VA = lie[1].VA.Add(field.One)
		} else {
			lie[1].VB = lie[1].VB.Add(field.One)
		}
		if _, _, err := batch(t, c, claims, lie); !errors.Is(err, ErrBatch) {
			t.Fatalf("a changed %s: %v", which, err)
		}
		// A prover that batches the false claim as given ends with a claim that the
		// native check refuses.
		_, out, err := batch(t, c, lie, lie)
		if err == nil {
			if err := CheckMatrixClaim(c, out); !errors.Is(err, ErrClaim) {
				t.Fatalf("a false %s batched to a claim the native check accepts: %v", which, err)
			}
		} else if !errors.Is(err, ErrBatch) {
			t.Fatal(err)
		}
	}
	// A changed weight is a different claim.
	lie := append([]MatrixClaim(nil), claims...)
	lie[2].Col.High = append([]field.E(nil), lie[2].Col.High...)
	lie[2].Col.High[0] = lie[2].Col.High[0].Add(field.One)
	if _, _, err := batch(t, c, claims, lie); err == nil {
		t.Fatal("a changed column weight verified")
	}
	// A round polynomial changed in the proof.
	p := transcript.NewProver(claimsLabel, nil)
	if _, err := BatchMatrixClaims(p, c, claims); err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 7, 2*c.LogSize()*2 - 1, 2*c.LogSize()*2 + 1} {
		proof := p.Proof()
		bad := *proof
		bad.Stream = append(bad.Stream[:0:0], proof.Stream...)
		bad.Stream[at] = bad.Stream[at].Add(field.One)
		v := transcript.NewVerifier(&bad, claimsLabel, nil)
		if _, err := VerifyMatrixClaims(v, c.LogSize(), claims); !errors.Is(err, ErrBatch) {
			t.Fatalf("scalar %d changed: %v", at, err)
		}
	}
	// The native check refuses a false claim.
	bad := claims[0]
	bad.VB = bad.VB.Add(field.One)
	if err := CheckMatrixClaim(c, bad); !errors.Is(err, ErrClaim) {
		t.Fatalf("native check of a false claim: %v", err)
	}
}

func TestBatchRefusesBadShapes(t *testing.T) {
	c := circuit.BLAKE2s()
	r := testrand.New(t)
	p := transcript.NewProver(claimsLabel, nil)
	if _, err := BatchMatrixClaims(p, c, nil); !errors.Is(err, ErrClaimShape) {
		t.Fatalf("no claims: %v", err)
	}
	short := trueClaims(r, c, 1)
	short[0].Row.High = short[0].Row.High[1:]
	if _, err := BatchMatrixClaims(p, c, short); !errors.Is(err, ErrClaimShape) {
		t.Fatalf("short row weight: %v", err)
	}
	v := transcript.NewVerifier(nil, claimsLabel, nil)
	if _, err := VerifyMatrixClaims(v, c.LogSize(), short); !errors.Is(err, ErrClaimShape) {
		t.Fatalf("verifier, short row weight: %v", err)
	}
	if err := CheckMatrixClaim(c, short[0]); !errors.Is(err, ErrClaimShape) {
		t.Fatalf("native check, short row weight: %v", err)
	}
	// A truncated proof is an error, not a panic.
	claims := trueClaims(r, c, 2)
	if _, err := BatchMatrixClaims(p, c, claims); err != nil {
		t.Fatal(err)
	}
	proof := p.Proof()
	cut := *proof
	cut.Stream = proof.Stream[:len(proof.Stream)-1]
	v = transcript.NewVerifier(&cut, claimsLabel, nil)
	if _, err := VerifyMatrixClaims(v, c.LogSize(), claims); err == nil {
		t.Fatal("a truncated batch verified")
	}
}

// TestBatchBindsEveryClaimDatum: the batch's challenges depend on every weight entry and
// value of every claim (Fiat–Shamir binding: a prover cannot choose a claim after seeing
// the point it batches to).
func TestBatchBindsEveryClaimDatum(t *testing.T) {
	c := circuit.BLAKE2s()
	r := testrand.New(t)
	claims := trueClaims(r, c, 2)
	point := func(cl []MatrixClaim) field.E {
		p := transcript.NewProver(claimsLabel, nil)
		out, err := BatchMatrixClaims(p, c, cl)
		if err != nil {
			t.Fatal(err)
		}
		return out.Row.High[0]
	}
	base := point(claims)
	edits := map[string]func(*MatrixClaim){
		"row low":  func(m *MatrixClaim) { m.Row.Low[5] = m.Row.Low[5].Add(field.One) },
		"row high": func(m *MatrixClaim) { m.Row.High[2] = m.Row.High[2].Add(field.One) },
		"col low":  func(m *MatrixClaim) { m.Col.Low[63] = m.Col.Low[63].Add(field.One) },
		"col high": func(m *MatrixClaim) { m.Col.High[0] = m.Col.High[0].Add(field.One) },
		"VA":       func(m *MatrixClaim) { m.VA = m.VA.Add(field.One) },
		"VB":       func(m *MatrixClaim) { m.VB = m.VB.Add(field.One) },
	}
	for name, edit := range edits {
		cl := append([]MatrixClaim(nil), claims...)
		m := cl[1]
		m.Row = Weight{Low: append([]field.E(nil), m.Row.Low...), High: append([]field.E(nil), m.Row.High...)}
		m.Col = Weight{Low: append([]field.E(nil), m.Col.Low...), High: append([]field.E(nil), m.Col.High...)}
		edit(&m)
		cl[1] = m
		if point(cl) == base {
			t.Fatalf("a changed %s left the batch's challenges unchanged", name)
		}
	}
}

package recursion

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

// Adversarial tests of the deferred claims (BatchMatrixClaims, VerifyMatrixClaims,
// CheckMatrixClaim) and of VerifyChild. Each asserts that a false statement is
// refused somewhere on the verifier's path (the batch or the native check), so it
// passes while the code is sound.

var forgeClaimsLabel = []byte("recursion-forge-test")

// smallCircuit is a 2^10-column circuit: 64 inputs, then three layers of 64 products.
func smallCircuit(salt int) *circuit.Circuit {
	b := circuit.NewBuilder("forge", 10, 0)
	b.Input("x", 64, 64)
	prev := make([]circuit.Wire, 64)
	for i := range prev {
		prev[i] = b.Col(64 + i)
	}
	row := 128
	for range 3 {
		next := make([]circuit.Wire, 64)
		for i := range next {
			next[i] = b.Product(row, b.Xor(prev[i], b.One()), prev[(i+salt)%64])
			row++
		}
		prev = next
	}
	return b.Compile()
}

// batchThenCheck runs an honest-arithmetic batch of prove (the prover computes from
// the matrices, whatever the claims say), the verifier on verify, and the native check
// of the result; it returns the first error.
func batchThenCheck(c *circuit.Circuit, prove, verify []MatrixClaim) error {
	p := transcript.NewProver(forgeClaimsLabel, nil)
	if _, err := BatchMatrixClaims(p, c, prove); err != nil {
		return err
	}
	v := transcript.NewVerifier(p.Proof(), forgeClaimsLabel, nil)
	out, err := VerifyMatrixClaims(v, c.LogSize(), verify)
	if err != nil {
		return err
	}
	if err := v.Finish(); err != nil {
		return err
	}
	return CheckMatrixClaim(c, out)
}

// challengesOf replays the claims' binding on a fresh transcript and returns μ and the
// λ_t the batch of exactly these claims draws.
func challengesOf(claims []MatrixClaim) (field.E, []field.E) {
	v := transcript.NewVerifier(nil, forgeClaimsLabel, nil)
	return observeClaims(v.Observe, v.Sample, claims, nil)
}

// Crafted lies, not random ones: lies in two claims that cancel under the λ (or the
// μ) the true claims would draw; an A-lie balanced by a B-lie under that μ; a claim
// repeated with another value; a zero weight with nonzero values. All are refused:
// every claim datum is bound before μ and λ are drawn, so the lies move the challenges.
func TestForgeBatchCraftedLies(t *testing.T) {
	c := smallCircuit(1)
	r := testrand.New(t)
	claims := trueClaims(r, c, 3)
	if err := batchThenCheck(c, claims, claims); err != nil {
		t.Fatal(err)
	}
	mu, lambda := challengesOf(claims)
	d := randomE(r)
	lies := map[string]func([]MatrixClaim){
		"λ-cancelling VA lies": func(cl []MatrixClaim) {
			// λ0·d0 + λ1·d1 = 0 for the true claims' λ.
			cl[0].VA = cl[0].VA.Add(lambda[1].Mul(d))
			cl[1].VA = cl[1].VA.Add(lambda[0].Mul(d))
		},
		"μ-balanced A and B lies": func(cl []MatrixClaim) {
			cl[2].VA = cl[2].VA.Add(mu.Mul(d))
			cl[2].VB = cl[2].VB.Add(d)
		},
		"A lie cancelled by another claim's B lie": func(cl []MatrixClaim) {
			// λ0·(λ1·d) + λ1·μ·(λ0·d·μ⁻¹) = 0.
			e0 := lambda[1].Mul(d)
			e1 := lambda[0].Mul(d)
			cl[0].VA = cl[0].VA.Add(e0)
			cl[1].VB = cl[1].VB.Add(e1.Mul(mu.Inv()))
		},
	}
	for name, lie := range lies {
		cl := append([]MatrixClaim(nil), claims...)
		lie(cl)
		// Sanity: the lie does cancel under the true claims' challenges.
		if batchTarget(cl, mu, lambda) != batchTarget(claims, mu, lambda) {
			t.Fatalf("%s: the crafted lie does not cancel under the true challenges", name)
		}
		if err := batchThenCheck(c, cl, cl); !errors.Is(err, ErrBatch) && !errors.Is(err, ErrClaim) {
			t.Fatalf("%s: %v", name, err)
		}
		// The prover batching the true claims, the verifier handed the lies.
		if err := batchThenCheck(c, claims, cl); !errors.Is(err, ErrBatch) && !errors.Is(err, ErrClaim) {
			t.Fatalf("%s (true claims proved): %v", name, err)
		}
	}
	// A claim repeated with another value.
	dup := append(append([]MatrixClaim(nil), claims...), claims[1])
	dup[3].VB = dup[3].VB.Add(field.One)
	if err := batchThenCheck(c, dup, dup); !errors.Is(err, ErrBatch) && !errors.Is(err, ErrClaim) {
		t.Fatalf("a repeated claim with another value: %v", err)
	}
	// A zero row weight with nonzero values.
	zero := claims[0]
	zero.Row = Weight{Low: make([]field.E, 1<<LowBits), High: zero.Row.High}
	zero.VA, zero.VB = field.One, field.Zero
	cl := append([]MatrixClaim{zero}, claims[1:]...)
	if err := batchThenCheck(c, cl, cl); !errors.Is(err, ErrBatch) && !errors.Is(err, ErrClaim) {
		t.Fatalf("a zero weight with a nonzero value: %v", err)
	}
	// A true claim of another circuit of the same size, batched as this one's.
	other := smallCircuit(5)
	foreign := trueClaims(r, other, 1)
	cl = append(append([]MatrixClaim(nil), claims...), foreign...)
	if err := batchThenCheck(c, cl, cl); !errors.Is(err, ErrBatch) && !errors.Is(err, ErrClaim) {
		t.Fatalf("another circuit's claim: %v", err)
	}
}

// The batch's final values are checked only as VA + μ·VB, so a prover may send
// (VA + μ·d, VB + d): VerifyMatrixClaims returns that claim, which is false. The native
// check refuses it, and so does the next level: carried into a parent's batch beside a
// true claim, it batches to a false claim.
func TestForgeBatchSplitFinalValues(t *testing.T) {
	c := smallCircuit(2)
	r := testrand.New(t)
	claims := trueClaims(r, c, 2)
	p := transcript.NewProver(forgeClaimsLabel, nil)
	if _, err := BatchMatrixClaims(p, c, claims); err != nil {
		t.Fatal(err)
	}
	proof := p.Proof()
	mu, _ := challengesOf(claims)
	d := randomE(r)
	bad := *proof
	bad.Stream = append([]field.E(nil), proof.Stream...)
	n := len(bad.Stream)
	bad.Stream[n-2] = bad.Stream[n-2].Add(mu.Mul(d))
	bad.Stream[n-1] = bad.Stream[n-1].Add(d)
	v := transcript.NewVerifier(&bad, forgeClaimsLabel, nil)
	out, err := VerifyMatrixClaims(v, c.LogSize(), claims)
	if err != nil {
		// Sound either way; the rest of the test needs the split claim.
		t.Logf("the split final values were refused by the batch itself: %v", err)
		return
	}
	if err := CheckMatrixClaim(c, out); !errors.Is(err, ErrClaim) {
		t.Fatalf("a split final claim passed the native check: %v", err)
	}
	fresh := trueClaims(r, c, 1)
	parent := []MatrixClaim{out, fresh[0]}
	if err := batchThenCheck(c, parent, parent); !errors.Is(err, ErrBatch) && !errors.Is(err, ErrClaim) {
		t.Fatalf("a split claim carried into a parent's batch: %v", err)
	}
}

// Weights of the wrong sizes, or a circuit too small for the weights' form, are
// refused with ErrClaimShape by all three functions, never a panic.
func TestForgeBatchWeightShapes(t *testing.T) {
	c := smallCircuit(3)
	r := testrand.New(t)
	good := trueClaims(r, c, 1)[0]
	edits := map[string]func(*MatrixClaim){
		"row low 63":  func(m *MatrixClaim) { m.Row.Low = m.Row.Low[:63] },
		"row low 65":  func(m *MatrixClaim) { m.Row.Low = append(m.Row.Low, field.One) },
		"col low nil": func(m *MatrixClaim) { m.Col.Low = nil },
		"row high +1": func(m *MatrixClaim) { m.Row.High = append(m.Row.High, field.One) },
		"col high -1": func(m *MatrixClaim) { m.Col.High = m.Col.High[1:] },
		"col high nil": func(m *MatrixClaim) {
			m.Col.High = nil
		},
		"both zero": func(m *MatrixClaim) { *m = MatrixClaim{} },
	}
	for name, edit := range edits {
		m := good
		m.Row = Weight{Low: append([]field.E(nil), good.Row.Low...), High: append([]field.E(nil), good.Row.High...)}
		m.Col = Weight{Low: append([]field.E(nil), good.Col.Low...), High: append([]field.E(nil), good.Col.High...)}
		edit(&m)
		for fn, run := range map[string]func() error{
			"batch": func() error {
				_, err := BatchMatrixClaims(transcript.NewProver(forgeClaimsLabel, nil), c, []MatrixClaim{good, m})
				return err
			},
			"verify": func() error {
				_, err := VerifyMatrixClaims(transcript.NewVerifier(nil, forgeClaimsLabel, nil), c.LogSize(), []MatrixClaim{good, m})
				return err
			},
			"native": func() error { return CheckMatrixClaim(c, m) },
		} {
			if err := noPanic(run); !errors.Is(err, ErrClaimShape) {
				t.Fatalf("%s, %s: %v", name, fn, err)
			}
		}
	}
	// Circuits smaller than the weights' explicit low part: no weight fits.
	for _, logSize := range []int{-1, 0, 3, LowBits - 1} {
		w := Weight{Low: make([]field.E, 1<<LowBits)}
		m := MatrixClaim{Row: w, Col: w}
		err := noPanic(func() error {
			_, err := VerifyMatrixClaims(transcript.NewVerifier(nil, forgeClaimsLabel, nil), logSize, []MatrixClaim{m})
			return err
		})
		if !errors.Is(err, ErrClaimShape) {
			t.Fatalf("logSize %d: %v", logSize, err)
		}
	}
	// A valid claim verified for a circuit of another size.
	err := noPanic(func() error {
		_, err := VerifyMatrixClaims(transcript.NewVerifier(nil, forgeClaimsLabel, nil), c.LogSize()+1, []MatrixClaim{good})
		return err
	})
	if !errors.Is(err, ErrClaimShape) {
		t.Fatalf("another size: %v", err)
	}
}

func noPanic(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	return f()
}

// otherStatement is st with its keys rotated by one (same count, message and epoch).
func otherStatement(t *testing.T, st flows.Statement) flows.Statement {
	t.Helper()
	ag, err := aggregate.StatementOf(st)
	if err != nil {
		t.Fatal(err)
	}
	ag.PublicKeys = append(ag.PublicKeys[1:], ag.PublicKeys[0])
	out := st
	if out.Data, err = ag.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestForgeVerifyChild: a child proof presented for another statement (keys rotated,
// another rate, another count, another flow) is refused by VerifyChild whatever values
// are supplied (the true ones, ones that would keep the true statement's lincheck
// terminal, zeros), or, if VerifyChild accepts, its claims fail the native checks
// against that statement. Mutated proofs are refused without a panic.
func TestForgeVerifyChild(t *testing.T) {
	p, v := childWithValues(t, 3, 1, 31)
	cl, err := VerifyChild(p.Proof, p.Statement, v)
	if err != nil {
		t.Fatal(err)
	}
	c := aggregate.Flow.Circuit()
	a := cl.Alpha
	values := map[string]ChildValues{
		"true":    v,
		"shifted": {VA: v.VA.Add(a), VB: v.VB.Add(field.One), Key: v.Key},
		"zeros":   {},
	}
	rotated := otherStatement(t, p.Statement)
	rate := p.Statement
	rate.LogInvRate = 2
	count := p.Statement
	count.N = 2
	flow := p.Statement
	flow.Flow = "blake2s-batch"
	for sname, st := range map[string]flows.Statement{"rotated keys": rotated, "rate 2": rate, "n = 2": count, "another flow": flow} {
		if _, err := ChildValuesOf(p.Proof, st); err == nil {
			t.Fatalf("%s: ChildValuesOf accepted the proof", sname)
		}
		for vname, cv := range values {
			var got ChildClaims
			err := noPanic(func() error {
				var err error
				got, err = VerifyChild(p.Proof, st, cv)
				return err
			})
			if err != nil {
				if strings.HasPrefix(err.Error(), "PANIC") {
					t.Fatalf("%s, %s values: %v", sname, vname, err)
				}
				continue
			}
			if CheckMatrixClaim(c, got.Matrix) == nil && CheckKeyClaim(st, got.Key) == nil {
				t.Fatalf("%s, %s values: VerifyChild and both native checks accepted", sname, vname)
			}
		}
	}
	// Hostile proofs: a few mutations (each VerifyChild replays a whole child).
	rng := rand.New(rand.NewPCG(31, 32))
	for i := range 24 {
		q := &transcript.Proof{Stream: append([]field.E(nil), p.Proof.Stream...), Openings: p.Proof.Openings, Phases: p.Proof.Phases}
		var what string
		switch i % 3 {
		case 0:
			j := rng.IntN(len(q.Stream))
			q.Stream[j] = q.Stream[j].Add(field.E{C0: field.K(rng.Uint64() | 1)})
			what = fmt.Sprintf("scalar %d", j)
		case 1:
			n := rng.IntN(len(q.Stream))
			q.Stream = q.Stream[:n]
			what = fmt.Sprintf("cut to %d", n)
		default:
			data := p.Proof.MarshalWire()
			at := rng.IntN(len(data))
			data[at] ^= byte(1 + rng.IntN(255))
			q = new(transcript.Proof)
			if q.UnmarshalWire(data) != nil {
				continue
			}
			what = fmt.Sprintf("wire byte %d", at)
		}
		err := noPanic(func() error { _, err := VerifyChild(q, p.Statement, v); return err })
		if err == nil {
			if string(q.MarshalRaw()) == string(p.Proof.MarshalRaw()) {
				continue
			}
			t.Fatalf("%s: accepted", what)
		}
		if strings.HasPrefix(err.Error(), "PANIC") {
			t.Fatalf("%s: %v", what, err)
		}
	}
	if err := noPanic(func() error { _, err := VerifyChild(new(transcript.Proof), p.Statement, v); return err }); err == nil || strings.HasPrefix(err.Error(), "PANIC") {
		t.Fatalf("an empty proof: %v", err)
	}
	// The key claim's shape is checked before it is evaluated.
	for name, k := range map[string]KeyClaim{
		"tau short":   {Tau: cl.Key.Tau[1:], ChiOut: cl.Key.ChiOut},
		"chi_out nil": {Tau: cl.Key.Tau},
		"chi_out 21":  {Tau: cl.Key.Tau, ChiOut: make([]field.E, 21)},
	} {
		if err := noPanic(func() error { return CheckKeyClaim(p.Statement, k) }); !errors.Is(err, ErrClaimShape) {
			t.Fatalf("key claim %s: %v", name, err)
		}
	}
}

// TestForgeBatchFuzz: random changes to a batch proof (a scalar, the stream cut or
// extended) are refused (ErrBatch or a read error) and never panic.
func TestForgeBatchFuzz(t *testing.T) {
	c := smallCircuit(4)
	r := testrand.New(t)
	claims := trueClaims(r, c, 3)
	p := transcript.NewProver(forgeClaimsLabel, nil)
	if _, err := BatchMatrixClaims(p, c, claims); err != nil {
		t.Fatal(err)
	}
	proof := p.Proof()
	n := 200
	if heavyRun() {
		n = 2000
	}
	for range n {
		q := &transcript.Proof{Stream: append([]field.E(nil), proof.Stream...)}
		var what string
		switch r.IntN(3) {
		case 0:
			j := r.IntN(len(q.Stream))
			q.Stream[j] = q.Stream[j].Add(randomE(r))
			what = fmt.Sprintf("scalar %d", j)
		case 1:
			k := r.IntN(len(q.Stream))
			q.Stream = q.Stream[:k]
			what = fmt.Sprintf("cut to %d", k)
		default:
			q.Stream = append(q.Stream, randomE(r))
			what = "a scalar appended"
		}
		err := noPanic(func() error {
			v := transcript.NewVerifier(q, forgeClaimsLabel, nil)
			out, err := VerifyMatrixClaims(v, c.LogSize(), claims)
			if err != nil {
				return err
			}
			if err := v.Finish(); err != nil {
				return err
			}
			return CheckMatrixClaim(c, out)
		})
		if err == nil || strings.HasPrefix(err.Error(), "PANIC") {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

func heavyRun() bool { return os.Getenv("LEANPIPE_HEAVY") != "" }

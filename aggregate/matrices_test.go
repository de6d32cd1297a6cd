package aggregate

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/transcript"
	"github.com/leanpipe/leanpipe/xmss"
)

// The description's matrices (no program built) have the pinned fingerprint, the
// same as the compiled circuit's (TestCircuitFingerprint).
func TestMatricesFingerprint(t *testing.T) {
	a, b := MatricesFingerprint()
	const wantA, wantB = "27d84741619339b5e9b299b7ea18f5c987dea0f4df9909e3", "a5e84015f855339b0be118ea2fbb6907eb34851752b577cc"
	if a != wantA || b != wantB {
		t.Fatalf("fingerprint from the description\n  A0: %s\n  B0: %s\nwant\n  A0: %s\n  B0: %s", a, b, wantA, wantB)
	}
}

// Matrices() and the compiled circuit's walk agree at random points and at random
// tensor weights shaped as the lincheck verifier's (64 arbitrary low entries) and
// as the merged verifier's (1024), the walk at every level of the circuit family.
func TestMatricesMatchCircuit(t *testing.T) {
	r := testrand.New(t)
	c, m := New().Circuit, Matrices()
	randVec := func(n int) []field.E { return randEVec(r, n) }
	for trial := range 2 {
		rr, rc := randVec(LogSize), randVec(LogSize)
		wa, wb := circuit.Eval(c, rr, rc)
		if ga, gb := circuit.Eval(m, rr, rc); ga != wa || gb != wb {
			t.Fatalf("trial %d: at a point: description (%v, %v), walk (%v, %v)", trial, ga, gb, wa, wb)
		}
		lowLog := []int{6, 10}[trial]
		e := circuit.Tensor{Low: randVec(1 << lowLog), High: randVec(LogSize - lowLog)}
		w := circuit.Tensor{Low: randVec(1 << lowLog), High: randVec(LogSize - lowLog)}
		ga, gb := m.BilinearTensor(e, w)
		for _, l := range circuit.Kernels.Levels() {
			func() {
				defer cpu.SetLevel(l)()
				if wa, wb := c.BilinearTensor(e, w); ga != wa || gb != wb {
					t.Fatalf("trial %d level %v: tensor weights: description (%v, %v), walk (%v, %v)", trial, l, ga, gb, wa, wb)
				}
			}()
		}
	}
}

// counting is a description's matrices that count their tensor evaluations.
type counting struct {
	*circuit.Described
	n *atomic.Int64
}

func (c counting) BilinearTensor(e, w circuit.Tensor) (va, vb field.E) {
	c.n.Add(1)
	return c.Described.BilinearTensor(e, w)
}

// verdictOf is a verification's outcome: "" for accepted, else the error text.
func verdictOf(f flows.Flow, p *transcript.Proof, st flows.Statement) string {
	if _, err := f.Verify(p, st); err != nil {
		return err.Error()
	}
	return ""
}

// A verifier that evaluates the matrices from the description (its circuit can
// never be built: building it panics, which Verify would report; the default hook
// would walk the circuit this process builds to prove) reaches the
// walk's verdict on a valid proof, on mutated proofs and on a proof of an invalid
// signature; one given other matrices rejects the valid proof at the lincheck's
// terminal, so the verdict does depend on the evaluation.
func TestDescribedVerifierVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("proves two aggregates and verifies each many times")
	}
	var evals atomic.Int64
	fast := newFlowWith(hooks{
		circuit:  func() *circuit.Circuit { panic("aggregate: the fast verifier built the circuit") },
		matrices: func() lincheck.Matrices { return counting{Matrices(), &evals} },
	}, nil)
	slow := newFlowWith(hooks{matrices: func() lincheck.Matrices { return New().Circuit }}, nil)
	p := proveInput(t, Flow, genInput(t, 3, 33), 2)
	if v := verdictOf(fast, p.Proof, p.Statement); v != "" {
		t.Fatalf("the description's verifier rejects a valid proof: %s", v)
	}
	if v := verdictOf(slow, p.Proof, p.Statement); v != "" {
		t.Fatalf("the walk's verifier rejects a valid proof: %s", v)
	}
	r := testrand.New(t)
	// About 40 of the stream's scalars, evenly spaced: a change before the ring
	// switch surfaces at the lincheck's terminal (the sumchecks' round claims are
	// implied, not checked), so most of them exercise the evaluation.
	n := len(p.Proof.Stream)
	terminal := 0
	for i := 0; i < n; i += max(1, n/40) {
		bad := *p.Proof
		bad.Stream = append([]field.E(nil), p.Proof.Stream...)
		bad.Stream[i] = bad.Stream[i].Add(field.E{C0: field.K(1 + r.Uint64()%1000)})
		vf, vs := verdictOf(fast, &bad, p.Statement), verdictOf(slow, &bad, p.Statement)
		if vf == "" || vf != vs {
			t.Fatalf("stream scalar %d of %d changed: description verifier %q, walk verifier %q", i, n, vf, vs)
		}
		if vs == lincheck.ErrTerminal.Error() {
			terminal++
		}
	}
	t.Logf("%d stream changes rejected alike, %d of them at the lincheck's terminal", (n+max(1, n/40)-1)/max(1, n/40), terminal)
	if got := evals.Load(); got < int64(terminal)+1 {
		t.Fatalf("the description was evaluated %d times, want at least %d (the valid proof and the terminal rejections)", got, terminal+1)
	}
	valid, _ := loadKAT(t)
	k := valid[0]
	in := &Input{Message: k.st.Message, Epoch: k.st.Epoch, Signers: []Signer{{PublicKey: k.st.PublicKey, Signature: k.sig}}}
	l := forcedLayouts(t, k)[0]
	forced := forcedProof(t, in, l.apply)
	vf, vs := verdictOf(fast, forced.Proof, forced.Statement), verdictOf(slow, forced.Proof, forced.Statement)
	if vf == "" || vf != vs {
		t.Fatalf("forced layout %s: description verifier %q, walk verifier %q", l.name, vf, vs)
	}
	t.Logf("forced layout %s: both reject: %s", l.name, vf)

	// Other matrices: the description plus one row.
	other := circuit.NewDescribed("xmss-verify+1", LogSize, ConstCol, func(ev *circuit.Evaluator) {
		describe[circuit.EvalWire](ev)
		ev.Row(1<<LogSize-1, ev.Col(PBase), ev.One())
	})
	wrong := newFlowWith(hooks{matrices: func() lincheck.Matrices { return other }}, nil)
	if _, err := wrong.Verify(p.Proof, p.Statement); !errors.Is(err, lincheck.ErrTerminal) {
		t.Fatalf("a verifier with other matrices: %v, want %v", err, lincheck.ErrTerminal)
	}
}

// PublicTable writes each row a word at a time: it equals the table built bit by
// bit from Statement.Pinned, the pinned columns' definition.
func TestPublicTableMatchesPinned(t *testing.T) {
	r := testrand.New(t)
	var ag Aggregate
	ag.Epoch = r.Uint32()
	for i := range ag.Message {
		ag.Message[i] = byte(r.Uint32())
	}
	ag.PublicKeys = make([]xmss.PublicKey, 5)
	for k := range ag.PublicKeys {
		for i := range ag.PublicKeys[k].P {
			ag.PublicKeys[k].P[i] = byte(r.Uint32())
		}
		for i := range ag.PublicKeys[k].Root {
			ag.PublicKeys[k].Root[i] = byte(r.Uint32())
		}
	}
	got := ag.PublicTable()
	for s, pk := range ag.PublicKeys {
		want := make([]uint64, (1<<PublicLog)/64)
		cols, vals := Statement{PublicKey: pk, Epoch: ag.Epoch, Message: ag.Message}.Pinned()
		for i, col := range cols {
			j := col - PBase
			want[j/64] |= uint64(vals[i]) << (j % 64)
		}
		if !slices.Equal(got.Rows[s], want) {
			t.Fatalf("row %d: %x, want %x", s, got.Rows[s], want)
		}
	}
}

// randEVec is n random E values from r.
func randEVec(r *rand.Rand, n int) []field.E {
	v := make([]field.E, n)
	for i := range v {
		v[i] = field.E{C0: field.K(r.Uint64()), C1: field.K(r.Uint64()), C2: field.K(r.Uint64())}
	}
	return v
}

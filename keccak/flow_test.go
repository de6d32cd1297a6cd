package keccak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/testtranscript"
	"github.com/leanpipe/leanpipe/transcript"
)

func prove(t testing.TB, f *flows.Flock, in *Input, workers int) flows.Proved {
	t.Helper()
	b, err := f.FromValue(in)
	if err != nil {
		t.Fatal(err)
	}
	p, err := flows.Prove(context.Background(), flows.Request{Flow: f, Input: b, LogInvRate: 1}, flows.ProveOptions{Workers: workers})
	if err != nil {
		t.Fatalf("prove: %v", err)
	}
	return p
}

// A proof of N permutations verifies against its states, for both layouts and N
// that fill and do not fill the last block; the registered flow's proofs are the
// same bytes at 1 and 2 workers, and Verify (the Go API) accepts them.
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		l Layout
		n int
	}{{Sparse, 5}, {Dense, 4}, {Dense, 24}} {
		f := NewFlow(c.l)
		in := GenerateInput(c.n, uint64(c.n))
		p := prove(t, f, in, 2)
		if p.Statement.N != (c.n+c.l.Perms-1)/c.l.Perms {
			t.Fatalf("%+v n=%d: statement n %d", c.l, c.n, p.Statement.N)
		}
		if _, err := f.Verify(p.Proof, p.Statement); err != nil {
			t.Fatalf("%+v n=%d: %v", c.l, c.n, err)
		}
		if c.l == FlowLayout {
			if err := Verify(p.Proof, in.States(), 1); err != nil {
				t.Fatalf("keccak.Verify: %v", err)
			}
			p1 := prove(t, f, in, 1)
			if !bytes.Equal(p1.Proof.MarshalWire(), p.Proof.MarshalWire()) {
				t.Fatalf("n=%d: proofs differ at 1 and 2 workers", c.n)
			}
		}
	}
}

// Changing any byte of an input or output state, N, or the states' length makes
// verification fail.
func TestTamperedStatementRejected(t *testing.T) {
	rng := testrand.New(t)
	const n = 7 // three blocks: the last holds one permutation and two copies of permutation 0
	in := GenerateInput(n, 11)
	p := prove(t, Flow, in, 2)
	states := in.States()
	if err := Verify(p.Proof, states, 1); err != nil {
		t.Fatal(err)
	}
	offsets := []int{0, StateSize - 1, StateSize, PairSize - 1, 6*PairSize + 3, 6*PairSize + StateSize + 199}
	for range 10 {
		offsets = append(offsets, rng.IntN(len(states)))
	}
	for _, off := range offsets {
		bad := bytes.Clone(states)
		bad[off] ^= byte(1 + rng.IntN(255))
		if err := Verify(p.Proof, bad, 1); err == nil {
			t.Fatalf("state byte %d changed (permutation %d, %s state): accepted", off, off/PairSize, map[bool]string{true: "input", false: "output"}[off%PairSize < StateSize])
		}
	}
	// A consistent but different batch (re-permuted from changed input states):
	// the statement is well formed and true, but not the one proved.
	other := bytes.Clone(states)
	other[PairSize+5] ^= 1
	o, err := NewInput(inputsOf(other))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(p.Proof, o.States(), 1); err == nil {
		t.Fatal("another true batch verified the proof")
	}
	// Fewer or more permutations (whole entries dropped or repeated), and N.
	for _, bad := range [][]byte{states[:6*PairSize], append(bytes.Clone(states), states[:PairSize]...), states[:3*PairSize]} {
		if err := Verify(p.Proof, bad, 1); err == nil {
			t.Fatalf("%d permutations: accepted", len(bad)/PairSize)
		}
	}
	if err := Verify(p.Proof, states[:len(states)-1], 1); !errors.Is(err, ErrStates) {
		t.Fatalf("states of a bad length: %v", err)
	}
	st := p.Statement
	for _, n := range []int{st.N - 1, st.N + 1} {
		bad := st
		bad.N = n
		if _, err := Flow.Verify(p.Proof, bad); err == nil {
			t.Fatalf("statement n %d: accepted", n)
		}
	}
	var data map[string]any
	if err := json.Unmarshal(st.Data, &data); err != nil {
		t.Fatal(err)
	}
	data["permutations"] = n + 1
	bad := st
	bad.Data, _ = json.Marshal(data)
	if _, err := Flow.Verify(p.Proof, bad); err == nil {
		t.Fatal("permutations n+1: accepted")
	}
}

func inputsOf(states []byte) []byte {
	var ins []byte
	for j := 0; j < len(states); j += PairSize {
		ins = append(ins, states[j:j+StateSize]...)
	}
	return ins
}

// A witness with one χ product bit flipped (the rest of its permutation following
// from the flipped bit, and the statement's output state that permutation's, so
// that only one product row is violated) is rejected.
func TestForcedInvalidWitnessRejected(t *testing.T) {
	const n = 6
	for _, fault := range []Fault{{Round: 0, Lane: 0, Bit: 0}, {Round: 13, Lane: 17, Bit: 40}, {Round: 23, Lane: 24, Bit: 63}} {
		in := GenerateInput(n, 5)
		// Block 1's first permutation is 1·Perms; its statement output follows the fault.
		j := FlowLayout.Perms
		out := trace(in.InputState(j), &fault, nil)
		ob := out.Bytes()
		states := bytes.Clone(in.States())
		copy(states[j*PairSize+StateSize:], ob[:])
		bad := &Input{states: states}
		f := newFlowWith(FlowLayout, hooks{faults: map[int]Fault{1: fault}})
		p, err := flows.Prove(context.Background(), flows.Request{Flow: f, Input: Batch{in: bad, l: FlowLayout}, LogInvRate: 1}, flows.ProveOptions{Workers: 2})
		if err != nil {
			t.Fatalf("%+v: the prover refused: %v", fault, err)
		}
		if err := Verify(p.Proof, states, 1); err == nil {
			t.Fatalf("%+v: a proof of an invalid witness verified", fault)
		} else {
			t.Logf("%+v: rejected: %v", fault, err)
		}
	}
	// The hook itself is honest when it flips nothing: the same construction with
	// no fault verifies.
	in := GenerateInput(n, 5)
	f := newFlowWith(FlowLayout, hooks{faults: map[int]Fault{}})
	if err := Verify(prove(t, f, in, 2).Proof, in.States(), 1); err != nil {
		t.Fatal(err)
	}
}

// Mutated proofs are rejected without a panic: one byte of a random stream scalar
// or of the Merkle part, in both forms (1,000 mutations with LEANPIPE_HEAVY set,
// 100 otherwise).
func TestProofMutationsRejected(t *testing.T) {
	in := GenerateInput(9, 3)
	p := prove(t, Flow, in, 2)
	rng := testrand.New(t)
	total := 100
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		total = 1000
	}
	for i := range total {
		form := []string{"wire", "raw"}[i%2]
		data := p.Proof.MarshalWire()
		if form == "raw" {
			data = p.Proof.MarshalRaw()
		}
		streamEnd := 8 + 24*len(p.Proof.Stream)
		off := 8 + rng.IntN(24*len(p.Proof.Stream))
		if i%4 >= 2 {
			off = streamEnd + rng.IntN(len(data)-streamEnd)
		}
		bad := bytes.Clone(data)
		bad[off] ^= byte(1 + rng.IntN(255))
		var q transcript.Proof
		var err error
		if form == "raw" {
			err = q.UnmarshalRaw(bad)
		} else {
			err = q.UnmarshalWire(bad)
		}
		if err != nil {
			continue
		}
		if err := Verify(&q, in.States(), 1); err == nil {
			t.Fatalf("%s byte %d of %d changed: accepted", form, off, len(data))
		} else if errors.Is(err, flows.ErrInput) && bytes.Contains([]byte(err.Error()), []byte("panicked")) {
			t.Fatalf("%s byte %d: the verifier panicked: %v", form, off, err)
		}
	}
}

// The statement's public term evaluated with byte tables equals the lincheck's
// direct table, for both layouts, with and without padding slots.
func TestPublicEvalMatchesTable(t *testing.T) {
	rng := testrand.New(t)
	for _, l := range []Layout{Sparse, Dense} {
		for _, n := range []int{1, 5, 16} {
			pub, err := NewPublic(l, GenerateInput(n, uint64(n)).States())
			if err != nil {
				t.Fatal(err)
			}
			tau := make([]field.E, l.WindowLog())
			chi := make([]field.E, 4)
			for _, v := range [][]field.E{tau, chi} {
				for i := range v {
					v[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
				}
			}
			if got, want := pub.Eval(tau, chi), pub.Table().Eval(tau, chi); got != want {
				t.Fatalf("%+v n=%d: Eval %v, table %v", l, n, got, want)
			}
		}
	}
}

// A witness of other true permutations (every row satisfied) under the statement's
// states is rejected: the public term, not only the absorbed digest, binds the
// states to the committed columns.
func TestWitnessOfOtherStatesRejected(t *testing.T) {
	in := GenerateInput(5, 21)
	for _, j := range []int{0, 4} { // a permutation of block 0 (also the padding's), and of the last block
		ins := inputsOf(in.States())
		ins[j*StateSize+77] ^= 0x10
		other, err := NewInput(ins)
		if err != nil {
			t.Fatal(err)
		}
		f := newFlowWith(FlowLayout, hooks{fillFrom: other})
		p, err := flows.Prove(context.Background(), flows.Request{Flow: f, Input: Batch{in: in, l: FlowLayout}, LogInvRate: 1}, flows.ProveOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(p.Proof, in.States(), 1); err == nil {
			t.Fatalf("permutation %d: a witness of other states verified", j)
		}
		// Nor does it verify for the other states: the statement's digest was absorbed.
		if err := Verify(p.Proof, other.States(), 1); err == nil {
			t.Fatalf("permutation %d: the transcript did not bind the statement's digest", j)
		}
	}
}

// The fault hook violates exactly the one χ product row it names: the block's
// witness satisfies every other row (A0·w and B0·w recomputed from it).
func TestFaultViolatesOneRow(t *testing.T) {
	l := FlowLayout
	c := NewCircuit(l)
	words := c.Size() / 64
	in := GenerateInput(l.Perms, 2)
	fault := Fault{Round: 9, Lane: 12, Bit: 33}
	wit, a, b := make([]field.K, words), make([]field.K, words), make([]field.K, words)
	l.fillBlock(wit, a, b, in.inputStates(), &fault)
	w := make([]uint64, c.Size()) // bit-sliced, instance 0 only
	for col := range w {
		w[col] = uint64(wit[col/64]) >> (col % 64) & 1
	}
	ra, rb := make([]uint64, c.Size()), make([]uint64, c.Size())
	circuit.RowValuesWords(c.Circuit, ra, rb, w)
	var bad []int
	for col := range w {
		if ra[col]&rb[col] != w[col] {
			bad = append(bad, col)
		}
	}
	if want := l.Gate(0, fault.Round) + 64*fault.Lane + fault.Bit; len(bad) != 1 || bad[0] != want {
		t.Fatalf("violated rows %v, want only %d", bad, want)
	}
	w[bad[0]] ^= 1
	// With the product bit restored, the next round's rows see the flipped value's
	// consequences: the rest of the witness followed the fault, so they now fail.
	if c.Satisfied(w) < 0 {
		t.Fatal("restoring the bit satisfied every row: the fault did not propagate")
	}
}

// The statement's JSON: the compact form and any other spelling of the same object
// read alike; missing, unknown or extra fields and bad lengths are errors.
func TestStatementJSON(t *testing.T) {
	in := GenerateInput(2, 1)
	s := Statement{Permutations: 2, States: in.States()}
	compact, _ := s.MarshalJSON()
	if !json.Valid(compact) {
		t.Fatal("the compact form is not JSON")
	}
	var std map[string]any
	json.Unmarshal(compact, &std)
	spaced, _ := json.MarshalIndent(std, "", "  ")
	for _, b := range [][]byte{compact, spaced} {
		var got Statement
		if err := json.Unmarshal(b, &got); err != nil || got.Permutations != 2 || !bytes.Equal(got.States, s.States) {
			t.Fatalf("%s: %v", b[:20], err)
		}
	}
	enc := string(compact[len(`{"permutations":2,"states":"`) : len(compact)-2])
	for _, bad := range []string{
		`{"permutations":2}`,
		`{"states":"` + enc + `"}`,
		`{"permutations":3,"states":"` + enc + `"}`,
		`{"permutations":02,"states":"` + enc + `"}`,
		`{"permutations":0,"states":""}`,
		`{"permutations":2,"states":"` + enc + `","x":1}`,
		`{"permutations":2,"states":"` + enc[:len(enc)-4] + `"}`,
		`{"permutations":2,"states":"` + enc + `"}{}`,
		`{"permutations":2,"states":"!` + enc[1:] + `"}`,
	} {
		var got Statement
		if err := got.UnmarshalJSON([]byte(bad)); err == nil {
			t.Fatalf("accepted %.60s", bad)
		}
	}
}

// The proof's bytes are the same at every kernel level the machine runs.
func TestProofSameAtEveryLevel(t *testing.T) {
	in := GenerateInput(7, 8)
	var want []byte
	for _, l := range cpu.Levels() {
		restore := cpu.SetLevel(l)
		got := prove(t, Flow, in, 2).Proof.MarshalWire()
		restore()
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("level %v: the proof differs from level %v's", l, cpu.Levels()[0])
		}
	}
}

// Inputs given the wrong way are errors, not panics: the zero Batch, a *Input not
// passed through FromValue, a nil *Input, and a states string of a bad length.
func TestBadInputsAreErrors(t *testing.T) {
	for name, in := range map[string]flows.Input{"zero Batch": Batch{}, "*Input": GenerateInput(3, 1)} {
		_, err := flows.Prove(context.Background(), flows.Request{Flow: Flow, Input: in}, flows.ProveOptions{Workers: 1})
		if !errors.Is(err, flows.ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
	}
	var nilIn *Input
	if _, err := Flow.FromValue(nilIn); !errors.Is(err, flows.ErrInput) {
		t.Errorf("nil *Input: %v", err)
	}
	if _, err := NewInput(make([]byte, 199)); !errors.Is(err, ErrStates) {
		t.Errorf("199 bytes of input states: %v", err)
	}
	if _, err := NewPublic(FlowLayout, make([]byte, 401)); !errors.Is(err, ErrStates) {
		t.Errorf("NewPublic of 401 bytes: %v", err)
	}
	bad := GenerateInput(2, 1).States()
	bad = append([]byte(nil), bad...)
	bad[PairSize+StateSize] ^= 1
	if _, err := InputFromStates(bad); !errors.Is(err, ErrStates) {
		t.Errorf("InputFromStates with a wrong output: %v", err)
	}
}

// The flow writes its level-0 rows in the repeated-lanes form: a row leaves out all
// but one of its padding lanes (40 blocks in 2^6 slots: 24 padding lanes, 23 left
// out), every deeper row is whole, and the proof verifies in both forms.
func TestLevel0RowsSendPaddingLanesOnce(t *testing.T) {
	in := GenerateInput(3*40, 7)
	p := prove(t, Flow, in, 2)
	if pad := p.Shape.PaddingLanes(); pad != 24 {
		t.Fatalf("%d padding lanes, want 24", pad)
	}
	for l, ph := range p.Proof.Phases {
		want := 24
		if l == 0 {
			want = 64 - 23
		}
		for k, r := range ph.Rows {
			if len(r) != want {
				t.Fatalf("level %d row %d: %d words, want %d", l, k, len(r), want)
			}
		}
	}
	for _, form := range []string{"wire", "raw"} {
		var q transcript.Proof
		var err error
		if form == "wire" {
			err = q.UnmarshalWire(p.Proof.MarshalWire())
		} else {
			err = q.UnmarshalRaw(p.Proof.MarshalRaw())
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(&q, in.States(), 1); err != nil {
			t.Fatalf("%s form: %v", form, err)
		}
	}
	// testtranscript.Mutate over this proof (200 mutations, 1,000 with
	// LEANPIPE_HEAVY): every one rejected, none panicking.
	rng := testrand.New(t)
	total := 200
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		total = 1000
	}
	for range total {
		q, what, ok := testtranscript.Mutate(rng, p.Proof)
		if !ok {
			continue
		}
		if err := Verify(q, in.States(), 1); err == nil {
			t.Fatalf("%s: accepted", what)
		} else if strings.Contains(err.Error(), "panicked") {
			t.Fatalf("%s: the verifier panicked: %v", what, err)
		}
	}
}

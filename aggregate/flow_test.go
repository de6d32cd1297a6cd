package aggregate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/leanpipe/leanpipe/buffers"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/xmss"
)

// proveInput proves in with flow f at the given workers.
func proveInput(t testing.TB, f flows.Flow, in *Input, workers int) flows.Proved {
	t.Helper()
	p, err := flows.Prove(context.Background(), flows.Request{Flow: f, Input: in, LogInvRate: 1}, flows.ProveOptions{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// statementFor is the flows.Statement of an aggregation statement over n keys.
func statementFor(ag Aggregate) flows.Statement {
	data, _ := json.Marshal(ag)
	return flows.Statement{Flow: FlowName, N: len(ag.PublicKeys), LogInvRate: 1, Data: data}
}

func genInput(t testing.TB, n int, seed uint64) *Input {
	t.Helper()
	in, err := Generate(n, seed, "")
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// One proof of 3 generated signers: it verifies, it is the same at 1 and 2 workers,
// and every change of the statement is rejected.
func TestFlowProveVerifyAndBinding(t *testing.T) {
	if testing.Short() {
		t.Skip("proves 8 blocks of 2^21 columns")
	}
	in := genInput(t, 3, 11)
	p := proveInput(t, Flow, in, 2)
	if _, err := Flow.Verify(p.Proof, p.Statement); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if p1 := proveInput(t, Flow, in, 1); !bytes.Equal(p1.Proof.MarshalWire(), p.Proof.MarshalWire()) {
		t.Fatal("the proof differs between 1 and 2 workers")
	}
	if got, want := string(p.Statement.Data), string(in.Statement()); got != want {
		t.Fatalf("statement data %s, want %s", got, want)
	}
	ag := in.Aggregate()
	other := genInput(t, 4, 12).Signers[3].PublicKey
	keys := func(ks ...xmss.PublicKey) []xmss.PublicKey { return ks }
	k := ag.PublicKeys
	for _, tc := range []struct {
		name string
		ag   Aggregate
	}{
		{"key 1 changed", Aggregate{ag.Message, ag.Epoch, keys(k[0], other, k[2])}},
		{"keys 0 and 2 swapped", Aggregate{ag.Message, ag.Epoch, keys(k[2], k[1], k[0])}},
		{"key 2 dropped", Aggregate{ag.Message, ag.Epoch, keys(k[0], k[1])}},
		{"a key added", Aggregate{ag.Message, ag.Epoch, keys(k[0], k[1], k[2], other)}},
		{"key 0 repeated as a fourth", Aggregate{ag.Message, ag.Epoch, keys(k[0], k[1], k[2], k[0])}},
		{"message changed", Aggregate{func() xmss.Message { m := ag.Message; m[31] ^= 0x80; return m }(), ag.Epoch, k}},
		{"epoch changed", Aggregate{ag.Message, ag.Epoch + 1, k}},
		{"P of key 0 changed", Aggregate{ag.Message, ag.Epoch, keys(func() xmss.PublicKey { pk := k[0]; pk.P[0] ^= 1; return pk }(), k[1], k[2])}},
		{"root of key 1 changed", Aggregate{ag.Message, ag.Epoch, keys(k[0], func() xmss.PublicKey { pk := k[1]; pk.Root[15] ^= 1; return pk }(), k[2])}},
	} {
		st := statementFor(tc.ag)
		if _, err := Flow.Verify(p.Proof, st); err == nil {
			t.Errorf("%s: verified", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	// The public term alone binds the keys: with the transcript absorbing the proved
	// statement but the public table of a changed one, the proof is still rejected.
	changed := Aggregate{ag.Message, ag.Epoch, keys(k[0], other, k[2])}
	spliced := newFlowSpec(func(st flows.Statement) (flows.Binding, error) {
		return flows.Binding{Absorb: ag.AbsorbBytes(), Public: changed.PublicTable()}, nil
	})
	if _, err := spliced.Verify(p.Proof, p.Statement); err == nil {
		t.Error("a changed public table verified under the proved transcript")
	}
	if _, err := newFlowSpec(func(st flows.Statement) (flows.Binding, error) {
		return flows.Binding{Absorb: ag.AbsorbBytes(), Public: ag.PublicTable()}, nil
	}).Verify(p.Proof, p.Statement); err != nil {
		t.Errorf("the unchanged binding through a second flow value: %v", err)
	}
}

// An aggregate meant to be recursed uses log_inv_rate 2 (fewer queries to re-verify):
// it verifies at that rate, is smaller, and does not verify as a rate-1 proof.
func TestFlowRate2(t *testing.T) {
	if testing.Short() {
		t.Skip("proves 8 blocks of 2^21 columns")
	}
	in := genInput(t, 2, 13)
	p, err := flows.Prove(context.Background(), flows.Request{Flow: Flow, Input: in, LogInvRate: 2}, flows.ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if p.Statement.LogInvRate != 2 {
		t.Fatalf("statement rate %d", p.Statement.LogInvRate)
	}
	if _, err := Flow.Verify(p.Proof, p.Statement); err != nil {
		t.Fatalf("rate-2 proof: %v", err)
	}
	st := p.Statement
	st.LogInvRate = 1
	if _, err := Flow.Verify(p.Proof, st); err == nil {
		t.Fatal("a rate-2 proof verified as rate 1")
	}
	p1 := proveInput(t, Flow, in, 2)
	t.Logf("wire proof: rate 1 %d bytes, rate 2 %d bytes", len(p1.Proof.MarshalWire()), len(p.Proof.MarshalWire()))
}

// newFlowSpec is the flow with its Bind replaced (to test the two halves of the
// binding apart).
func newFlowSpec(bind func(flows.Statement) (flows.Binding, error)) *flows.Flock {
	return newFlowWith(hooks{}, bind)
}

func TestStatementDataRefused(t *testing.T) {
	in := genInput(t, 2, 3)
	good := statementFor(in.Aggregate())
	for _, tc := range []struct {
		name string
		st   flows.Statement
	}{
		{"no data", flows.Statement{Flow: FlowName, N: 2, LogInvRate: 1}},
		{"n differs from the key count", flows.Statement{Flow: FlowName, N: 3, LogInvRate: 1, Data: good.Data}},
		{"unknown field", flows.Statement{Flow: FlowName, N: 2, LogInvRate: 1, Data: append(good.Data[:len(good.Data)-1:len(good.Data)-1], []byte(`,"x":1}`)...)}},
		{"uppercase hex", flows.Statement{Flow: FlowName, N: 2, LogInvRate: 1, Data: bytes.ToUpper(good.Data)}},
		{"duplicate key", statementFor(Aggregate{in.Message, in.Epoch, []xmss.PublicKey{in.Signers[0].PublicKey, in.Signers[0].PublicKey}})},
	} {
		err := Flow.CheckStatement(tc.st)
		if !errors.Is(err, flows.ErrInput) {
			t.Errorf("%s: err = %v, want an input error", tc.name, err)
		}
	}
	if err := Flow.CheckStatement(good); err != nil {
		t.Fatal(err)
	}
}

// Proofs after the circuit's first walks take its segmented (parallel) transpose
// walk in the lincheck: four proofs in a row at 2 workers are the 1-worker proof's
// bytes. The last runs under buffers.Poison: the buffers its stages take uncleared
// (pools, codewords, tables) hold garbage, and the bytes are the same.
func TestRepeatedProofsSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("proves 4 blocks of 2^21 columns five times")
	}
	in := genInput(t, 2, 13)
	want := proveInput(t, Flow, in, 1).Proof.MarshalWire()
	for i := range 4 {
		restore := func() {}
		if i == 3 {
			restore = buffers.Poison(0x9d)
		}
		got := proveInput(t, Flow, in, 2).Proof.MarshalWire()
		restore()
		if !bytes.Equal(got, want) {
			t.Fatalf("2-worker proof %d differs from the 1-worker proof", i)
		}
	}
}

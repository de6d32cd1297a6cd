package flows

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// batchLayout says, for each stream index of a batch proof, which protocol step sent
// it, and where the WHIR grinding nonces are.
type batchLayout struct {
	step   []string
	nonces []int // stream indices of the grinding nonces, ascending
	whir   int   // first index of the opening
}

func layoutOf(t *testing.T, sh Shape) batchLayout {
	t.Helper()
	var l batchLayout
	add := func(n int, s string) {
		for range n {
			l.step = append(l.step, s)
		}
	}
	add(2, "root")
	add(64, "zerocheck coset value")
	add(2*(sh.M()-zerocheck.KSkip), "zerocheck round polynomial")
	add(2, "zerocheck claim v_a/v_b")
	add(2*(sh.LogInstance-lincheck.KSkip), "lincheck round polynomial")
	add(lincheck.KBits, "lincheck slice value")
	l.whir = len(l.step)
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		t.Fatal(err)
	}
	add(2, "WHIR round polynomial")
	for lv := 0; lv < cfg.Levels(); lv++ {
		add(2*cfg.Folds[lv], "WHIR round polynomial")
		msg := cfg.MessageLog(lv)
		if lv < cfg.Levels()-1 {
			add(2, "WHIR root")
			add(1, "WHIR out-of-domain answer")
			add(2, "WHIR round polynomial")
		} else {
			add(1<<msg, "WHIR final polynomial")
		}
		l.nonces = append(l.nonces, len(l.step))
		add(1, "WHIR grinding nonce")
		add(2, "WHIR round polynomial")
		if lv == cfg.Levels()-1 {
			add(2*(msg-1), "WHIR tail round polynomial")
		}
	}
	return l
}

// TestForgedScalarsRejectedByTheirCheck changes each scalar of a batch proof's stream
// in turn and requires the first check that depends on it to reject it, by sentinel
// and place: a root half made non-canonical by commit's root check; the root, every
// zerocheck value and every lincheck value by the lincheck's terminal check (the
// zerocheck's claims are checked there; no grinding comes before it); a WHIR value
// before a level's grinding nonce by that nonce's proof-of-work check (the changed
// value moves the transcript the nonce was ground on), named by the nonce's index; a
// value after the last nonce by the opening's terminal check. A trailing scalar is
// left unread (ErrNotConsumed). The opening's own checks, with a prover that forges
// and then carries on, are open's TestForgedWHIRValuesRejected.
func TestForgedScalarsRejectedByTheirCheck(t *testing.T) {
	const n = 40
	blocks := randomBlocks(t, n)
	sh, err := BatchShape(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	l := layoutOf(t, sh)
	if len(l.step) != len(proof.Stream) {
		t.Fatalf("layout of %d scalars, stream of %d", len(l.step), len(proof.Stream))
	}
	raw := &transcript.Proof{Stream: proof.Stream, Openings: proof.Openings}
	forged := func(i int, f func(*field.E)) error {
		p := &transcript.Proof{Stream: slices.Clone(raw.Stream), Openings: raw.Openings}
		f(&p.Stream[i])
		return VerifyBatch(p, n, 1)
	}
	for i := range proof.Stream {
		err := forged(i, func(x *field.E) { x.C1 ^= 1 << (i % 64) })
		switch j, _ := slices.BinarySearch(l.nonces, i); {
		case i < l.whir:
			if !errors.Is(err, lincheck.ErrTerminal) {
				t.Fatalf("scalar %d (%s) changed: err = %v, want lincheck.ErrTerminal", i, l.step[i], err)
			}
		case j < len(l.nonces):
			want := fmt.Sprintf("at scalar %d", l.nonces[j])
			if !errors.Is(err, transcript.ErrPow) || !strings.Contains(err.Error(), want) {
				t.Fatalf("scalar %d (%s) changed: err = %v, want ErrPow %s", i, l.step[i], err, want)
			}
		default:
			if !errors.Is(err, open.ErrTerminal) {
				t.Fatalf("scalar %d (%s) changed: err = %v, want open.ErrTerminal", i, l.step[i], err)
			}
		}
	}
	for i := range 2 {
		if err := forged(i, func(x *field.E) { x.C2 = 1 }); !errors.Is(err, commit.ErrRoot) {
			t.Fatalf("root half %d with c2 ≠ 0: err = %v, want commit.ErrRoot", i, err)
		}
	}
	extra := &transcript.Proof{Stream: append(slices.Clone(raw.Stream), field.One), Openings: raw.Openings}
	if err := VerifyBatch(extra, n, 1); !errors.Is(err, transcript.ErrNotConsumed) {
		t.Fatalf("a trailing scalar: err = %v, want ErrNotConsumed", err)
	}
	extra = &transcript.Proof{Stream: raw.Stream, Openings: append(slices.Clone(raw.Openings), raw.Openings[0])}
	if err := VerifyBatch(extra, n, 1); !errors.Is(err, transcript.ErrNotConsumed) {
		t.Fatalf("a trailing opening: err = %v, want ErrNotConsumed", err)
	}
	wire := &transcript.Proof{Stream: raw.Stream, Phases: append(slices.Clone(proof.Phases), proof.Phases[0])}
	if err := VerifyBatch(wire, n, 1); !errors.Is(err, transcript.ErrNotConsumed) {
		t.Fatalf("a trailing phase: err = %v, want ErrNotConsumed", err)
	}
	// A cut inside the zerocheck is the zerocheck's read error.
	cut := &transcript.Proof{Stream: raw.Stream[:10], Openings: raw.Openings}
	if err := VerifyBatch(cut, n, 1); !errors.Is(err, transcript.ErrStreamExhausted) || !strings.Contains(err.Error(), "zerocheck: coset value 8") {
		t.Fatalf("stream cut in the zerocheck: err = %v", err)
	}
	// A forged opened row of each form is the opening's Merkle check.
	bad := &transcript.Proof{Stream: raw.Stream, Openings: slices.Clone(raw.Openings)}
	bad.Openings[0] = merkle.RawOpening{Leaf: slices.Clone(raw.Openings[0].Leaf), Path: raw.Openings[0].Path}
	bad.Openings[0].Leaf[63] ^= 1
	if err := VerifyBatch(bad, n, 1); !errors.Is(err, transcript.ErrInvalidOpening) || !strings.Contains(err.Error(), "open: WHIR level 0: ") {
		t.Fatalf("forged level-0 row: err = %v", err)
	}
}

// TestVerifyStatementChecks: Verify refuses what it is told before reading the proof,
// each by its own check: a nil proof, another flow's statement, n or the rate out of
// range, statement data for a flow that takes none, a flow's Bind refusing the data;
// a Bind that panics is a rejection, not a crash. VerifyBytesForm refuses an unknown
// flow, an unknown format, bytes that do not decode in the form given and bytes that
// decode in neither.
func TestVerifyStatementChecks(t *testing.T) {
	proof, err := ProveBatch(randomBlocks(t, 9), BatchOptions{LogInvRate: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := Statement{Flow: Name, N: 9, LogInvRate: 1}
	verify := func(f *Flock, p *transcript.Proof, st Statement) error {
		_, err := f.Verify(p, st)
		return err
	}
	if err := verify(Batch, proof, st); err != nil {
		t.Fatal(err)
	}
	refusing := Batch.spec
	refusing.Bind = func(Statement) (Binding, error) { return Binding{}, fmt.Errorf("%w: no such key", ErrInput) }
	panicking := Batch.spec
	panicking.Bind = func(Statement) (Binding, error) { panic("bind exploded") }
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil proof", verify(Batch, nil, st), "nil proof"},
		{"another flow's statement", verify(Batch, proof, Statement{Flow: "xmss-aggregate", N: 9, LogInvRate: 1}), `statement of flow "xmss-aggregate" given to "blake2s-batch"`},
		{"n = 0", verify(Batch, proof, Statement{N: 0, LogInvRate: 1}), "0 instances (want 1.."},
		{"rate 5", verify(Batch, proof, Statement{N: 9, LogInvRate: 5}), "log inverse rate 5 (want 1..4)"},
		{"statement data", verify(Batch, proof, Statement{N: 9, LogInvRate: 1, Data: json.RawMessage(`{"k":1}`)}), "has no statement data"},
		{"Bind refuses", verify(NewFlock(refusing), proof, st), "no such key"},
		{"Bind panics", verify(NewFlock(panicking), proof, st), "the verifier panicked on this proof (a bug): bind exploded"},
	} {
		if !errors.Is(c.err, ErrInput) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrInput with %q", c.name, c.err, c.want)
		}
	}

	wire := proof.MarshalWire()
	_, _, err = VerifyBytesForm(wire, Meta{Flow: "no-such-flow", N: 9, LogInvRate: 1})
	if !errors.Is(err, ErrUnknownFlow) {
		t.Errorf("unknown flow: err = %v, want ErrUnknownFlow", err)
	}
	_, _, err = VerifyBytesForm(wire, Meta{Flow: Name, N: 9, LogInvRate: 1, Format: "zip"})
	if err == nil || !strings.Contains(err.Error(), `proof format "zip", want wire or raw`) {
		t.Errorf("unknown format: err = %v", err)
	}
	_, _, err = VerifyBytesForm(wire[:len(wire)-1], Meta{Flow: Name, N: 9, LogInvRate: 1, Format: FormatWire})
	if !errors.Is(err, transcript.ErrMalformed) || !strings.HasPrefix(err.Error(), "flows: wire form: ") {
		t.Errorf("wire bytes cut short: err = %v, want the wire decoder's ErrMalformed", err)
	}
	_, _, err = VerifyBytesForm([]byte{1, 2, 3}, Meta{Flow: Name, N: 9, LogInvRate: 1})
	if err == nil || !strings.Contains(err.Error(), "the proof is in neither form: as wire: ") || !strings.Contains(err.Error(), "; as raw: ") {
		t.Errorf("bytes in neither form: err = %v", err)
	}
	raw, form, err := VerifyBytesForm(proof.MarshalRaw(), Meta{Flow: Name, N: 9, LogInvRate: 1})
	if err != nil || form != FormatRaw || raw == nil {
		t.Errorf("raw bytes, form detected: %q, %v", form, err)
	}
}

package flows

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/transcript"
)

// The Go API has no traps: zero values are the defaults (the same as the command
// line's), options are named, and nil or negative inputs are errors, not panics.
func TestAPIZeroValuesAndBadInputs(t *testing.T) {
	blocks := Generate(20, 3)
	e, err := NewEngine(EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Request{Input} alone: the default flow at the reference's rate.
	got, err := e.Prove(context.Background(), Request{Input: Blocks(blocks)})
	if err != nil {
		t.Fatalf("Engine.Prove with zero Flow and LogInvRate: %v", err)
	}
	if got.Statement.LogInvRate != 1 || got.Flow != Name {
		t.Fatalf("defaults: %+v", got.Statement)
	}
	// ProveBatch and Prove with zero options: rate 1 on all cores, the same bytes.
	want, err := ProveBatch(blocks, BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := Prove(context.Background(), Request{Input: Blocks(blocks)}, ProveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Proof.MarshalWire(), want.MarshalWire()) || !bytes.Equal(direct.Proof.MarshalWire(), want.MarshalWire()) {
		t.Fatal("zero-option proofs differ")
	}
	if err := VerifyBatch(want, 20, 0); !errors.Is(err, ErrInput) {
		t.Fatalf("VerifyBatch at rate 0: %v, want ErrInput (a verifier is told the rate)", err)
	}

	var nilCtx context.Context
	bad := []struct {
		name string
		err  error
	}{
		{"VerifyBatch(nil)", VerifyBatch(nil, 20, 1)},
		{"VerifyBatch n=-1", VerifyBatch(want, -1, 1)},
		{"VerifyBatch rate=-2", VerifyBatch(want, 20, -2)},
		{"NewEngine Cores -3", func() error { _, err := NewEngine(EngineOptions{Cores: -3}); return err }()},
		{"NewEngine CacheBytes -1", func() error { _, err := NewEngine(EngineOptions{CacheBytes: -1}); return err }()},
		{"NewEngine InFlight -1", func() error { _, err := NewEngine(EngineOptions{InFlight: -1}); return err }()},
		{"Engine.Prove no input", func() error { _, err := e.Prove(context.Background(), Request{}); return err }()},
		{"Engine.Prove nil ctx", func() error { _, err := e.Prove(nilCtx, Request{Input: Blocks(blocks)}); return err }()},
		{"Engine.Prove rate -1", func() error {
			_, err := e.Prove(context.Background(), Request{Input: Blocks(blocks), LogInvRate: -1})
			return err
		}()},
		{"Engine.Prove empty blocks", func() error { _, err := e.Prove(context.Background(), Request{Input: Blocks{}}); return err }()},
		{"Prove workers -1", func() error {
			_, err := Prove(context.Background(), Request{Input: Blocks(blocks)}, ProveOptions{Workers: -1})
			return err
		}()},
		{"ProveBatch nil", func() error { _, err := ProveBatch(nil, BatchOptions{}); return err }()},
		{"ProveBatch rate 9", func() error { _, err := ProveBatch(blocks, BatchOptions{LogInvRate: 9}); return err }()},
		{"ProveBatch workers -2", func() error { _, err := ProveBatch(blocks, BatchOptions{Workers: -2}); return err }()},
		{"Batch.Verify(nil)", func() error { _, err := Batch.Verify(nil, Statement{N: 20, LogInvRate: 1}); return err }()},
		{"VerifyBytes(nil)", func() error { _, err := VerifyBytes(nil, NewMeta(20, 1, "")); return err }()},
	}
	for _, b := range bad {
		if b.err == nil {
			t.Errorf("%s: accepted", b.name)
		} else if !errors.Is(b.err, ErrInput) && !errors.Is(b.err, transcript.ErrMalformed) {
			t.Logf("%s: %v", b.name, b.err)
		}
	}
}

// FuzzVerify feeds the public verify entry points and the proof decoders arbitrary
// bytes, N and rate: they return errors and never panic. The seeds are a real proof
// in both forms, cut and flipped.
func FuzzVerify(f *testing.F) {
	proof, err := ProveBatch(Generate(8, 1), BatchOptions{Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	for _, data := range [][]byte{proof.MarshalWire(), proof.MarshalRaw()} {
		f.Add(data, 8, 1, false)
		f.Add(data, 8, 1, true)
		f.Add(data[:len(data)/2], 8, 1, false)
		f.Add(data, 1<<20, 4, false)
		f.Add(data, -5, 0, true)
		flipped := bytes.Clone(data)
		flipped[len(flipped)/3] ^= 0x80
		f.Add(flipped, 7, 1, true)
	}
	f.Add([]byte{}, 0, 0, false)
	f.Add(bytes.Repeat([]byte{0xff}, 64), 8, 1, false)
	f.Fuzz(func(t *testing.T, data []byte, n, rate int, raw bool) {
		form := FormatWire
		if raw {
			form = FormatRaw
		}
		// Flock.Verify turns a verifier panic into an error; here it is a failure.
		noPanic := func(err error) {
			if err != nil && strings.Contains(err.Error(), "verifier panicked") {
				t.Fatal(err)
			}
		}
		if p, err := DecodeProof(data, form); err == nil {
			err := VerifyBatch(p, n, rate)
			noPanic(err)
			if err == nil && (n < 1 || n > MaxBatch || rate < 1 || rate > 4) {
				t.Fatalf("accepted a proof for n=%d rate=%d", n, rate)
			}
		}
		_, err := VerifyBytes(data, Meta{Flow: Name, N: n, LogInvRate: rate})
		noPanic(err)
		_, err = VerifyBytes(data, Meta{Flow: Name, N: n, LogInvRate: rate, Format: form})
		noPanic(err)
	})
}

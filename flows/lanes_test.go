package flows

import (
	"errors"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

// TestUnusedLanesMustBeZero: at n = 8 the column fills 4 of the 64 level-0 lanes and
// the verifier takes the other 60 as zeros. A prover that commits the stack with junk
// in lanes 4–63 (its witness in lanes 0–3 honest) must be rejected in both forms: the
// wire form by its rows' width, the raw form by the nonzero words of its openings'
// zero prefix. Both forms accept exactly the same proofs.
func TestUnusedLanesMustBeZero(t *testing.T) {
	const n = 8
	blocks := randomBlocks(t, n)
	sh, err := BatchShape(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Lanes != 4 || sh.StackLog != 15 {
		t.Fatalf("shape %+v: want 4 lanes of a 2^15 stack", sh)
	}
	words := witness.Words(sh.NLog)
	full := make([]field.K, 1<<sh.StackLog)
	a, b := make([]field.K, words), make([]field.K, words)
	if err := witness.FillAB(full[:words], a, b, blocks, sh.NLog, par.New(nil, 2)); err != nil {
		t.Fatal(err)
	}
	rng := testrand.New(t)
	for i := words; i < len(full); i++ {
		full[i] = field.K(rng.Uint64())
	}
	proof, err := proveFilled(sh, full, a, b, 2)
	if err != nil {
		t.Fatal(err)
	}

	var raw transcript.Proof
	if err := raw.UnmarshalRaw(proof.MarshalRaw()); err != nil {
		t.Fatal(err)
	}
	// The level-0 openings carry the junk in words 0–59 (lanes 63 down to 4).
	if o := raw.Openings[0]; len(o.Leaf) != 64 || o.Leaf[0] == 0 && o.Leaf[59] == 0 {
		t.Fatalf("first opening %d words, prefix %#x … %#x: the junk is not where expected", len(o.Leaf), o.Leaf[0], o.Leaf[59])
	}
	err = VerifyBatch(&raw, n, 1)
	if !errors.Is(err, transcript.ErrInvalidOpening) || !strings.Contains(err.Error(), "zero prefix") {
		t.Fatalf("raw proof with junk in lanes 4–63: err = %v, want the zero-prefix check's", err)
	}

	var wire transcript.Proof
	if err := wire.UnmarshalWire(proof.MarshalWire()); err != nil {
		t.Fatal(err)
	}
	err = VerifyBatch(&wire, n, 1)
	if !errors.Is(err, transcript.ErrInvalidOpening) || !strings.Contains(err.Error(), "has 64 words, want 4") {
		t.Fatalf("wire proof with 64-word level-0 rows: err = %v, want the row-width check's", err)
	}
}

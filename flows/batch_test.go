package flows

import (
	"bytes"
	"fmt"
	"github.com/leanpipe/leanpipe/buffers"
	"testing"

	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

var referenceSets = []struct {
	name  string
	heavy bool
}{
	{"blake2s-batch-n256-s1", false},
	{"blake2s-batch-n300-s2", false},
	{"blake2s-batch-n4096-s3", true},
}

// TestReferenceProofsByteIdentical proves the reference blocks and requires both proof
// forms to equal the reference prover's files byte for byte; the Go verifier must
// accept the reference files in both forms.
func TestReferenceProofsByteIdentical(t *testing.T) {
	for _, set := range referenceSets {
		t.Run(set.name, func(t *testing.T) {
			if set.heavy && testing.Short() {
				t.Skip("heavy set under -short")
			}
			blocks, err := witness.DecodeBlocks(vectors.ReadFile(t, "reference-proofs/"+set.name+".blocks.bin"))
			if err != nil {
				t.Fatal(err)
			}
			raw := vectors.ReadFile(t, "reference-proofs/"+set.name+".proof.bin")
			wire := vectors.ReadFile(t, "reference-proofs/"+set.name+".wire-proof.bin")
			for _, form := range []struct {
				name string
				data []byte
				dec  func(*transcript.Proof, []byte) error
			}{{"raw", raw, (*transcript.Proof).UnmarshalRaw}, {"wire", wire, (*transcript.Proof).UnmarshalWire}} {
				var p transcript.Proof
				if err := form.dec(&p, form.data); err != nil {
					t.Fatalf("%s: %v", form.name, err)
				}
				if err := VerifyBatch(&p, len(blocks), 1); err != nil {
					t.Fatalf("reference %s proof rejected: %v", form.name, err)
				}
			}
			proof, err := ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := proof.MarshalRaw(); !bytes.Equal(got, raw) {
				t.Fatalf("raw proof differs from the reference: %s", firstDiff(got, raw))
			}
			if got := proof.MarshalWire(); !bytes.Equal(got, wire) {
				t.Fatalf("wire proof differs from the reference: %s", firstDiff(got, wire))
			}
			if set.heavy {
				return
			}
			// Again under buffers.Poison: the pools' buffers and the stages'
			// tables, taken uncleared, hold garbage until written.
			restore := buffers.Poison(0xb1)
			proof, err = ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 2})
			restore()
			if err != nil {
				t.Fatal(err)
			}
			if got := proof.MarshalRaw(); !bytes.Equal(got, raw) {
				t.Fatalf("poisoned: raw proof differs from the reference: %s", firstDiff(got, raw))
			}
		})
	}
}

func firstDiff(a, b []byte) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d of %d (reference %d); stream scalar ~%d", i, len(a), len(b), (i-8)/24)
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

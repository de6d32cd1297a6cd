package flows

import (
	"bytes"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

func mustFill(t *testing.T, blocks []witness.Compression) (Shape, []field.K, []field.K, []field.K) {
	t.Helper()
	sh, err := BatchShape(len(blocks), 1)
	if err != nil {
		t.Fatal(err)
	}
	words := witness.Words(sh.NLog)
	stack := make([]field.K, words)
	a, b := make([]field.K, words), make([]field.K, words)
	if err := witness.FillAB(stack[:words], a, b, blocks, sh.NLog, par.New(nil, 2)); err != nil {
		t.Fatal(err)
	}
	return sh, stack, a, b
}

// TestFlippedWitnessBitRejected: a prover that commits a witness with one flipped bit,
// in a live block or in a padding block, cannot make the verifier accept.
func TestFlippedWitnessBitRejected(t *testing.T) {
	blocks := randomBlocks(t, 300) // 512 slots: 212 padding slots
	rng := testrand.New(t)
	verified := 0
	for _, slot := range []int{0, 137, 299, 300, 400, 511} {
		sh, stack, a, b := mustFill(t, blocks)
		word := slot*witness.SlotWords + rng.IntN(witness.SlotWords)
		bit := rng.IntN(64)
		stack[word] ^= field.K(1) << bit
		proof, err := proveFilled(sh, stack, a, b, 2)
		if err != nil {
			continue // the prover itself noticed
		}
		verified++
		if err := VerifyBatch(proof, len(blocks), 1); err == nil {
			t.Fatalf("slot %d word %d bit %d flipped: proof accepted", slot, word, bit)
		}
	}
	if verified == 0 {
		t.Fatal("the prover refused every bad witness: the verifier was never exercised")
	}
}

// TestProofMutationsRejected flips one byte of every stream scalar (so every round
// message, slice value, OOD value and nonce) and of sampled Merkle bytes, in both
// forms; every mutation must be rejected.
func TestProofMutationsRejected(t *testing.T) {
	blocks := randomBlocks(t, 40)
	proof, err := ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	rng := testrand.New(t)
	for _, form := range []string{"raw", "wire"} {
		data := proof.MarshalRaw()
		if form == "wire" {
			data = proof.MarshalWire()
		}
		streamEnd := 8 + 24*len(proof.Stream)
		var offsets []int
		for i := 0; i < len(proof.Stream); i++ {
			offsets = append(offsets, 8+24*i+rng.IntN(24))
		}
		samples := 300
		if testing.Short() {
			samples = 100
		}
		for i := 0; i < samples; i++ {
			offsets = append(offsets, streamEnd+rng.IntN(len(data)-streamEnd))
		}
		for _, off := range offsets {
			bad := bytes.Clone(data)
			bad[off] ^= byte(1 + rng.IntN(255))
			if verifyForm(bad, form, len(blocks)) == nil {
				t.Fatalf("%s: byte %d of %d changed, proof accepted", form, off, len(data))
			}
		}
	}
}

func verifyForm(data []byte, form string, n int) error {
	var p transcript.Proof
	var err error
	if form == "raw" {
		err = p.UnmarshalRaw(data)
	} else {
		err = p.UnmarshalWire(data)
	}
	if err != nil {
		return err
	}
	return VerifyBatch(&p, n, 1)
}

// TestReferenceMutationsRejected: the Go verifier rejects each reference proof with a
// single byte changed (sampled across the stream and the Merkle section).
func TestReferenceMutationsRejected(t *testing.T) {
	rng := testrand.New(t)
	for _, set := range referenceSets[:2] {
		blocks := vectors.ReadFile(t, "reference-proofs/"+set.name+".blocks.bin")
		n := len(blocks) / 112
		for _, form := range []string{"raw", "wire"} {
			name := "reference-proofs/" + set.name + ".proof.bin"
			if form == "wire" {
				name = "reference-proofs/" + set.name + ".wire-proof.bin"
			}
			data := vectors.ReadFile(t, name)
			for i := 0; i < 60; i++ {
				bad := bytes.Clone(data)
				off := rng.IntN(len(bad))
				bad[off] ^= byte(1 + rng.IntN(255))
				if verifyForm(bad, form, n) == nil {
					t.Fatalf("%s %s: byte %d changed, accepted", set.name, form, off)
				}
			}
		}
	}
}

// TestRoundTripSizes: N = 1, 2^9 and 2^12 (the last under -short skipped) prove and
// verify.
func TestRoundTripSizes(t *testing.T) {
	for _, n := range []int{1, 512, 4096} {
		if n > 512 && testing.Short() {
			continue
		}
		blocks := randomBlocks(t, n)
		proof, err := ProveBatch(blocks, BatchOptions{LogInvRate: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyBatch(proof, n, 1); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
	}
}

package recursion_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/recursion"
	"github.com/leanpipe/leanpipe/xmss"
)

// Merging two aggregates: two committees sign one message at one epoch, each
// committee's signatures are aggregated into a leaf proof, and Merge turns the two
// leaves into one proof of all four keys (the first leaf's keys, then the second's).
// Merge verifies each child natively before any work. The merged proof's two files
// are ProofBytes (the proof) and its Statement's JSON (kept in PROOF.json);
// VerifyMerged checks the one against the other.
//
// This example proves two leaves and a merge (about 15 s on two cores), so it has no
// Output comment and go test only compiles it; TestExampleMerge runs it and checks
// what it prints, except under -short.
func ExampleMerge() {
	msg, epoch := xmss.Message{0x42}, uint32(7)
	var children []recursion.MergeChild
	for c := range 2 { // two committees of two signers
		in := &aggregate.Input{Message: msg, Epoch: epoch}
		for i := range 2 {
			sk, pk, err := xmss.GenerateKey([xmss.SeedSize]byte{byte(10*c + i + 1)}, 0, 15)
			if err != nil {
				panic(err)
			}
			sig, err := sk.Sign(epoch, msg, nil)
			if err != nil {
				panic(err)
			}
			in.Signers = append(in.Signers, aggregate.Signer{PublicKey: pk, Signature: sig})
		}
		leaf, err := flows.Prove(context.Background(), flows.Request{Flow: aggregate.Flow, Input: in, LogInvRate: 2}, flows.ProveOptions{})
		if err != nil {
			panic(err)
		}
		children = append(children, recursion.MergeChild{Proof: leaf.Proof, Statement: leaf.Statement})
	}

	merged, err := recursion.Merge(children, 2, par.New(context.Background(), 2))
	if err != nil {
		panic(err)
	}
	proof := merged.ProofBytes()                       // the proof file
	statement, err := json.Marshal(merged.Statement()) // the statement, as PROOF.json keeps it
	if err != nil {
		panic(err)
	}

	// A verifier reads the two files back.
	var st recursion.MergeStatement
	if err := json.Unmarshal(statement, &st); err != nil {
		panic(err)
	}
	err = recursion.VerifyMerged(proof, st)
	fmt.Printf("merged %d children into one proof of %d keys at epoch %d; merged file: %v; verifies: %v\n",
		len(st.Children), len(st.Keys), st.Epoch, recursion.IsMergedProof(proof), err == nil)
}

// TestExampleMerge runs ExampleMerge and checks its output.
func TestExampleMerge(t *testing.T) {
	if testing.Short() || cpu.Detected() == cpu.Portable {
		t.Skip("proves two leaves and a merge (top kernel level only, as the package's other merge tests)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	func() {
		defer func() { os.Stdout = stdout; w.Close() }()
		ExampleMerge()
	}()
	got := <-done
	want := "merged 2 children into one proof of 4 keys at epoch 7; merged file: true; verifies: true\n"
	if !bytes.Equal(got, []byte(want)) {
		t.Fatalf("ExampleMerge printed %q, want %q", got, want)
	}
}

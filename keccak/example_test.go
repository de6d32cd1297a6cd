package keccak_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/keccak"
)

// Prove that four Keccak-f[1600] permutations map their input states to their
// output states, then verify the proof against the states string alone.
func Example() {
	inputs := make([]byte, 4*keccak.StateSize) // four input states (here all zero but the first byte)
	for j := range 4 {
		inputs[j*keccak.StateSize] = byte(j)
	}
	in, err := keccak.NewInput(inputs)
	if err != nil {
		panic(err)
	}
	out := in.OutputState(0) // Keccak-f[1600] of the all-zero state
	fmt.Printf("output lane A[0,0] of permutation 0: %016x\n", out[0])

	batch, err := keccak.Flow.FromValue(in)
	if err != nil {
		panic(err)
	}
	proved, err := flows.Prove(context.Background(), flows.Request{Flow: keccak.Flow, Input: batch}, flows.ProveOptions{Workers: 1})
	if err != nil {
		panic(err)
	}
	// A verifier holds the proof and the states string (per permutation its input
	// state, then its output state: 400 bytes).
	states := bytes.Clone(in.States())
	fmt.Println("verified:", keccak.Verify(proved.Proof, states, 1) == nil)

	states[keccak.PairSize+keccak.StateSize] ^= 1 // permutation 1's output, one bit
	fmt.Println("verified with a changed output state:", keccak.Verify(proved.Proof, states, 1) == nil)
	// Output:
	// output lane A[0,0] of permutation 0: f1258f7940e1dde7
	// verified: true
	// verified with a changed output state: false
}

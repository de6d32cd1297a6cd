package flows_test

import (
	"context"
	"fmt"

	"github.com/leanpipe/leanpipe/flows"
)

// The batch flow: prove N BLAKE2s compressions (here generated; a blocks file in
// the reference layout is read with flows.Batch.Decode) and verify the proof. The
// statement is the slot count 2^max(3, ⌈log2 N⌉) and the rate, not the compressions.
func Example() {
	blocks := flows.Blocks(flows.Generate(300, 1))
	eng, err := flows.NewEngine(flows.EngineOptions{})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	res, err := eng.Prove(context.Background(), flows.Request{Flow: flows.Batch, Input: blocks})
	if err != nil {
		panic(err)
	}
	wire := res.Proof.MarshalWire() // the reference prover's bytes
	meta := flows.NewMetaFor(flows.Batch, res.Statement, flows.FormatWire)
	_, err = flows.VerifyBytes(wire, meta)
	fmt.Printf("%s: %d compressions in 2^%d slots, verifies: %v, wall time set: %v\n",
		meta.Flow, meta.N, res.Shape.NLog, err == nil, res.Wall > 0)

	// The direct call path gives the same bytes.
	p, err := flows.Prove(context.Background(), flows.Request{Flow: flows.Batch, Input: blocks}, flows.ProveOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("same bytes on the direct path:", string(p.Proof.MarshalWire()) == string(wire), "wall time set:", p.Wall > 0)
	// Output:
	// blake2s-batch: 300 compressions in 2^9 slots, verifies: true, wall time set: true
	// same bytes on the direct path: true wall time set: true
}

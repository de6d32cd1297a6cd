package aggregate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/xmss"
)

// Aggregating signatures: every signer signs one message at one epoch, the input
// lists them (public key and signature) in statement order, and an Engine proves
// that all of them verify. The proof's statement is the message, the epoch and the
// keys; flows.NewMetaFor gives what leanpipe writes beside a proof as PROOF.json.
func Example() {
	msg, epoch := xmss.Message{0x42}, uint32(7)
	in := &aggregate.Input{Message: msg, Epoch: epoch}
	for i := range 2 {
		// Each signer's key covers a few epochs around the one signed (the activation
		// range bounds key generation's work).
		sk, pk, err := xmss.GenerateKey([xmss.SeedSize]byte{byte(i + 1)}, 0, 15)
		if err != nil {
			panic(err)
		}
		sig, err := sk.Sign(epoch, msg, nil)
		if err != nil {
			panic(err)
		}
		in.Signers = append(in.Signers, aggregate.Signer{PublicKey: pk, Signature: sig})
	}
	if err := in.Check(); err != nil { // every signature verifies natively first
		panic(err)
	}

	eng, err := flows.NewEngine(flows.EngineOptions{})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	res, err := eng.Prove(context.Background(), flows.Request{Flow: aggregate.Flow, Input: in})
	if err != nil {
		panic(err)
	}
	proof := flows.EncodeProof(res.Proof, flows.FormatWire) // the bytes to hand on
	meta := flows.NewMetaFor(aggregate.Flow, res.Statement, flows.FormatWire)
	_, err = flows.VerifyBytes(proof, meta)
	fmt.Printf("%d signatures aggregated at epoch %d; proof verifies: %v; wall time set: %v\n",
		meta.N, epoch, err == nil, res.Wall > 0)
	// Output:
	// 2 signatures aggregated at epoch 7; proof verifies: true; wall time set: true
}

// Verifying an aggregate from what the verifier knows: the message, the epoch and
// the signers' public keys in order (from a PROOF.json, a chain, a config). The
// Aggregate is the statement; its JSON is the statement part of PROOF.json.
func ExampleAggregate() {
	proof, msg, epoch, keys := exampleProof()

	st := aggregate.Aggregate{Message: msg, Epoch: epoch, PublicKeys: keys}
	data, err := json.Marshal(st)
	if err != nil {
		panic(err)
	}
	meta := flows.Meta{Flow: aggregate.FlowName, N: len(keys), LogInvRate: 1, Label: aggregate.FlowLabel,
		Format: flows.FormatWire, Statement: data}
	_, err = flows.VerifyBytes(proof, meta)
	fmt.Println("the keys in order:", err == nil)

	// Another key order, or another message or epoch, is another statement.
	st.PublicKeys = []xmss.PublicKey{keys[1], keys[0]}
	meta.Statement, _ = json.Marshal(st)
	_, err = flows.VerifyBytes(proof, meta)
	fmt.Println("the keys swapped:", err == nil)
	// Output:
	// the keys in order: true
	// the keys swapped: false
}

var example struct {
	once  sync.Once
	proof []byte
	msg   xmss.Message
	epoch uint32
	keys  []xmss.PublicKey
}

// exampleProof proves an aggregate of two generated signers once and returns its
// wire bytes and statement.
func exampleProof() ([]byte, xmss.Message, uint32, []xmss.PublicKey) {
	example.once.Do(func() {
		in, err := aggregate.Generate(2, 3, "")
		if err != nil {
			panic(err)
		}
		p, err := flows.Prove(context.Background(), flows.Request{Flow: aggregate.Flow, Input: in}, flows.ProveOptions{})
		if err != nil {
			panic(err)
		}
		example.proof = flows.EncodeProof(p.Proof, flows.FormatWire)
		example.msg, example.epoch, example.keys = in.Message, in.Epoch, in.PublicKeys()
	})
	return example.proof, example.msg, example.epoch, example.keys
}

package transcript_test

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

// A prover commits to 16 rows, sends the root, grinds, samples queries and opens them;
// the verifier replays the same calls on the decoded wire bytes and reports the raw form.
func Example() {
	rows := make([]uint64, 16*4)
	for i := range rows {
		rows[i] = uint64(i)
	}
	tree := merkle.New(rows, 4, par.New(nil, 2))

	p := transcript.NewProver([]byte("example"), []field.E{field.One})
	p.SendDigest(tree.Root())
	p.Grind(4)
	queries := p.SampleQueries(16, 5)
	p.Open(tree, queries)
	wire := p.Proof().MarshalWire()

	var proof transcript.Proof
	if err := proof.UnmarshalWire(wire); err != nil {
		panic(err)
	}
	v := transcript.NewVerifier(&proof, []byte("example"), []field.E{field.One})
	root, err := v.ReceiveDigest()
	if err != nil {
		panic(err)
	}
	if err := v.GrindCheck(4); err != nil {
		panic(err)
	}
	q := v.SampleQueries(16, 5)
	opened, err := v.Merkle(root, 16, q, 4)
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Finish(), len(opened), len(v.RawProof().Openings), root == tree.Root())
	// Output: <nil> 5 5 true
}

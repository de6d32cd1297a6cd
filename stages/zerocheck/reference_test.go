package zerocheck

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

var batchLabel = []byte("flock-blake2s-batch")

// The reference proofs: Verify consumes exactly the zerocheck's scalars after the
// two root scalars, and the prover, fed the blocks' witness, puts exactly the
// reference's scalars there — with and without the padding-tail shortcut.
func TestReferenceProofs(t *testing.T) {
	sets := []struct {
		base string
		n    int
	}{{"blake2s-batch-n256-s1", 256}, {"blake2s-batch-n300-s2", 300}, {"blake2s-batch-n4096-s3", 4096}}
	if testing.Short() {
		sets = sets[:2]
	}
	for _, s := range sets {
		t.Run(s.base, func(t *testing.T) {
			var proof transcript.Proof
			if err := proof.UnmarshalRaw(vectors.ReadFile(t, "reference-proofs/"+s.base+".proof.bin")); err != nil {
				t.Fatal(err)
			}
			nLog := witness.NLog(s.n)
			m := 14 + nLog
			v := transcript.NewVerifier(&proof, batchLabel, nil)
			if _, err := v.ReceiveMany(2); err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(v, m); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			end := 2 + skipSize + 2*(m-KSkip) + 2
			if v.Offset() != end {
				t.Fatalf("Verify stopped at scalar %d, want %d", v.Offset(), end)
			}

			blocks, err := witness.DecodeBlocks(vectors.ReadFile(t, "reference-proofs/"+s.base+".blocks.bin"))
			if err != nil {
				t.Fatal(err)
			}
			nw := witness.Words(nLog)
			w, a, b := make([]field.K, nw), make([]field.K, nw), make([]field.K, nw)
			if err := witness.FillAB(w, a, b, blocks, nLog, par.New(nil, 2)); err != nil {
				t.Fatal(err)
			}
			for _, live := range []int{s.n, 1 << nLog} {
				p := transcript.NewProver(batchLabel, nil)
				p.SendMany(proof.Stream[:2])
				in := Input{A: a, B: b, C: w, M: m, LogInstance: 14, Live: live}
				if _, err := Prove(p, in, par.New(nil, 2)); err != nil {
					t.Fatal(err)
				}
				sameStream(t, fmt.Sprintf("%s live=%d", s.base, live), p.Proof().Stream, proof.Stream[:end])
			}
		})
	}
}

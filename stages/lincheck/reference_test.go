package lincheck

import (
	"errors"
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Compile-time checks that the proof transcript serves the lincheck.
var (
	_ ProverTranscript   = (*transcript.Prover)(nil)
	_ VerifierTranscript = (*transcript.Verifier)(nil)
)

var referenceSets = []struct {
	name string
	nLog int
}{
	{"blake2s-batch-n256-s1", 8},
	{"blake2s-batch-n300-s2", 9},
	{"blake2s-batch-n4096-s3", 12},
}

// verifyReference replays the standalone batch proof through the zerocheck, the
// lincheck, the ring switch and the stacked opening, returning the first error.
func verifyReference(proof *transcript.Proof, nLog int) error {
	tr := transcript.NewVerifier(proof, []byte("flock-blake2s-batch"), nil)
	root, err := open.ReceiveRoot(tr)
	if err != nil {
		return err
	}
	c := circuit.BLAKE2s()
	zc, err := zerocheck.Verify(tr, c.LogSize()+nLog)
	if err != nil {
		return err
	}
	lc, err := Verify(tr, c, ZerocheckClaims(zc))
	if err != nil {
		return err
	}
	ring := ringswitch.Verify(tr, lc.Point, lc.S)
	mu := len(lc.Point)
	place := open.Placement{Variables: mu, Offset: 0}
	if err := open.VerifyStacked(tr, root, commit.FullShape(max(15, mu), 1), place, ring, nil); err != nil {
		return err
	}
	return tr.Finish()
}

func TestReferenceProofs(t *testing.T) {
	for _, set := range referenceSets {
		if set.nLog > 9 && testing.Short() {
			continue
		}
		t.Run(set.name, func(t *testing.T) {
			raw := vectors.ReadFile(t, "reference-proofs/"+set.name+".proof.bin")
			var proof transcript.Proof
			if err := proof.UnmarshalRaw(raw); err != nil {
				t.Fatal(err)
			}
			if err := verifyReference(&proof, set.nLog); err != nil {
				t.Fatalf("reference proof rejected: %v", err)
			}
			// A flipped bit in any of the 80 lincheck scalars is a terminal mismatch.
			m := 14 + set.nLog
			zcLen := 2 + 64 + 2*(m-KSkip) + 2 // root, coset, quadratic rounds, v_a v_b
			for i := zcLen; i < zcLen+2*8+KBits; i++ {
				bad := proof
				bad.Stream = append([]field.E(nil), proof.Stream...)
				bad.Stream[i].C0 ^= 1
				err := verifyReference(&bad, set.nLog)
				if !errors.Is(err, ErrTerminal) {
					t.Errorf("scalar %d flipped: err = %v, want lincheck terminal mismatch", i, err)
				}
			}
		})
	}
}

func ExampleVerify() {
	fmt.Println(lincheckRounds(circuit.BLAKE2s()))
	// Output: 8
}

// TestReferenceProverStream proves the reference blocks through the zerocheck and
// the lincheck and requires the stream to equal the reference proof's scalar by
// scalar up to the end of the lincheck; the ring claim must then hold on the
// witness and equal the verifier's.
func TestReferenceProverStream(t *testing.T) {
	for _, set := range referenceSets {
		if set.nLog > 9 && testing.Short() {
			continue
		}
		t.Run(set.name, func(t *testing.T) {
			var proof transcript.Proof
			if err := proof.UnmarshalRaw(vectors.ReadFile(t, "reference-proofs/"+set.name+".proof.bin")); err != nil {
				t.Fatal(err)
			}
			blocks, err := witness.DecodeBlocks(vectors.ReadFile(t, "reference-proofs/"+set.name+".blocks.bin"))
			if err != nil {
				t.Fatal(err)
			}
			nLog := witness.NLog(len(blocks))
			if nLog != set.nLog {
				t.Fatalf("nLog = %d, want %d", nLog, set.nLog)
			}
			n := witness.Words(nLog)
			w, a, b := make([]field.K, n), make([]field.K, n), make([]field.K, n)
			if err := witness.FillAB(w, a, b, blocks, nLog, par.New(nil, 2)); err != nil {
				t.Fatal(err)
			}
			c := circuit.BLAKE2s()
			tr := transcript.NewProver([]byte("flock-blake2s-batch"), nil)
			tr.SendMany(proof.Stream[:2]) // the commitment root, taken from the reference
			zc, err := zerocheck.Prove(tr, zerocheck.Input{A: a, B: b, C: w, M: c.LogSize() + nLog, LogInstance: c.LogSize(), Live: len(blocks)}, par.New(nil, 2))
			if err != nil {
				t.Fatal(err)
			}
			lc := Prove(tr, c, w, len(blocks), ZerocheckClaims(zc), par.New(nil, 2))
			got := tr.Proof().Stream
			m := c.LogSize() + nLog
			if want := 2 + 64 + 2*(m-KSkip) + 2 + 2*(c.LogSize()-KSkip) + KBits; len(got) != want || want > len(proof.Stream) {
				t.Fatalf("stream of %d scalars, want %d (reference has %d)", len(got), want, len(proof.Stream))
			}
			for i := range got {
				if got[i] != proof.Stream[i] {
					t.Fatalf("scalar %d of %d differs: %v, reference %v", i, len(got), got[i], proof.Stream[i])
				}
			}
			ring := ringswitch.Prove(tr, lc.Point, lc.S, nil, par.New(nil, 2))
			sum := field.Zero
			for u, x := range w {
				sum = sum.Add(ring.Weights[u].MulK(x))
			}
			if sum != ring.Target {
				t.Fatal("ring claim does not hold on the witness")
			}
			// The verifier, replaying the reference, reaches the same target.
			vt := transcript.NewVerifier(&proof, []byte("flock-blake2s-batch"), nil)
			if _, err := open.ReceiveRoot(vt); err != nil {
				t.Fatal(err)
			}
			vzc, err := zerocheck.Verify(vt, c.LogSize()+nLog)
			if err != nil {
				t.Fatal(err)
			}
			vlc, err := Verify(vt, c, ZerocheckClaims(vzc))
			if err != nil {
				t.Fatal(err)
			}
			if vr := ringswitch.Verify(vt, vlc.Point, vlc.S); vr.Target != ring.Target {
				t.Fatal("prover and verifier ring targets differ")
			}
		})
	}
}

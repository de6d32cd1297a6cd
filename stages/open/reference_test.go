package open_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

// The reference proofs are standalone BLAKE2s batches: root, Flock (zerocheck,
// lincheck), ring switching, stacked opening. These tests replay the Flock part of
// the transcript structurally (which scalars are read, which challenges drawn, in
// protocol order, without checking the Flock identities) to reach the opening
// with the reference's transcript state, point and slice values, then check the
// opening: the verifier accepts the reference bytes, and the prover, fed the
// blocks, reproduces them byte for byte.

const (
	flockLabel       = "flock-blake2s-batch"
	kLog             = 14 // columns of the BLAKE2s R1CS per slot, log2
	skipVars         = 6  // univariate-skip variables (64 = 2^6)
	fixedCoordinates = 7  // fixed zerocheck coordinates
	lincheckRounds   = kLog - skipVars
	kBits            = 64
)

type refSet struct {
	name     string
	nLog, mu int
}

var refSets = []refSet{{"n256-s1", 8, 16}, {"n300-s2", 9, 17}, {"n4096-s3", 12, 20}}

// channel is the common surface of the prover and verifier transcripts the replay
// drives: next reads (verifier) or re-sends (prover) the next reference scalar.
type channel struct {
	sample func() field.E
	next   func() (field.E, error)
}

// replayFlock walks the Flock part of the stream after the root and returns the
// ring-switching point and the 64 slice values.
func replayFlock(ch channel, nLog int) ([]field.E, []field.E, error) {
	m := kLog + nLog
	read := func(n int) ([]field.E, error) {
		out := make([]field.E, n)
		for i := range out {
			v, err := ch.next()
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	for i := 0; i < m-skipVars-fixedCoordinates; i++ {
		ch.sample() // sampled zerocheck coordinates
	}
	if _, err := read(kBits); err != nil { // P on the skip coset
		return nil, nil, err
	}
	ch.sample() // z_skip
	chi := make([]field.E, m-skipVars)
	for i := range chi { // eq-factored quadratic rounds: c1, c2 sent
		if _, err := read(2); err != nil {
			return nil, nil, err
		}
		chi[i] = ch.sample()
	}
	if _, err := read(2); err != nil { // v_a, v_b
		return nil, nil, err
	}
	ch.sample() // α
	lc := make([]field.E, lincheckRounds)
	for i := range lc { // plain quadratic rounds: c0, c2 sent
		if _, err := read(2); err != nil {
			return nil, nil, err
		}
		lc[i] = ch.sample()
	}
	s, err := read(kBits)
	if err != nil {
		return nil, nil, err
	}
	point := make([]field.E, 0, len(lc)+len(chi)-lincheckRounds)
	for i := len(lc) - 1; i >= 0; i-- {
		point = append(point, lc[i])
	}
	return append(point, chi[lincheckRounds:]...), s, nil
}

func loadRef(t *testing.T, name string, wire bool) (*transcript.Proof, []byte) {
	t.Helper()
	file := "reference-proofs/blake2s-batch-" + name + ".proof.bin"
	if wire {
		file = "reference-proofs/blake2s-batch-" + name + ".wire-proof.bin"
	}
	data := vectors.ReadFile(t, file)
	var p transcript.Proof
	var err error
	if wire {
		err = p.UnmarshalWire(data)
	} else {
		err = p.UnmarshalRaw(data)
	}
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return &p, data
}

func verifyRef(proof *transcript.Proof, set refSet, stackLog int) error {
	tr := transcript.NewVerifier(proof, []byte(flockLabel), nil)
	root, err := open.ReceiveRoot(tr)
	if err != nil {
		return err
	}
	point, s, err := replayFlock(channel{tr.Sample, tr.Receive}, set.nLog)
	if err != nil {
		return err
	}
	ring := ringswitch.Verify(tr, point, s)
	if err := open.VerifyStacked(tr, root, commit.FullShape(stackLog, 1), open.Placement{Variables: set.mu}, ring, nil); err != nil {
		return err
	}
	return tr.Finish()
}

func TestReferenceProofsVerify(t *testing.T) {
	for _, set := range refSets {
		for _, wire := range []bool{false, true} {
			proof, _ := loadRef(t, set.name, wire)
			if err := verifyRef(proof, set, max(open.MinStackLog, set.mu)); err != nil {
				t.Errorf("%s wire=%v: reference proof rejected: %v", set.name, wire, err)
			}
			// The same proof against the wrong stack size is rejected.
			if set.mu+1 <= open.MaxStackLog {
				bad := set
				bad.mu++
				if verifyRef(proof, bad, bad.mu) == nil {
					t.Errorf("%s wire=%v: accepted with mu+1", set.name, wire)
				}
			}
		}
	}
}

func TestReferenceProofsProve(t *testing.T) {
	for _, set := range refSets {
		if testing.Short() && set.mu > 17 {
			continue
		}
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", set.name, workers), func(t *testing.T) {
				ref, raw := loadRef(t, set.name, false)
				_, wire := loadRef(t, set.name, true)
				blocks, err := witness.DecodeBlocks(vectors.ReadFile(t, "reference-proofs/blake2s-batch-"+set.name+".blocks.bin"))
				if err != nil {
					t.Fatal(err)
				}
				stackLog := max(open.MinStackLog, set.mu)
				stack := make([]field.K, 1<<stackLog)
				if err := witness.Fill(stack, blocks, set.nLog, par.New(nil, workers)); err != nil {
					t.Fatal(err)
				}
				c, err := commit.Commit(stack, stackLog, 1, par.New(nil, workers))
				if err != nil {
					t.Fatal(err)
				}
				tr := transcript.NewProver([]byte(flockLabel), nil)
				h := commit.RootHalves(c.Root())
				tr.SendMany(h[:])
				if h[0] != ref.Stream[0] || h[1] != ref.Stream[1] {
					t.Fatal("commitment root differs from the reference")
				}
				off := 2
				next := func() (field.E, error) {
					v := ref.Stream[off]
					off++
					tr.Send(v)
					return v, nil
				}
				point, s, _ := replayFlock(channel{tr.Sample, next}, set.nLog)
				ring := ringswitch.Prove(tr, point, s, nil, par.New(nil, workers))
				if err := open.ProveStacked(tr, c, open.Placement{Variables: set.mu}, ring, nil, par.New(nil, workers)); err != nil {
					t.Fatal(err)
				}
				got := tr.Proof()
				for i := range got.Stream {
					if i >= len(ref.Stream) || got.Stream[i] != ref.Stream[i] {
						t.Fatalf("first differing scalar at %d (ours %d, reference %d scalars)", i, len(got.Stream), len(ref.Stream))
					}
				}
				if !bytes.Equal(got.MarshalRaw(), raw) {
					t.Error("raw proof bytes differ from the reference")
				}
				if !bytes.Equal(got.MarshalWire(), wire) {
					t.Error("wire proof bytes differ from the reference")
				}
			})
		}
	}
}

package aggregate

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

// forcedProof proves in with the test-only hooks: the native check is skipped and
// plan (when set) alters slot 0's assignment, so the witness is filled from an
// invalid signature or layout. It returns the proof and its statement.
func forcedProof(t *testing.T, in *Input, plan func(*Assignment)) flows.Proved {
	t.Helper()
	h := hooks{skipNativeCheck: true}
	if plan != nil {
		h.plan = func(slot int, a *Assignment) {
			if slot == 0 {
				plan(a)
			}
		}
	}
	f := newFlowWith(h, nil)
	p, err := flows.Prove(context.Background(), flows.Request{Flow: f, Input: in, LogInvRate: 1}, flows.ProveOptions{Workers: 2})
	if err != nil {
		t.Fatalf("forced proof: %v", err)
	}
	return p
}

// Soundness end to end: a proof whose witness was filled from an invalid signature
// (each invalid case of the vectors) or from a forced layout (a wrapped chain
// counter, a tip routed from the wrong chain, a swapped Merkle order, …: every one of
// forcedLayouts) is rejected
// by the real verifier.
func TestForcedInvalidProofsRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("proves one 8-slot aggregate per case")
	}
	valid, bad := loadKAT(t)
	type forced struct {
		name string
		in   *Input
		plan func(*Assignment)
	}
	single := func(k katCase) *Input {
		return &Input{Message: k.st.Message, Epoch: k.st.Epoch, Signers: []Signer{{PublicKey: k.st.PublicKey, Signature: k.sig}}}
	}
	var cases []forced
	for _, k := range bad {
		cases = append(cases, forced{"invalid vector " + k.id, single(k), nil})
	}
	k := valid[0]
	for _, l := range forcedLayouts(t, k) {
		cases = append(cases, forced{l.name, single(k), l.apply})
	}
	if cpu.Active() == cpu.Portable {
		// Every kernel portable (the CI's capped and purego passes, where a proof is
		// several times slower): one invalid vector and one forced layout; the full
		// set runs with assembly.
		cases = []forced{cases[0], cases[len(bad)]}
	}
	for _, c := range cases {
		if c.in.Invalid() == nil && c.plan == nil {
			t.Fatalf("%s: the signature verifies natively", c.name)
		}
		p := forcedProof(t, c.in, c.plan)
		if _, err := Flow.Verify(p.Proof, p.Statement); err == nil {
			t.Errorf("%s: the proof verified", c.name)
		} else {
			t.Logf("%s: rejected: %v", c.name, err)
		}
	}
}

// TestProofMutationsRejected changes one byte of an aggregate proof at a time, in both
// forms: every stream scalar once and sampled bytes of the openings, at least 1,000
// mutations in all (100 when every kernel is portable; LEANPIPE_MUTATIONS overrides
// the total). Every mutation is rejected without
// a panic.
func TestProofMutationsRejected(t *testing.T) {
	if testing.Short() && os.Getenv("LEANPIPE_MUTATIONS") == "" {
		t.Skip("proves a 3-signer aggregate and verifies 1,000 mutations of it")
	}
	total := 1000
	if cpu.Active() == cpu.Portable {
		// With every kernel portable (the CI's capped and purego passes) a
		// verification is several times slower; the full sweep runs with assembly.
		total = 100
	}
	if v := os.Getenv("LEANPIPE_MUTATIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LEANPIPE_MUTATIONS=%q", v)
		}
		total = n
	}
	in := genInput(t, 3, 21)
	p := proveInput(t, Flow, in, 2)
	rng := testrand.New(t)
	type mutation struct {
		form string
		off  int
		x    byte
	}
	var muts []mutation
	forms := map[string][]byte{"wire": p.Proof.MarshalWire(), "raw": p.Proof.MarshalRaw()}
	streamEnd := 8 + 24*len(p.Proof.Stream)
	stride := max(1, (2*len(p.Proof.Stream)+total-1)/total) // every scalar unless the total is small
	for i := 0; i < len(p.Proof.Stream); i += stride {
		muts = append(muts, mutation{"wire", 8 + 24*i + rng.IntN(24), byte(1 + rng.IntN(255))})
	}
	for len(muts) < total {
		form := []string{"wire", "raw"}[rng.IntN(2)]
		data := forms[form]
		off := rng.IntN(len(data))
		if rng.IntN(4) != 0 { // mostly the openings, the bulk of the bytes
			off = streamEnd + rng.IntN(len(data)-streamEnd)
		}
		muts = append(muts, mutation{form, off, byte(1 + rng.IntN(255))})
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(muts))
	next := make(chan mutation)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range next {
				bad := bytes.Clone(forms[m.form])
				bad[m.off] ^= m.x
				var pr transcript.Proof
				var err error
				if m.form == "raw" {
					err = pr.UnmarshalRaw(bad)
				} else {
					err = pr.UnmarshalWire(bad)
				}
				if err == nil {
					_, err = Flow.Verify(&pr, p.Statement)
				}
				switch {
				case err == nil:
					errs <- m.form + " byte " + strconv.Itoa(m.off) + " changed: accepted"
				case strings.Contains(err.Error(), "panicked"):
					errs <- m.form + " byte " + strconv.Itoa(m.off) + " changed: " + err.Error()
				}
			}
		}()
	}
	for _, m := range muts {
		next <- m
	}
	close(next)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	t.Logf("%d single-byte mutations (%d stream scalars of %d, one each) of a %d-byte wire proof: all rejected",
		len(muts), (len(p.Proof.Stream)+stride-1)/stride, len(p.Proof.Stream), len(forms["wire"]))
}

package keccak

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// pinnedProofs are the SHA-256 digests of the registered flow's proofs of
// GenerateInput(n, seed) at rate 1 and of the files WriteProof writes beside them
// (the wire proof, PROOF.json, PROOF.states), and of the statement's data. They
// were taken before the plan stage took its binding from the input and before
// the witness read its states in place: the proof and files must not change with
// how the prover gets to them.
var pinnedProofs = []struct {
	n                         int
	seed                      uint64
	proof, data, json, states string
}{
	{
		n: 7, seed: 8,
		proof:  "9f86e97cb8a2077b275b55c46993e93c713b3b50dcb037e39f5f91b31ea0a0eb",
		data:   "d949237d5786c6cfde7777dc47d1382804c513a7b44a8cbf508fa4c803d63eb6",
		json:   "f0c68fde137f69f4915972996fd5589cabae7308706a95bc1dfb06d9449156fb",
		states: "18d71374ee6bb371f44ec9e6184b829cefa4a29d39155f4309c6e580ca792647",
	},
	{
		n: 200, seed: 3,
		proof:  "619ca2066f8a8bb093d0e38624c5e9dd7f0f4db1461647cac249d52523c0ba6e",
		data:   "ebca88b288731db6ec737c06378f934f664504fa7f45f0bfe7fe2a9d16ee87d9",
		json:   "571b5dfd69a9780ec1ade829ee897bdf02e200cbc03b94c464dc4a149ddc0f05",
		states: "c50236ccd668013c7f84cc977b2199c2cd5fff049d273b93683c252d3ddd0617",
	},
}

// The proof bytes, the statement's data and the files beside a proof are the
// pinned ones, at 1 and 2 workers.
func TestProofBytesPinned(t *testing.T) {
	sum := func(b []byte) string { d := sha256.Sum256(b); return hex.EncodeToString(d[:]) }
	for _, c := range pinnedProofs {
		in := GenerateInput(c.n, c.seed)
		for _, workers := range []int{1, 2} {
			p := prove(t, Flow, in, workers)
			path := filepath.Join(t.TempDir(), "k.bin")
			if err := flows.WriteProof(path, p.Proof, flows.NewMetaFor(Flow, p.Statement, flows.FormatWire)); err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, suffix := range []string{"", ".json", StatesSuffix} {
				b, err := os.ReadFile(path + suffix)
				if err != nil {
					t.Fatal(err)
				}
				files[suffix] = b
			}
			got := [4]string{sum(files[""]), sum(p.Statement.Data), sum(files[".json"]), sum(files[StatesSuffix])}
			want := [4]string{c.proof, c.data, c.json, c.states}
			for i, name := range []string{"proof", "statement data", "PROOF.json", "PROOF.states"} {
				if got[i] != want[i] {
					t.Errorf("n=%d seed=%d, %d workers: %s SHA-256 %s, pinned %s", c.n, c.seed, workers, name, got[i], want[i])
				}
			}
		}
	}
}

// The statement's data written on workers is the one-piece base64 encoding, for
// lengths around the chunk size and any worker count.
func TestStatementOnWorkers(t *testing.T) {
	rng := testrand.New(t)
	for _, n := range []int{0, 1, 2, 3, 4, encodeChunk - 1, encodeChunk, encodeChunk + 1, 3*encodeChunk + 2, 5 * encodeChunk} {
		states := make([]byte, n)
		for i := range states {
			states[i] = byte(rng.Uint64())
		}
		s := Statement{Permutations: n + 1, States: states}
		want := fmt.Sprintf(`{"permutations":%d,"states":"%s"}`, n+1, base64.StdEncoding.EncodeToString(states))
		for _, w := range []int{1, 2, 3, 8} {
			if got := s.appendJSON(par.New(nil, w), []byte("x")); string(got) != "x"+want {
				t.Fatalf("%d bytes on %d workers: the encoding differs from the serial one", n, w)
			}
		}
	}
	b, err := Flow.FromValue(GenerateInput(300, 4))
	if err != nil {
		t.Fatal(err)
	}
	if on, st := b.(Batch).StatementOn(par.New(nil, 2)), b.(Batch).Statement(); !bytes.Equal(on, st) {
		t.Fatal("StatementOn differs from Statement")
	}
}

// A batch's own Binding is what the verifier's Bind makes of its statement: the
// same absorbed bytes and the same public term, for both layouts and N that fill
// and do not fill the last block.
func TestBindingMatchesBind(t *testing.T) {
	for _, l := range []Layout{Sparse, Dense} {
		f := NewFlow(l)
		for _, n := range []int{1, 7, 200} {
			in, err := f.FromValue(GenerateInput(n, uint64(n)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := in.(flows.Bound).Binding()
			if err != nil {
				t.Fatal(err)
			}
			want, err := bind(l, flows.StatementOf(f, in, 1))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Absorb, want.Absorb) {
				t.Fatalf("%+v n=%d: absorbed bytes differ", l, n)
			}
			if gp, wp := got.Public.(*Public), want.Public.(*Public); gp.l != wp.l || !bytes.Equal(gp.states, wp.states) {
				t.Fatalf("%+v n=%d: public terms differ", l, n)
			}
		}
	}
}

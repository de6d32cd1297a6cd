package transcript

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/internal/vectors"
)

// FuzzUnmarshal feeds arbitrary bytes to both decoders: they never panic, and whatever
// they accept re-encodes to exactly the input (the encodings are canonical).
func FuzzUnmarshal(f *testing.F) {
	for _, set := range refSets {
		for _, kind := range []string{".proof.bin", ".wire-proof.bin"} {
			b := vectors.ReadFile(f, "reference-proofs/"+set.base+kind)
			// The head: the stream prefix and the first scalars.
			f.Add(b[:min(len(b), 200)])
		}
	}
	// Small well-formed proofs of both forms, and a huge length prefix.
	p := NewProver([]byte("fuzz"), nil)
	p.Send(p.Sample())
	f.Add(p.Proof().MarshalRaw())
	f.Add(p.Proof().MarshalWire())
	f.Add(binary.LittleEndian.AppendUint64(nil, 1<<62))
	f.Add(append(binary.LittleEndian.AppendUint64(nil, 0), binary.LittleEndian.AppendUint64(nil, 1<<40)...))

	f.Fuzz(func(t *testing.T, data []byte) {
		var raw Proof
		if raw.UnmarshalRaw(data) == nil && !bytes.Equal(raw.MarshalRaw(), data) {
			t.Fatal("raw decode/encode is not the identity")
		}
		var wire Proof
		if wire.UnmarshalWire(data) == nil && !bytes.Equal(wire.MarshalWire(), data) {
			t.Fatal("wire decode/encode is not the identity")
		}
	})
}

// TestUnmarshalRejects checks truncation, oversized lengths and trailing bytes on the
// reference files and on hand-made inputs.
func TestUnmarshalRejects(t *testing.T) {
	for _, name := range []string{"blake2s-batch-n256-s1.proof.bin", "blake2s-batch-n256-s1.wire-proof.bin"} {
		b := vectors.ReadFile(t, "reference-proofs/"+name)
		dec := func(b []byte) error {
			var p Proof
			if name[len(name)-len(".wire-proof.bin"):] == ".wire-proof.bin" {
				return p.UnmarshalWire(b)
			}
			return p.UnmarshalRaw(b)
		}
		if err := dec(b); err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{0, 1, 7, 8, 9, 100, len(b) / 2, len(b) - 33, len(b) - 1} {
			if dec(b[:cut]) == nil {
				t.Fatalf("%s truncated to %d bytes accepted", name, cut)
			}
		}
		if dec(append(b[:len(b):len(b)], 0)) == nil {
			t.Fatalf("%s with a trailing byte accepted", name)
		}
		big := bytes.Clone(b)
		binary.LittleEndian.PutUint64(big, uint64(len(b)))
		if dec(big) == nil {
			t.Fatalf("%s with an oversized stream length accepted", name)
		}
	}
	for _, b := range [][]byte{
		binary.LittleEndian.AppendUint64(nil, ^uint64(0)),
		binary.LittleEndian.AppendUint64(make([]byte, 8), 1<<60),
	} {
		var p Proof
		if p.UnmarshalRaw(b) == nil || p.UnmarshalWire(b) == nil {
			t.Fatalf("oversized length %x accepted", b)
		}
	}
}

// FuzzVerify decodes arbitrary bytes in both forms and replays a fixed script of every
// operation kind on them: the verifier never panics, whatever the proof.
func FuzzVerify(f *testing.F) {
	s, p := randomScript(rand.New(rand.NewPCG(7, 11)), 30)
	f.Add(p.Proof().MarshalRaw())
	f.Add(p.Proof().MarshalWire())
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, form := range []string{"raw", "wire"} {
			_ = decodeAndReplay(s, form, data)
		}
	})
}

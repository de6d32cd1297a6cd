package open

import (
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/transcript"
)

func heavy() bool { return os.Getenv("LEANPIPE_HEAVY") != "" }

// rejects reports whether the verifier rejects data as a raw (wire=false) or wire proof.
func (in *instance) rejects(data []byte, wire bool) bool {
	var p transcript.Proof
	var err error
	if wire {
		err = p.UnmarshalWire(data)
	} else {
		err = p.UnmarshalRaw(data)
	}
	if err != nil {
		return true
	}
	return in.verify(&p) != nil
}

// TestTamperStream mutates bytes of the scalar stream (every byte with
// LEANPIPE_HEAVY=1, a sample otherwise); each mutated proof must be rejected.
func TestTamperStream(t *testing.T) {
	rng := testrand.New(t)
	in := newInstance(rng, 15, 1, 13, 2)
	proof := in.prove(t, 2)
	raw := proof.MarshalRaw()
	streamEnd := 8 + 24*len(proof.Stream)
	var positions []int
	if heavy() {
		for i := 8; i < streamEnd; i++ {
			positions = append(positions, i)
		}
	} else {
		// Every scalar once (a random byte of it), plus the first and last bytes.
		for s := 0; s < len(proof.Stream); s++ {
			positions = append(positions, 8+24*s+rng.IntN(24))
		}
		positions = append(positions, 8, streamEnd-1)
	}
	for _, pos := range positions {
		bad := append([]byte(nil), raw...)
		bad[pos] ^= byte(1 + rng.IntN(255))
		if !in.rejects(bad, false) {
			t.Fatalf("stream byte %d (scalar %d) mutated: accepted", pos, (pos-8)/24)
		}
	}
	t.Logf("%d stream mutations rejected (%d scalars)", len(positions), len(proof.Stream))
}

// TestTamperMerkle mutates sampled bytes of the Merkle openings, raw and wire form.
func TestTamperMerkle(t *testing.T) {
	rng := testrand.New(t)
	in := newInstance(rng, 15, 1, 15, 1)
	proof := in.prove(t, 2)
	streamEnd := 8 + 24*len(proof.Stream)
	n := 2000
	if testing.Short() {
		n = 300
	}
	for _, wire := range []bool{false, true} {
		data := proof.MarshalRaw()
		count := n
		if wire {
			data = proof.MarshalWire()
			count = n / 4
		}
		for i := 0; i < count; i++ {
			pos := streamEnd + rng.IntN(len(data)-streamEnd)
			bad := append([]byte(nil), data...)
			bad[pos] ^= byte(1 + rng.IntN(255))
			if !in.rejects(bad, wire) {
				t.Fatalf("wire=%v: Merkle byte %d of %d mutated: accepted", wire, pos, len(data))
			}
		}
	}
	// A commitment in 3 of the 64 lanes: its wire rows are short.
	part := newPartialInstance(rng, 15, 1, 3, 10, 1)
	pp := part.prove(t, 2)
	data, partEnd := pp.MarshalWire(), 8+24*len(pp.Stream)
	for i := 0; i < n/4; i++ {
		pos := partEnd + rng.IntN(len(data)-partEnd)
		bad := append([]byte(nil), data...)
		bad[pos] ^= byte(1 + rng.IntN(255))
		if !part.rejects(bad, true) {
			t.Fatalf("partial lanes: wire Merkle byte %d of %d mutated: accepted", pos, len(data))
		}
	}
}

// TestTamperTruncate cuts the proof short at sampled lengths.
func TestTamperTruncate(t *testing.T) {
	rng := testrand.New(t)
	in := newInstance(rng, 15, 1, 12, 0)
	data := in.prove(t, 1).MarshalRaw()
	for i := 0; i < 50; i++ {
		if !in.rejects(data[:rng.IntN(len(data))], false) {
			t.Fatal("truncated proof accepted")
		}
	}
	if !in.rejects(append(data, 0), false) {
		t.Fatal("proof with a trailing byte accepted")
	}
}

// FuzzVerify feeds the verifier honest proofs with a mutated byte, optionally cut
// at that position and continued with arbitrary bytes. It must never panic, and a
// proof with exactly one changed byte must be rejected.
func FuzzVerify(f *testing.F) {
	rng := testrand.New(f)
	in := newInstance(rng, 15, 1, 13, 1)
	proof := in.prove(f, 1)
	forms := [2][]byte{proof.MarshalRaw(), proof.MarshalWire()}
	f.Add(uint32(0), byte(1), false, []byte{})
	f.Add(uint32(9000), byte(0x80), true, []byte{})
	f.Add(uint32(100), byte(0), false, []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, pos uint32, mask byte, wire bool, tail []byte) {
		src := forms[0]
		if wire {
			src = forms[1]
		}
		p := int(pos % uint32(len(src)))
		data := append([]byte(nil), src...)
		data[p] ^= mask
		if len(tail) > 0 {
			data = append(data[:p+1], tail...)
		}
		if !in.rejects(data, wire) && mask != 0 && len(tail) == 0 {
			t.Fatalf("byte %d ^ %#x accepted (wire=%v)", p, mask, wire)
		}
	})
}

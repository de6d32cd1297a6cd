package transcript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/par"
)

func randE(rng *rand.Rand) field.E {
	return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
}

// step is one transcript operation with what the prover saw, for the verifier to replay.
type step struct {
	kind    string
	x       field.E   // observe, send
	xs      []field.E // sendMany, samples output, round poly coefficients
	data    []byte    // absorb_bytes
	n       int       // samples count, grind bits, query count
	eq      *field.E  // round poly eq factor
	claim   field.E   // round poly claim
	tree    *merkle.Tree
	queries []int
	rows    [][]uint64
	out     field.E // sample output
}

type script struct {
	label     []byte
	statement []field.E
	steps     []step
	final     State
}

// randomScript runs a random sequence of operations on a prover. It always ends with a
// sample, so every transmitted scalar influences a later challenge.
func randomScript(rng *rand.Rand, nops int) (*script, *Prover) {
	s := &script{label: []byte(fmt.Sprintf("test-%d", rng.IntN(1000)))}
	for range rng.IntN(3) {
		s.statement = append(s.statement, randE(rng))
	}
	p := NewProver(s.label, s.statement)
	for range nops {
		var st step
		switch rng.IntN(10) {
		case 0:
			st = step{kind: "observe", x: randE(rng)}
			p.Observe(st.x)
		case 1:
			st = step{kind: "absorb", data: make([]byte, rng.IntN(60))}
			for i := range st.data {
				st.data[i] = byte(rng.Uint32())
			}
			p.AbsorbBytes(st.data)
		case 2:
			st = step{kind: "send", x: randE(rng)}
			p.Send(st.x)
		case 3:
			st = step{kind: "sendMany", xs: make([]field.E, rng.IntN(4))}
			for i := range st.xs {
				st.xs[i] = randE(rng)
			}
			p.SendMany(st.xs)
		case 4:
			st = step{kind: "samples", xs: p.Samples(1 + rng.IntN(3))}
		case 5:
			st = step{kind: "roundPoly", xs: make([]field.E, 2+rng.IntN(3))}
			for i := range st.xs {
				st.xs[i] = randE(rng)
			}
			var tail field.E
			for _, c := range st.xs[1:] {
				tail = tail.Add(c)
			}
			if rng.IntN(2) == 0 {
				st.claim = tail // h(0) + h(1) = c1 + ... + cd
			} else {
				r := randE(rng)
				st.eq = &r
				st.claim = st.xs[0].Add(r.Mul(tail))
			}
			p.SendRoundPoly(st.xs, st.eq != nil)
		case 6:
			st = step{kind: "grind", n: rng.IntN(11)}
			p.GrindParallel(st.n, par.New(nil, 1+rng.IntN(3)))
		case 7, 8:
			depth := 1 + rng.IntN(6)
			words := 1 + rng.IntN(8)
			rows := make([]uint64, words<<depth)
			for i := range rows {
				rows[i] = rng.Uint64()
			}
			leafWords := words
			if rng.IntN(3) == 0 {
				leafWords += 1 + rng.IntN(9) // a padded commitment
			}
			st = step{kind: "open", tree: merkle.NewPadded(nil, rows, words, leafWords, par.New(nil, 2))}
			p.SendDigest(st.tree.Root())
			st.queries = p.SampleQueries(1<<depth, 1+rng.IntN(12))
			st.rows = p.Open(st.tree, st.queries)
		default:
			st = step{kind: "digest"}
			d := merkle.Digest{byte(rng.Uint32())}
			st.data = d[:]
			p.ObserveDigest(d)
		}
		s.steps = append(s.steps, st)
	}
	s.steps = append(s.steps, step{kind: "sample", out: p.Sample()})
	s.final = p.State()
	return s, p
}

// replay verifies proof against the script, returning the first disagreement.
func (s *script) replay(proof *Proof) (*Verifier, error) {
	v := NewVerifier(proof, s.label, s.statement)
	for i, st := range s.steps {
		fail := func(err error) error { return fmt.Errorf("step %d (%s): %w", i, st.kind, err) }
		switch st.kind {
		case "observe":
			v.Observe(st.x)
		case "absorb":
			v.AbsorbBytes(st.data)
		case "send":
			x, err := v.Receive()
			if err != nil {
				return v, fail(err)
			}
			if x != st.x {
				return v, fail(errors.New("received a different scalar"))
			}
		case "sendMany":
			xs, err := v.ReceiveMany(len(st.xs))
			if err != nil {
				return v, fail(err)
			}
			if !slices.Equal(xs, st.xs) {
				return v, fail(errors.New("received different scalars"))
			}
		case "samples":
			if !slices.Equal(v.Samples(len(st.xs)), st.xs) {
				return v, fail(errors.New("challenges differ"))
			}
		case "sample":
			if v.Sample() != st.out {
				return v, fail(errors.New("challenge differs"))
			}
		case "roundPoly":
			c, err := v.RoundPoly(len(st.xs), st.claim, st.eq)
			if err != nil {
				return v, fail(err)
			}
			if !slices.Equal(c, st.xs) {
				return v, fail(errors.New("round polynomial differs"))
			}
		case "grind":
			if err := v.GrindCheck(st.n); err != nil {
				return v, fail(err)
			}
		case "open":
			root, err := v.ReceiveDigest()
			if err != nil {
				return v, fail(err)
			}
			q := v.SampleQueries(st.tree.Leaves(), len(st.queries))
			if !slices.Equal(q, st.queries) {
				return v, fail(errors.New("queries differ"))
			}
			rows, err := v.MerklePadded(root, st.tree.Leaves(), q, st.tree.RowWords(), st.tree.LeafWords())
			if err != nil {
				return v, fail(err)
			}
			for j := range rows {
				if !slices.Equal(rows[j], st.rows[j]) {
					return v, fail(errors.New("opened rows differ"))
				}
			}
		case "digest":
			v.ObserveDigest(merkle.Digest(st.data))
		}
	}
	if v.State() != s.final {
		return v, errors.New("final state differs")
	}
	return v, v.Finish()
}

func TestRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	for trial := 0; trial < 60; trial++ {
		s, p := randomScript(rng, 1+rng.IntN(25))
		proof := p.Proof()
		rawBytes, wireBytes := proof.MarshalRaw(), proof.MarshalWire()
		var raw, wire Proof
		if err := raw.UnmarshalRaw(rawBytes); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if err := wire.UnmarshalWire(wireBytes); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for name, pr := range map[string]*Proof{"prover": proof, "raw": &raw, "wire": &wire} {
			v, err := s.replay(pr)
			if err != nil {
				t.Fatalf("trial %d, %s form: %v", trial, name, err)
			}
			if !bytes.Equal(v.RawProof().MarshalRaw(), rawBytes) {
				t.Fatalf("trial %d, %s form: verifier's raw proof differs from the prover's", trial, name)
			}
		}
	}
}

// TestTamperStream flips every byte of the stream in both forms: each flip is rejected
// (a later challenge differs, a check fails, or the proof no longer decodes).
func TestTamperStream(t *testing.T) {
	rng := testrand.New(t)
	for trial := 0; trial < 4; trial++ {
		s, p := randomScript(rng, 20)
		proof := p.Proof()
		streamEnd := 8 + 24*len(proof.Stream)
		for _, form := range []string{"raw", "wire"} {
			enc := proof.MarshalRaw()
			if form == "wire" {
				enc = proof.MarshalWire()
			}
			for i := 0; i < streamEnd; i++ {
				bad := slices.Clone(enc)
				bad[i] ^= 1 << rng.IntN(8)
				if decodeAndReplay(s, form, bad) == nil {
					t.Fatalf("trial %d, %s: flipped stream byte %d accepted", trial, form, i)
				}
			}
		}
	}
}

// TestTamperMerkle flips sampled bytes of the Merkle section in both forms.
func TestTamperMerkle(t *testing.T) {
	rng := testrand.New(t)
	checked := 0
	for trial := 0; trial < 20 && checked < 4000; trial++ {
		s, p := randomScript(rng, 25)
		proof := p.Proof()
		if len(proof.Openings) == 0 {
			continue
		}
		streamEnd := 8 + 24*len(proof.Stream)
		for _, form := range []string{"raw", "wire"} {
			enc := proof.MarshalRaw()
			if form == "wire" {
				enc = proof.MarshalWire()
			}
			for range 200 {
				i := streamEnd + rng.IntN(len(enc)-streamEnd)
				bad := slices.Clone(enc)
				bad[i] ^= 1 << rng.IntN(8)
				if decodeAndReplay(s, form, bad) == nil {
					t.Fatalf("trial %d, %s: flipped Merkle byte %d of %d accepted", trial, form, i, len(enc))
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no script opened anything")
	}
}

func decodeAndReplay(s *script, form string, b []byte) error {
	var pr Proof
	var err error
	if form == "raw" {
		err = pr.UnmarshalRaw(b)
	} else {
		err = pr.UnmarshalWire(b)
	}
	if err != nil {
		return err
	}
	_, err = s.replay(&pr)
	return err
}

func TestVerifierErrors(t *testing.T) {
	p := NewProver([]byte("e"), nil)
	p.Send(field.One)
	p.Grind(4)
	proof := p.Proof()

	v := NewVerifier(proof, []byte("e"), nil)
	if err := v.Finish(); !errors.Is(err, ErrNotConsumed) {
		t.Fatalf("unread stream: %v", err)
	}
	if _, err := v.ReceiveMany(3); !errors.Is(err, ErrStreamExhausted) {
		t.Fatalf("ReceiveMany past the end: %v", err)
	}
	if _, err := v.Receive(); err != nil {
		t.Fatal(err)
	}
	if err := v.GrindCheck(4); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Receive(); !errors.Is(err, ErrStreamExhausted) {
		t.Fatalf("Receive past the end: %v", err)
	}
	if _, err := v.RoundPoly(3, field.Zero, nil); !errors.Is(err, ErrStreamExhausted) {
		t.Fatalf("RoundPoly past the end: %v", err)
	}
	if _, err := v.Merkle(merkle.Digest{}, 8, []int{1}, 1); !errors.Is(err, ErrMissingOpening) {
		t.Fatalf("missing opening: %v", err)
	}

	// bits = 0 admits only the zero nonce.
	v0 := NewVerifier(&Proof{Stream: []field.E{{C1: 1}}}, nil, nil)
	if err := v0.GrindCheck(0); !errors.Is(err, ErrPow) {
		t.Fatalf("nonzero nonce at 0 bits: %v", err)
	}
	// A wrong nonce fails.
	bad := slices.Clone(proof.Stream)
	bad[1].C0++
	vb := NewVerifier(&Proof{Stream: bad}, []byte("e"), nil)
	vb.Receive()
	if err := vb.GrindCheck(4); err == nil {
		// The incremented nonce may pass by chance (1/16); then it must not be the smallest.
		if uint64(bad[1].C0) <= uint64(proof.Stream[1].C0) {
			t.Fatal("nonce check inconsistent")
		}
	}
	if _, err := ScalarsDigest([2]field.E{{C2: 1}, {}}); !errors.Is(err, ErrNonCanonical) {
		t.Fatalf("non-canonical digest: %v", err)
	}
	vd := NewVerifier(&Proof{Stream: []field.E{{C0: 1, C2: 1}, {}}}, nil, nil)
	if _, err := vd.ReceiveDigest(); !errors.Is(err, ErrNonCanonical) {
		t.Fatalf("ReceiveDigest non-canonical: %v", err)
	}
}

func TestDigestScalars(t *testing.T) {
	rng := testrand.New(t)
	var d merkle.Digest
	for i := range d {
		d[i] = byte(rng.Uint32())
	}
	s := DigestScalars(d)
	if s[0].C2 != 0 || s[1].C2 != 0 || s[0].Bytes()[0] != d[0] || s[1].Bytes()[8] != d[24] {
		t.Fatal("digest split layout")
	}
	back, err := ScalarsDigest(s)
	if err != nil || back != d {
		t.Fatal("digest round trip")
	}
}

// TestGrindSmallest checks the nonce is the smallest passing one for any worker count.
func TestGrindSmallest(t *testing.T) {
	rng := testrand.New(t)
	for trial := 0; trial < 6; trial++ {
		bits := 1 + rng.IntN(12)
		label := []byte{byte(trial)}
		p := NewProver(label, nil)
		base := p.fs.powBase()
		n := p.GrindParallel(bits, par.Serial())
		if !powOK(base, field.E{C0: field.K(n)}, bits) {
			t.Fatalf("nonce %d does not pass %d bits", n, bits)
		}
		for m := uint64(0); m < n; m++ {
			if powOK(base, field.E{C0: field.K(m)}, bits) {
				t.Fatalf("nonce %d < %d also passes %d bits", m, n, bits)
			}
		}
		for _, w := range []int{2, 3, 5} {
			q := NewProver(label, nil)
			if got := q.GrindParallel(bits, par.New(nil, w)); got != n || q.State() != p.State() {
				t.Fatalf("%d workers: nonce %d, want %d", w, got, n)
			}
		}
	}
}

func BenchmarkGrind17(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := NewProver([]byte{byte(i), byte(i >> 8)}, nil)
				i++
				p.GrindParallel(17, par.New(nil, w))
			}
		})
	}
}

func BenchmarkSum256x64(b *testing.B) {
	var buf [64]byte
	for b.Loop() {
		d := blake2s.Sum256(buf[:])
		buf[0] = d[0]
	}
}

func BenchmarkCompress(b *testing.B) {
	s := [4]uint64{1, 2, 3, 4}
	for b.Loop() {
		s = Compress(s, [4]uint64{5, 6, 7, dsSqueeze})
	}
}

// TestCompressMatchesSum256 checks the word-level compression against hashing the 64-byte
// image with Sum256.
func TestCompressMatchesSum256(t *testing.T) {
	rng := testrand.New(t)
	for range 200 {
		var l, r [4]uint64
		var buf [64]byte
		for i := range 4 {
			l[i], r[i] = rng.Uint64(), rng.Uint64()
			binary.LittleEndian.PutUint64(buf[8*i:], l[i])
			binary.LittleEndian.PutUint64(buf[32+8*i:], r[i])
		}
		d := blake2s.Sum256(buf[:])
		if Compress(l, r) != digestWords(&d) {
			t.Fatal("Compress differs from Sum256 of the 64-byte image")
		}
	}
}

// A length prefix the bytes left cannot hold is reported in bytes against bytes.
func TestLengthErrorsCompareBytes(t *testing.T) {
	// 154 digests need 4,928 bytes; give one fewer.
	r := &reader{b: make([]byte, 8+4927)}
	binary.LittleEndian.PutUint64(r.b, 154)
	_, err := r.digests()
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "154 digests need 4,928 bytes, 4,927 left") {
		t.Fatalf("error %v", err)
	}
	r = &reader{b: make([]byte, 8+10)}
	binary.LittleEndian.PutUint64(r.b, 1<<62)
	if _, err := r.count(16, "phases", false); err == nil || !strings.Contains(err.Error(), "phases need more than") {
		t.Fatalf("huge count: %v", err)
	}
	r = &reader{b: make([]byte, 8+10)}
	binary.LittleEndian.PutUint64(r.b, 2)
	if _, err := r.count(16, "openings", false); err == nil || !strings.Contains(err.Error(), "2 openings need at least 32 bytes, 10 left") {
		t.Fatalf("small count: %v", err)
	}
}

// A nil proof is an empty one to the verifier: reads fail, nothing panics.
func TestVerifierNilProof(t *testing.T) {
	v := NewVerifier(nil, []byte("test"), nil)
	if _, err := v.Receive(); err == nil {
		t.Fatal("a nil proof yielded a scalar")
	}
}

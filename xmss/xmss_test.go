package xmss

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	lpblake2s "github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// rngReader adapts the seeded test generator to an io.Reader for signing.
type rngReader struct{ r *rand.Rand }

func (g rngReader) Read(b []byte) (int, error) {
	for i := 0; i < len(b); i += 8 {
		v := g.r.Uint64()
		for j := i; j < min(i+8, len(b)); j++ {
			b[j] = byte(v >> (8 * (j - i)))
		}
	}
	return len(b), nil
}

func randomSeed(r *rand.Rand) (s [SeedSize]byte) {
	for i := range s {
		s[i] = byte(r.Uint32())
	}
	return s
}

func randomMessage(r *rand.Rand) (m Message) {
	for i := range m {
		m[i] = byte(r.Uint32())
	}
	return m
}

// naiveNode computes node (ℓ, j) of the key of (seed, lo, hi) recursively, one hash at a
// time, straight from XMSS.md §7: an independent model of the many-lane band build.
func naiveNode(prf *prfKeyed, p *PublicParam, lo, hi uint64, level int, j uint64) Digest {
	if lo>>level > j || j > hi>>level {
		return prf.eval(domainFiller, uint64(level), j)
	}
	if level == 0 {
		var ends [V]Digest
		for i := range ends {
			ends[i] = walkChain(p, uint32(j), i, 0, ChainLength-1, prf.eval(domainWotsSecret, j, uint64(i)))
		}
		return Leaf(p, uint32(j), &ends)
	}
	l := naiveNode(prf, p, lo, hi, level-1, 2*j)
	r := naiveNode(prf, p, lo, hi, level-1, 2*j+1)
	return MerkleNode(p, level, uint32(j), &l, &r)
}

// TestGenerateKeyMatchesNaive compares the many-lane key generation with the recursive model
// over ranges at the ends of the epoch space, single epochs, and ranges crossing subtree
// boundaries and the leaf batch size.
func TestGenerateKeyMatchesNaive(t *testing.T) {
	r := testrand.New(t)
	ranges := [][2]uint32{{0, 0}, {0, 15}, {7, 7}, {1, 2}, {63, 64}, {1 << 31, 1<<31 + 2}, {0xFFFFFFFF, 0xFFFFFFFF}, {0xFFFFFFF0, 0xFFFFFFFF}, {100, 100 + leafBatch + 3}}
	if !testing.Short() {
		ranges = append(ranges, [2]uint32{5, 5 + 3*leafBatch})
	}
	for _, rg := range ranges {
		seed := randomSeed(r)
		sk, pk, err := GenerateKey(seed, rg[0], rg[1])
		if err != nil {
			t.Fatal(err)
		}
		prf := newPRF(&seed)
		p := prf.eval(domainPublicParam, 0, 0)
		want := naiveNode(&prf, &p, uint64(rg[0]), uint64(rg[1]), LogLifetime, 0)
		if pk.Root != want || pk.P != p {
			t.Errorf("range %v: root %x P %x, naive root %x P %x", rg, pk.Root, pk.P, want, p)
		}
		if sk.PublicKey() != pk || sk.EpochStart() != rg[0] || sk.EpochEnd() != rg[1] || sk.Seed() != seed {
			t.Errorf("range %v: accessors disagree", rg)
		}
	}
}

func TestGenerateKeyRange(t *testing.T) {
	_, _, err := GenerateKey([SeedSize]byte{}, 5, 4)
	if !errors.Is(err, ErrInvalidRange) {
		t.Fatalf("GenerateKey(5, 4) = %v, want ErrInvalidRange", err)
	}
	if _, _, err := GenerateKey([SeedSize]byte{}, 0, 0xFFFFFFFF); !errors.Is(err, ErrRangeTooLarge) {
		t.Fatalf("GenerateKey over 2^32 epochs = %v, want ErrRangeTooLarge", err)
	}
	// The root depends on the range (the reference's deterministic_keygen).
	_, a, _ := GenerateKey([SeedSize]byte{1}, 0, 3)
	_, b, _ := GenerateKey([SeedSize]byte{1}, 0, 4)
	_, c, _ := GenerateKey([SeedSize]byte{1}, 0, 3)
	if a == b || a != c || a.P != b.P {
		t.Errorf("keys %v %v %v: want the root to depend on the range only", a, b, c)
	}
}

// TestRoundTrip signs random messages at every epoch of a small range (the ρ search
// included) and verifies them; a signature does not verify at another epoch, under
// another message or another key.
func TestRoundTrip(t *testing.T) {
	r := testrand.New(t)
	lo, hi := uint32(1<<20-3), uint32(1<<20+2)
	if testing.Short() {
		hi = lo + 1
	}
	sk, pk, err := GenerateKey(randomSeed(r), lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	_, other, _ := GenerateKey(randomSeed(r), lo, hi)
	for e := lo; e <= hi; e++ {
		msg := randomMessage(r)
		sig, err := sk.Sign(e, msg, rngReader{r})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(pk, e, msg, &sig); err != nil {
			t.Fatalf("epoch %d: %v", e, err)
		}
		if tr, err := VerifyTrace(pk, e, msg, &sig); err != nil || len(tr.Compressions) != CompressionsPerVerify {
			t.Fatalf("epoch %d: VerifyTrace %v", e, err)
		}
		if _, err := Encode(&pk.P, e, &msg, &sig.Rho); err != nil {
			t.Fatalf("epoch %d: signed ρ does not encode: %v", e, err)
		}
		b := sig.Bytes()
		back, err := ParseSignature(b[:])
		if err != nil || back != sig {
			t.Fatalf("epoch %d: parse(bytes) = %v", e, err)
		}
		again, err := sk.SignWithRandomness(e, msg, sig.Rho)
		if err != nil || again != sig {
			t.Fatalf("epoch %d: SignWithRandomness(ρ of Sign) differs: %v", e, err)
		}
		if err := Verify(pk, e^1, msg, &sig); err == nil {
			t.Errorf("epoch %d: verifies at epoch %d", e, e^1)
		}
		msg[r.IntN(MessageLen)] ^= 1 << r.IntN(8)
		if err := Verify(pk, e, msg, &sig); err == nil {
			t.Errorf("epoch %d: verifies under a changed message", e)
		}
		if err := Verify(other, e, msg, &sig); err == nil {
			t.Errorf("epoch %d: verifies under another key", e)
		}
	}
	if _, err := sk.Sign(lo-1, Message{}, rngReader{r}); !errors.Is(err, ErrEpochOutOfRange) {
		t.Errorf("Sign below the range: %v", err)
	}
	if _, err := sk.SignWithRandomness(hi+1, Message{}, Randomness{}); !errors.Is(err, ErrEpochOutOfRange) {
		t.Errorf("SignWithRandomness above the range: %v", err)
	}
}

// TestSignFirstAcceptedRho: Sign returns the first candidate ρ of the reader's stream that
// the encoding accepts, as the reference's search does with its RNG.
func TestSignFirstAcceptedRho(t *testing.T) {
	r := testrand.New(t)
	sk, pk, _ := GenerateKey(randomSeed(r), 9, 9)
	msg := randomMessage(r)
	seed := r.Uint64()
	sig, err := sk.Sign(9, msg, rngReader{rand.New(rand.NewPCG(seed, 1))})
	if err != nil {
		t.Fatal(err)
	}
	stream := rngReader{rand.New(rand.NewPCG(seed, 1))}
	for tries := 1; ; tries++ {
		var rho Randomness
		stream.Read(rho[:])
		if _, err := Encode(&pk.P, 9, &msg, &rho); err == nil {
			if rho != sig.Rho {
				t.Fatalf("Sign chose ρ %x, first accepted candidate (try %d) is %x", sig.Rho, tries, rho)
			}
			break
		}
	}
	if _, err := sk.Sign(9, msg, bytes.NewReader(make([]byte, 100))); err == nil {
		t.Error("Sign with an exhausted reader succeeded")
	}
}

func TestSignWithRejectedRandomness(t *testing.T) {
	r := testrand.New(t)
	sk, pk, _ := GenerateKey(randomSeed(r), 0, 0)
	msg := randomMessage(r)
	for {
		var rho Randomness
		rngReader{r}.Read(rho[:])
		if _, err := Encode(&pk.P, 0, &msg, &rho); err != nil {
			if _, serr := sk.SignWithRandomness(0, msg, rho); !errors.Is(serr, ErrInvalidWots) {
				t.Fatalf("SignWithRandomness with a rejected ρ: %v", serr)
			}
			return
		}
	}
}

// TestDigitsRejections: each rule of the encoding (XMSS.md §3) rejects on its own.
func TestDigitsRejections(t *testing.T) {
	// Digits 7,7,…: word 0 = 21 sevens (bits 0..62 set), word 1 = 21 sevens minus 99.
	var d Digest
	for i := 0; i < 8; i++ {
		d[i], d[8+i] = 0xFF, 0xFF
	}
	d[7], d[15] = 0x7F, 0x7F // both bit 63s clear: Σ = 294
	if _, err := Digits(&d); !errors.Is(err, ErrInvalidWots) {
		t.Errorf("Σ = 294: %v", err)
	}
	// Lower digits 21..41 by 99 in total: 14 digits to 0 (−98) and one to 6 (−1).
	var w1 uint64 = 1<<63 - 1
	for i := 0; i < 14; i++ {
		w1 &^= 7 << (3 * i)
	}
	w1 &^= 1 << (3 * 14)
	for i := 0; i < 8; i++ {
		d[8+i] = byte(w1 >> (8 * i))
	}
	x, err := Digits(&d)
	if err != nil {
		t.Fatalf("Σ = 195: %v", err)
	}
	if x[0] != 7 || x[21] != 0 || x[35] != 6 || x[41] != 7 {
		t.Errorf("digits %v", x)
	}
	for _, bit := range []int{63, 127} {
		e := d
		e[bit/8] ^= 0x80
		if _, err := Digits(&e); !errors.Is(err, ErrInvalidWots) {
			t.Errorf("bit %d set: %v", bit, err)
		}
	}
}

// TestTamper flips one bit of every byte of a valid signature and checks the rejection's
// reason: a chain tip or a path sibling gives ErrInvalidMerklePath; a byte of ρ gives
// ErrInvalidWots unless the changed ρ still encodes, then ErrInvalidMerklePath.
func TestTamper(t *testing.T) {
	k := loadKAT(t)
	_, pks := katKeys(t)
	s := k.Signatures[0]
	pk, msg := pks[s.Signer], Message(s.Message)
	r := testrand.New(t)
	for off := 0; off < SignatureSize; off++ {
		b := bytes.Clone(s.Signature)
		b[off] ^= 1 << r.IntN(8)
		sig, err := ParseSignature(b)
		if err != nil {
			t.Fatal(err)
		}
		want := ErrInvalidMerklePath
		region := "path"
		switch {
		case off < OffsetRandomness:
			region = fmt.Sprintf("tip %d", off/N)
		case off < OffsetPath:
			region = "ρ"
			if _, err := Encode(&pk.P, s.Epoch, &msg, &sig.Rho); err != nil {
				want = ErrInvalidWots
			}
		default:
			region = fmt.Sprintf("sibling %d", (off-OffsetPath)/N)
		}
		if err := Verify(pk, s.Epoch, msg, &sig); !errors.Is(err, want) {
			t.Errorf("byte %d (%s) flipped: Verify = %v, want %v", off, region, err, want)
		}
	}
	// The public key: a root byte gives the Merkle error; a byte of P changes every hash.
	for off := 0; off < PublicKeySize; off++ {
		b := pk.Bytes()
		b[off] ^= 0x10
		bad, _ := ParsePublicKey(b[:])
		sig, _ := ParseSignature(s.Signature)
		err := Verify(bad, s.Epoch, msg, &sig)
		if off < N && !errors.Is(err, ErrInvalidMerklePath) || err == nil {
			t.Errorf("public key byte %d flipped: Verify = %v", off, err)
		}
	}
}

func TestParseLengths(t *testing.T) {
	k := loadKAT(t)
	good := k.Signatures[0].Signature
	for _, n := range []int{0, SignatureSize - 1, SignatureSize + 1} {
		b := make([]byte, n)
		copy(b, good)
		if _, err := ParseSignature(b); !errors.Is(err, ErrSignatureLength) {
			t.Errorf("%d-byte signature: %v", n, err)
		}
	}
	for _, n := range []int{0, PublicKeySize - 1, PublicKeySize + 1} {
		if _, err := ParsePublicKey(make([]byte, n)); !errors.Is(err, ErrPublicKeyLength) {
			t.Errorf("%d-byte public key: %v", n, err)
		}
	}
	pk, _ := ParsePublicKey(k.Signers[0].PublicKey)
	if pk.String() != fmt.Sprintf("%x", []byte(k.Signers[0].PublicKey)) {
		t.Errorf("String %s", pk)
	}
	mb, _ := pk.MarshalBinary()
	var back PublicKey
	if err := back.UnmarshalBinary(mb); err != nil || back != pk {
		t.Errorf("public key round trip: %v", err)
	}
	sig, _ := ParseSignature(good)
	sb, _ := sig.MarshalBinary()
	if !bytes.Equal(sb, good) {
		t.Error("signature MarshalBinary differs from its input")
	}
}

// TestTraceHashFraming: the trace's explicit-compression hash is BLAKE2s-256 at every length
// around block boundaries (including 0 and whole blocks, which get no extra block).
func TestTraceHashFraming(t *testing.T) {
	r := testrand.New(t)
	for _, n := range []int{0, 1, 48, 63, 64, 65, 96, 127, 128, 129, 704} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		var tr Trace
		got := tr.hash(Stage{}, data)
		if got != lpblake2s.Sum256(data) {
			t.Errorf("length %d: traced hash differs from Sum256", n)
		}
		if want := max(1, (n+63)/64); len(tr.Compressions) != want {
			t.Errorf("length %d: %d compressions, want %d", n, len(tr.Compressions), want)
		}
	}
}

// TestPRFMatchesKeyedBLAKE2s checks the one-compression PRF against golang.org/x/crypto's
// keyed BLAKE2s-256 on random inputs.
func TestPRFMatchesKeyedBLAKE2s(t *testing.T) {
	r := testrand.New(t)
	for range 32 {
		seed := randomSeed(r)
		prf := newPRF(&seed)
		d, a, b := r.Uint32(), r.Uint64(), r.Uint64()
		h, _ := xblake2sNew256(seed[:])
		var msg [prfMessageLen]byte
		msg[0], msg[1], msg[2], msg[3] = byte(d), byte(d>>8), byte(d>>16), byte(d>>24)
		for i := 0; i < 8; i++ {
			msg[4+i], msg[12+i] = byte(a>>(8*i)), byte(b>>(8*i))
		}
		h.Write(msg[:])
		got := prf.eval(d, a, b)
		if !bytes.Equal(got[:], h.Sum(nil)[:N]) {
			t.Fatalf("PRF(%d, %d, %d) differs from keyed BLAKE2s", d, a, b)
		}
	}
}

// TestDigitSum: the popcount sum of accepts agrees with the digits' sum on random digests.
func TestDigitSum(t *testing.T) {
	r := testrand.New(t)
	for range 10000 {
		var d Digest
		w0, w1 := r.Uint64()>>1, r.Uint64()>>1
		for i := 0; i < 8; i++ {
			d[i], d[8+i] = byte(w0>>(8*i)), byte(w1>>(8*i))
		}
		x, top, sum := digits(&d)
		if top != -1 || digitSum(w0)+digitSum(w1) != sum {
			t.Fatalf("D %x: popcount sum %d, digits sum %d", d, digitSum(w0)+digitSum(w1), sum)
		}
		if ax, ok := accepts(&d); ok != (sum == TargetSum) || ok && ax != x {
			t.Fatalf("D %x: accepts %v, sum %d", d, ok, sum)
		}
	}
}

func TestSecretKeyRoundTrip(t *testing.T) {
	r := testrand.New(t)
	sk, pk, _ := GenerateKey(randomSeed(r), 40, 47)
	b, _ := sk.MarshalBinary()
	if len(b) != SecretKeySize {
		t.Fatalf("%d bytes", len(b))
	}
	back, bpk, err := ParseSecretKey(b)
	if err != nil || bpk != pk || back.EpochStart() != 40 || back.EpochEnd() != 47 {
		t.Fatalf("ParseSecretKey: %v, %v", err, bpk)
	}
	if _, _, err := ParseSecretKey(b[1:]); !errors.Is(err, ErrSecretKeyLength) {
		t.Errorf("short secret key: %v", err)
	}
	b[SeedSize] = 48 // epoch_start 48 > epoch_end 47
	if _, _, err := ParseSecretKey(b); !errors.Is(err, ErrInvalidRange) {
		t.Errorf("inverted range: %v", err)
	}
}

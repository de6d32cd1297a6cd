package xmss

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	xblake2s "golang.org/x/crypto/blake2s"

	lpblake2s "github.com/leanpipe/leanpipe/blake2s"
)

func wordsBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func checkCompression(t *testing.T, what string, got Compression, want katCompression) {
	t.Helper()
	if got.Block != want.BlockIndex || got.T != want.T || got.Final != want.F {
		t.Errorf("%s: block %d t %d f %v, want block %d t %d f %v", what, got.Block, got.T, got.Final, want.BlockIndex, want.T, want.F)
	}
	mustEqual(t, what+" cv_in", wordsBytes(got.CVIn[:]), want.CVIn)
	mustEqual(t, what+" block", wordsBytes(got.M[:]), want.Block)
	mustEqual(t, what+" cv_out", wordsBytes(got.CVOut[:]), want.CVOut)
}

// TestKATVerificationTrace checks every field of the KAT's verification trace of "0-eA".
func TestKATVerificationTrace(t *testing.T) {
	k := loadKAT(t)
	vt := &k.Trace
	var base *katSignature
	for i := range k.Signatures {
		if k.Signatures[i].ID == vt.SignatureID {
			base = &k.Signatures[i]
		}
	}
	if base == nil {
		t.Fatalf("no signature %q", vt.SignatureID)
	}
	pk, err := ParsePublicKey(k.Signers[base.Signer].PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := ParseSignature(base.Signature)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := VerifyTrace(pk, base.Epoch, Message(base.Message), &sig)
	if err != nil {
		t.Fatalf("VerifyTrace: %v", err)
	}

	e := &vt.Encoding
	mustEqual(t, "encoding tweak", tr.Encoding.Tweak[:], e.Tweak)
	mustEqual(t, "encoding hash_input", tr.Encoding.Input[:], e.HashInput)
	if e.HashInputLen != len(tr.Encoding.Input) {
		t.Errorf("encoding hash_input_len %d", e.HashInputLen)
	}
	mustEqual(t, "encoding blake2s_256_output", tr.Encoding.Output[:], e.Output)
	mustEqual(t, "encoding digest", tr.Encoding.D[:], e.Digest)
	if w := fmt.Sprintf("%016x", tr.Encoding.Words[0]); w != e.Word0 {
		t.Errorf("word0 %s, want %s", w, e.Word0)
	}
	if w := fmt.Sprintf("%016x", tr.Encoding.Words[1]); w != e.Word1 {
		t.Errorf("word1 %s, want %s", w, e.Word1)
	}
	if int(tr.Encoding.Words[0]>>63) != e.Word0Bit63 || int(tr.Encoding.Words[1]>>63) != e.Word1Bit63 {
		t.Errorf("bit 63s %d %d", e.Word0Bit63, e.Word1Bit63)
	}
	mustEqual(t, "encoding digits", tr.Encoding.Digits[:], e.Digits)
	if tr.Encoding.Sum != e.DigitSum {
		t.Errorf("digit sum %d, want %d", tr.Encoding.Sum, e.DigitSum)
	}

	if len(vt.Chains) != V {
		t.Fatalf("%d chains", len(vt.Chains))
	}
	steps := 0
	for i, want := range vt.Chains {
		got := &tr.Chains[i]
		what := fmt.Sprintf("chain %d", i)
		if want.Chain != i || int(got.Digit) != want.Digit || len(got.Steps) != want.NSteps || len(want.Steps) != want.NSteps {
			t.Errorf("%s: digit %d, %d steps; want digit %d, %d steps", what, got.Digit, len(got.Steps), want.Digit, want.NSteps)
			continue
		}
		mustEqual(t, what+" start", got.Start[:], want.Start)
		for s, ws := range want.Steps {
			gs := got.Steps[s]
			if gs.From != ws.From || ws.SubPosition != uint32(ChainLength*i+gs.From) {
				t.Errorf("%s step %d: from %d, want from %d sub-position %d", what, s, gs.From, ws.From, ws.SubPosition)
			}
			mustEqual(t, what+" step tweak", gs.Tweak[:], ws.Tweak)
			mustEqual(t, what+" step input", gs.Input[:], ws.Input)
			mustEqual(t, what+" step output", gs.Output[:], ws.Output)
		}
		mustEqual(t, what+" end", got.End[:], want.End)
		steps += len(got.Steps)
	}
	if steps != NumChainHashes {
		t.Errorf("%d chain steps, want %d", steps, NumChainHashes)
	}

	mustEqual(t, "leaf tweak", tr.Leaf.Tweak[:], vt.Leaf.Tweak)
	if vt.Leaf.HashInputLen != leafInputLen || len(vt.Leaf.ChainEnds) != V {
		t.Errorf("leaf input length %d, %d ends", vt.Leaf.HashInputLen, len(vt.Leaf.ChainEnds))
	}
	for i, end := range vt.Leaf.ChainEnds {
		mustEqual(t, "leaf chain end", tr.Leaf.Ends[i][:], end)
	}
	mustEqual(t, "leaf", tr.Leaf.Leaf[:], vt.Leaf.Leaf)

	if len(vt.Merkle) != LogLifetime {
		t.Fatalf("%d Merkle steps", len(vt.Merkle))
	}
	for l, want := range vt.Merkle {
		got := &tr.Merkle[l]
		what := fmt.Sprintf("merkle level %d", l)
		is := map[uint8]string{0: "left", 1: "right"}[got.Bit]
		if want.ChildLevel != got.Level || want.EpochBit != got.Bit || want.CurrentIs != is ||
			want.ParentLevel != got.Level+1 || want.ParentIndex != got.ParentIndex {
			t.Errorf("%s: level %d bit %d (%s) parent index %d; want %+v", what, got.Level, got.Bit, is, got.ParentIndex, want)
		}
		mustEqual(t, what+" current", got.Current[:], want.Current)
		mustEqual(t, what+" sibling", got.Sibling[:], want.Sibling)
		mustEqual(t, what+" tweak", got.Tweak[:], want.Tweak)
		mustEqual(t, what+" parent", got.Parent[:], want.Parent)
	}
	mustEqual(t, "computed_root", tr.Root[:], vt.ComputedRoot)
	mustEqual(t, "public_key_root", pk.Root[:], vt.PublicKeyRoot)
	if !vt.RootMatches {
		t.Error("root_matches is false")
	}

	c := vt.Compressions
	if c.Encoding != 2 || c.ChainSteps != NumChainHashes || c.Leaf != LeafBlocks || c.Merkle != LogLifetime || c.Total != CompressionsPerVerify {
		t.Errorf("compressions %+v", c)
	}
	if len(tr.Compressions) != CompressionsPerVerify || len(vt.CompressionTrace) != CompressionsPerVerify {
		t.Fatalf("%d compressions (KAT %d), want %d", len(tr.Compressions), len(vt.CompressionTrace), CompressionsPerVerify)
	}
	for j, want := range vt.CompressionTrace {
		got := tr.Compressions[j]
		what := fmt.Sprintf("compression %d (%s)", j, want.Stage)
		if got.Stage.String() != want.Stage {
			t.Errorf("compression %d: stage %q, want %q", j, got.Stage, want.Stage)
		}
		checkCompression(t, what, got, want)
	}
}

// TestVerifyTraceAgreesWithVerify: on every KAT signature and invalid case, VerifyTrace
// gives Verify's verdict, and a hash's digest is the first half of its last cv_out.
func TestVerifyTraceAgreesWithVerify(t *testing.T) {
	k := loadKAT(t)
	_, pks := katKeys(t)
	for _, s := range k.Signatures {
		sig, _ := ParseSignature(s.Signature)
		tr, err := VerifyTrace(pks[s.Signer], s.Epoch, Message(s.Message), &sig)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		last := tr.Compressions[len(tr.Compressions)-1]
		mustEqual(t, s.ID+" root from last cv_out", wordsBytes(last.CVOut[:4]), tr.Root[:])
		if tr.Compressions[1].Stage.Kind != StageEncoding || !tr.Compressions[1].Final {
			t.Errorf("%s: second compression %+v", s.ID, tr.Compressions[1])
		}
	}
	for _, c := range k.InvalidCases {
		pk, _ := ParsePublicKey(c.PublicKey)
		sig, _ := ParseSignature(c.Signature)
		tr, err := VerifyTrace(pk, c.Epoch, Message(c.Message), &sig)
		verr := Verify(pk, c.Epoch, Message(c.Message), &sig)
		if err == nil || verr == nil || err.Error() != verr.Error() {
			t.Errorf("%s: VerifyTrace %v, Verify %v", c.ID, err, verr)
		}
		n := len(tr.Compressions)
		if strings.Contains(c.ReferenceError, "InvalidWots") && n != 2 || strings.Contains(c.ReferenceError, "MerklePath") && n != CompressionsPerVerify {
			t.Errorf("%s (%s): %d compressions", c.ID, c.ReferenceError, n)
		}
	}
}

// TestKATKeygenTrace checks signer 0's key-generation trace: P's PRF and its two keyed
// compressions, all 42 chains at epoch A, the leaf and the authentication path with each
// sibling's kind (real or filler).
func TestKATKeygenTrace(t *testing.T) {
	k := loadKAT(t)
	kt := &k.KeygenTrace
	sks, pks := katKeys(t)
	sk := sks[kt.Signer]
	if sk.seed != [SeedSize]byte(kt.Seed) || sk.epochStart != kt.EpochStart || sk.epochEnd != kt.EpochEnd {
		t.Fatalf("keygen trace signer %d does not match signer list", kt.Signer)
	}

	pp := &kt.PublicParam
	msg := make([]byte, prfMessageLen)
	binary.LittleEndian.PutUint32(msg, domainPublicParam)
	mustEqual(t, "prf_message", msg, pp.PRFMessage)
	full := sk.prf.full(domainPublicParam, 0, 0)
	mustEqual(t, "keyed_blake2s_256_output", wordsBytes(full[:]), pp.KeyedOutput)
	mustEqual(t, "public_param value", pks[kt.Signer].P[:], pp.Value)
	if len(pp.Compressions) != 2 {
		t.Fatalf("%d PRF compressions", len(pp.Compressions))
	}
	// The key block: from the keyed IV to the chaining value every PRF call continues from.
	keyedIV := []byte(pp.Compressions[0].CVIn)
	mustEqual(t, "keyed IV word 0 parameter", keyedIV[:4], wordsBytes([]uint32{xmssIV[0] ^ prfParam0}))
	mustEqual(t, "key block", pp.Compressions[0].Block[:SeedSize], kt.Seed)
	mustEqual(t, "after key block", wordsBytes(sk.prf[:]), pp.Compressions[0].CVOut)
	mustEqual(t, "message block cv_in", wordsBytes(sk.prf[:]), pp.Compressions[1].CVIn)
	mustEqual(t, "message block", pp.Compressions[1].Block[:prfMessageLen], msg)
	if pp.Compressions[0].T != 64 || pp.Compressions[0].F || pp.Compressions[1].T != 84 || !pp.Compressions[1].F {
		t.Errorf("PRF compressions t/f: %+v", pp.Compressions)
	}
	mustEqual(t, "message block cv_out", wordsBytes(full[:]), pp.Compressions[1].CVOut)

	// The PRF is keyed BLAKE2s-256, as golang.org/x/crypto computes it.
	h, err := xblake2s.New256(kt.Seed)
	if err != nil {
		t.Fatal(err)
	}
	h.Write(msg)
	mustEqual(t, "x/crypto keyed BLAKE2s", h.Sum(nil), pp.KeyedOutput)

	if len(kt.WotsChains) != V {
		t.Fatalf("%d chains", len(kt.WotsChains))
	}
	var ends [V]Digest
	for i, chain := range kt.WotsChains {
		if len(chain) != ChainLength {
			t.Fatalf("chain %d has %d positions", i, len(chain))
		}
		v := sk.secret(kt.Epoch, i)
		for pos := 0; pos < ChainLength; pos++ {
			mustEqual(t, fmt.Sprintf("chain %d position %d", i, pos), v[:], chain[pos])
			if pos < ChainLength-1 {
				v = ChainStep(&sk.p, kt.Epoch, i, pos, &v)
			}
		}
		ends[i] = Digest(chain[ChainLength-1])
	}
	leaf := Leaf(&sk.p, kt.Epoch, &ends)
	mustEqual(t, "leaf", leaf[:], kt.Leaf)
	bandLeaf := sk.node(0, uint64(kt.Epoch))
	mustEqual(t, "band leaf", bandLeaf[:], kt.Leaf)

	if len(kt.AuthPath) != LogLifetime {
		t.Fatalf("%d path entries", len(kt.AuthPath))
	}
	for l, a := range kt.AuthPath {
		idx := uint64(kt.Epoch)>>l ^ 1
		if a.Level != l || a.SiblingIndex != idx {
			t.Errorf("path %d: level %d index %d, want index %d", l, a.Level, a.SiblingIndex, idx)
		}
		real := strings.HasPrefix(a.Kind, "real")
		if !real && !strings.HasPrefix(a.Kind, "filler") {
			t.Errorf("path %d: unknown kind %q", l, a.Kind)
		}
		if sk.isReal(l, idx) != real {
			t.Errorf("path %d: real = %v, KAT says %q", l, sk.isReal(l, idx), a.Kind)
		}
		if !real {
			f := sk.filler(l, idx)
			mustEqual(t, fmt.Sprintf("path %d filler", l), f[:], a.Value)
		}
		v := sk.node(l, idx)
		mustEqual(t, fmt.Sprintf("path %d", l), v[:], a.Value)
	}
}

var xmssIV = lpblake2s.IV

var xblake2sNew256 = xblake2s.New256

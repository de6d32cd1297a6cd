package xmss

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/internal/vectors"
)

// The known-answer vectors of testdata/vectors/xmss/xmss-kat.json, made by the reference's
// own crates/xmss (leanVM-b 5df6c37); README.md there describes every field.

type hexBytes []byte

func (h *hexBytes) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := hex.DecodeString(s)
	*h = v
	return err
}

type katCompression struct {
	Stage      string   `json:"stage"`
	BlockIndex int      `json:"block_index"`
	T          uint64   `json:"t"`
	F          bool     `json:"f"`
	CVIn       hexBytes `json:"cv_in"`
	Block      hexBytes `json:"block"`
	CVOut      hexBytes `json:"cv_out"`
}

type katFile struct {
	Set        string `json:"set"`
	Parameters struct {
		VChains             int `json:"v_chains"`
		TargetSum           int `json:"target_sum"`
		ChainSteps          int `json:"chain_steps_per_verification"`
		LogLifetime         int `json:"log_lifetime"`
		SigSize             int `json:"xmss_sig_size"`
		PublicKeySize       int `json:"public_key_size"`
		CompressionsPerStep struct {
			Encoding   int `json:"encoding"`
			ChainSteps int `json:"chain_steps"`
			Leaf       int `json:"leaf"`
			Merkle     int `json:"merkle"`
			Total      int `json:"total"`
		} `json:"compressions_per_verification"`
	} `json:"parameters"`
	Message hexBytes `json:"message"`
	EpochA  uint32   `json:"epoch_a"`
	EpochB  uint32   `json:"epoch_b"`
	Signers []struct {
		Index       int      `json:"index"`
		Seed        hexBytes `json:"seed"`
		EpochStart  uint32   `json:"epoch_start"`
		EpochEnd    uint32   `json:"epoch_end"`
		PublicParam hexBytes `json:"public_param"`
		MerkleRoot  hexBytes `json:"merkle_root"`
		PublicKey   hexBytes `json:"public_key"`
	} `json:"signers"`
	Signatures []katSignature `json:"signatures"`
	Trace      struct {
		SignatureID string `json:"signature_id"`
		Encoding    struct {
			Tweak        hexBytes `json:"tweak"`
			HashInput    hexBytes `json:"hash_input"`
			HashInputLen int      `json:"hash_input_len"`
			Output       hexBytes `json:"blake2s_256_output"`
			Digest       hexBytes `json:"digest"`
			Word0        string   `json:"word0_u64"`
			Word1        string   `json:"word1_u64"`
			Word0Bit63   int      `json:"word0_bit63"`
			Word1Bit63   int      `json:"word1_bit63"`
			Digits       []uint8  `json:"digits"`
			DigitSum     int      `json:"digit_sum"`
		} `json:"encoding"`
		Chains []struct {
			Chain  int      `json:"chain"`
			Digit  int      `json:"digit"`
			Start  hexBytes `json:"start"`
			NSteps int      `json:"n_steps"`
			Steps  []struct {
				From        int      `json:"from_position"`
				SubPosition uint32   `json:"tweak_sub_position"`
				Tweak       hexBytes `json:"tweak"`
				Input       hexBytes `json:"input"`
				Output      hexBytes `json:"output"`
			} `json:"steps"`
			End hexBytes `json:"end"`
		} `json:"chains"`
		Leaf struct {
			Tweak        hexBytes   `json:"tweak"`
			HashInputLen int        `json:"hash_input_len"`
			ChainEnds    []hexBytes `json:"chain_ends"`
			Leaf         hexBytes   `json:"leaf"`
		} `json:"leaf"`
		Merkle []struct {
			ChildLevel  int      `json:"child_level"`
			EpochBit    uint8    `json:"epoch_bit"`
			CurrentIs   string   `json:"current_is"`
			Current     hexBytes `json:"current"`
			Sibling     hexBytes `json:"sibling"`
			ParentLevel int      `json:"parent_level"`
			ParentIndex uint32   `json:"parent_index"`
			Tweak       hexBytes `json:"tweak"`
			Parent      hexBytes `json:"parent"`
		} `json:"merkle"`
		ComputedRoot  hexBytes `json:"computed_root"`
		PublicKeyRoot hexBytes `json:"public_key_root"`
		RootMatches   bool     `json:"root_matches"`
		Compressions  struct {
			Encoding   int `json:"encoding"`
			ChainSteps int `json:"chain_steps"`
			Leaf       int `json:"leaf"`
			Merkle     int `json:"merkle"`
			Total      int `json:"total"`
		} `json:"compressions"`
		CompressionTrace []katCompression `json:"compression_trace"`
	} `json:"verification_trace"`
	KeygenTrace struct {
		Signer      int      `json:"signer"`
		Seed        hexBytes `json:"seed"`
		EpochStart  uint32   `json:"epoch_start"`
		EpochEnd    uint32   `json:"epoch_end"`
		PublicParam struct {
			PRFMessage   hexBytes         `json:"prf_message"`
			KeyedOutput  hexBytes         `json:"keyed_blake2s_256_output"`
			Value        hexBytes         `json:"value"`
			Compressions []katCompression `json:"compressions"`
		} `json:"public_param"`
		Epoch      uint32       `json:"epoch"`
		WotsChains [][]hexBytes `json:"wots_chains"`
		Leaf       hexBytes     `json:"leaf"`
		AuthPath   []struct {
			Level        int      `json:"level"`
			SiblingIndex uint64   `json:"sibling_index"`
			Kind         string   `json:"kind"`
			Value        hexBytes `json:"value"`
		} `json:"authentication_path"`
	} `json:"keygen_trace"`
	InvalidCases []struct {
		ID             string         `json:"id"`
		Base           string         `json:"base_signature"`
		Changed        map[string]any `json:"changed"`
		Extra          bool           `json:"extra"`
		PublicKey      hexBytes       `json:"public_key"`
		Message        hexBytes       `json:"message"`
		Epoch          uint32         `json:"epoch"`
		Signature      hexBytes       `json:"signature"`
		Valid          bool           `json:"valid"`
		ReferenceError string         `json:"reference_verify"`
		Accepts        bool           `json:"reference_accepts"`
	} `json:"invalid_cases"`
	Serialization struct {
		SignatureBytes int `json:"signature_bytes"`
		PublicKeyBytes int `json:"public_key_bytes"`
	} `json:"serialization"`
	BenchmarkSigners struct {
		Signers []struct {
			Index      int      `json:"index"`
			Seed       hexBytes `json:"seed"`
			EpochStart uint32   `json:"epoch_start"`
			EpochEnd   uint32   `json:"epoch_end"`
			PublicKey  hexBytes `json:"public_key"`
			Message    hexBytes `json:"message"`
			Epoch      uint32   `json:"epoch"`
			Signature  hexBytes `json:"signature"`
			Verify     string   `json:"reference_verify"`
		} `json:"signers"`
	} `json:"reference_benchmark_signers"`
}

type katSignature struct {
	ID             string   `json:"id"`
	Signer         int      `json:"signer"`
	Epoch          uint32   `json:"epoch"`
	LeafIndex      uint32   `json:"leaf_index"`
	Message        hexBytes `json:"message"`
	EncodeAttempts int      `json:"encode_attempts"`
	Signature      hexBytes `json:"signature"`
	Decoded        struct {
		Randomness     hexBytes   `json:"randomness"`
		EncodingDigest hexBytes   `json:"encoding_digest"`
		Digits         []uint8    `json:"digits"`
		DigitSum       int        `json:"digit_sum"`
		ChainSteps     int        `json:"chain_steps_to_verify"`
		ChainTips      []hexBytes `json:"chain_tips"`
		MerklePath     []hexBytes `json:"merkle_path"`
	} `json:"decoded"`
	Valid          bool   `json:"valid"`
	ReferenceError string `json:"reference_verify"`
	Accepts        bool   `json:"reference_accepts"`
}

var (
	katOnce sync.Once
	katData katFile
	katErr  error
)

func loadKAT(t testing.TB) *katFile {
	t.Helper()
	b := vectors.ReadFile(t, "xmss/xmss-kat.json")
	katOnce.Do(func() { katErr = json.Unmarshal(b, &katData) })
	if katErr != nil {
		t.Fatalf("xmss-kat.json: %v", katErr)
	}
	return &katData
}

// katKeys caches the key pairs of the KAT's signers (key generation over their short ranges).
var (
	katKeysOnce sync.Once
	katSKs      []*SecretKey
	katPKs      []PublicKey
	katKeysErr  error
)

func katKeys(t testing.TB) ([]*SecretKey, []PublicKey) {
	t.Helper()
	k := loadKAT(t)
	katKeysOnce.Do(func() {
		for _, s := range k.Signers {
			sk, pk, err := GenerateKey([SeedSize]byte(s.Seed), s.EpochStart, s.EpochEnd)
			if err != nil {
				katKeysErr = err
				return
			}
			katSKs, katPKs = append(katSKs, sk), append(katPKs, pk)
		}
	})
	if katKeysErr != nil {
		t.Fatal(katKeysErr)
	}
	return katSKs, katPKs
}

func mustEqual(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if string(got) != string(want) {
		t.Errorf("%s = %x, want %x", what, got, want)
	}
}

// referenceError maps the reference's recorded verdict to this package's sentinel.
func referenceError(t *testing.T, verdict string) error {
	t.Helper()
	switch verdict {
	case "Ok":
		return nil
	case "Err(InvalidWots)":
		return ErrInvalidWots
	case "Err(InvalidMerklePath)":
		return ErrInvalidMerklePath
	}
	t.Fatalf("unknown reference verdict %q", verdict)
	return nil
}

func checkVerdict(t *testing.T, what string, got error, verdict string) {
	t.Helper()
	want := referenceError(t, verdict)
	if want == nil && got != nil || want != nil && !errors.Is(got, want) {
		t.Errorf("%s: Verify = %v, reference %s", what, got, verdict)
	}
}

func TestKATParameters(t *testing.T) {
	k := loadKAT(t)
	p := k.Parameters
	if p.VChains != V || p.TargetSum != TargetSum || p.ChainSteps != NumChainHashes || p.LogLifetime != LogLifetime ||
		p.SigSize != SignatureSize || p.PublicKeySize != PublicKeySize {
		t.Errorf("parameters %+v disagree with the package's constants", p)
	}
	c := p.CompressionsPerStep
	if c.Encoding != 2 || c.ChainSteps != NumChainHashes || c.Leaf != LeafBlocks || c.Merkle != LogLifetime || c.Total != CompressionsPerVerify {
		t.Errorf("compressions %+v, want 2/%d/%d/%d = %d", c, NumChainHashes, LeafBlocks, LogLifetime, CompressionsPerVerify)
	}
	if k.Serialization.SignatureBytes != SignatureSize || k.Serialization.PublicKeyBytes != PublicKeySize {
		t.Errorf("serialization sizes %+v", k.Serialization)
	}
}

func TestKATPublicKeys(t *testing.T) {
	k := loadKAT(t)
	_, pks := katKeys(t)
	if len(pks) != 8 {
		t.Fatalf("%d signers, want 8", len(pks))
	}
	for i, s := range k.Signers {
		b := pks[i].Bytes()
		mustEqual(t, "signer public_param", pks[i].P[:], s.PublicParam)
		mustEqual(t, "signer merkle_root", pks[i].Root[:], s.MerkleRoot)
		mustEqual(t, "signer public_key", b[:], s.PublicKey)
	}
}

func TestKATSignatures(t *testing.T) {
	k := loadKAT(t)
	sks, pks := katKeys(t)
	if len(k.Signatures) != 16 {
		t.Fatalf("%d signatures, want 16", len(k.Signatures))
	}
	for _, s := range k.Signatures {
		if s.LeafIndex != s.Epoch || s.Decoded.DigitSum != TargetSum || s.Decoded.ChainSteps != NumChainHashes {
			t.Errorf("%s: leaf index %d, digit sum %d, chain steps %d", s.ID, s.LeafIndex, s.Decoded.DigitSum, s.Decoded.ChainSteps)
		}
		msg := Message(s.Message)
		rho := Randomness(s.Decoded.Randomness)
		sig, err := sks[s.Signer].SignWithRandomness(s.Epoch, msg, rho)
		if err != nil {
			t.Errorf("%s: SignWithRandomness: %v", s.ID, err)
			continue
		}
		b := sig.Bytes()
		mustEqual(t, s.ID+" signature", b[:], s.Signature)

		parsed, err := ParseSignature(s.Signature)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		mustEqual(t, s.ID+" randomness", parsed.Rho[:], s.Decoded.Randomness)
		for i := range V {
			mustEqual(t, s.ID+" chain tip", parsed.Tips[i][:], s.Decoded.ChainTips[i])
		}
		for l := range LogLifetime {
			mustEqual(t, s.ID+" merkle path", parsed.Path[l][:], s.Decoded.MerklePath[l])
		}
		d := EncodingDigest(&pks[s.Signer].P, s.Epoch, &msg, &rho)
		mustEqual(t, s.ID+" encoding digest", d[:], s.Decoded.EncodingDigest)
		x, err := Digits(&d)
		if err != nil {
			t.Errorf("%s: Digits: %v", s.ID, err)
		}
		mustEqual(t, s.ID+" digits", x[:], s.Decoded.Digits)
		checkVerdict(t, s.ID, Verify(pks[s.Signer], s.Epoch, msg, &parsed), s.ReferenceError)
		if !s.Valid || !s.Accepts {
			t.Errorf("%s: recorded valid %v accepts %v", s.ID, s.Valid, s.Accepts)
		}
	}
}

func TestKATBenchmarkSigners(t *testing.T) {
	k := loadKAT(t)
	if len(k.BenchmarkSigners.Signers) == 0 && k.Set != "public" {
		t.Skipf("reference_benchmark_signers is in the public set only (this set: %q)", k.Set)
	}
	if len(k.BenchmarkSigners.Signers) != 2 {
		t.Fatalf("%d benchmark signers, want 2", len(k.BenchmarkSigners.Signers))
	}
	for _, s := range k.BenchmarkSigners.Signers {
		sk, pk, err := GenerateKey([SeedSize]byte(s.Seed), s.EpochStart, s.EpochEnd)
		if err != nil {
			t.Fatal(err)
		}
		b := pk.Bytes()
		mustEqual(t, "benchmark signer public_key", b[:], s.PublicKey)
		want, err := ParseSignature(s.Signature)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := sk.SignWithRandomness(s.Epoch, Message(s.Message), want.Rho)
		if err != nil {
			t.Fatal(err)
		}
		sb := sig.Bytes()
		mustEqual(t, "benchmark signer signature", sb[:], s.Signature)
		checkVerdict(t, "benchmark signer", Verify(pk, s.Epoch, Message(s.Message), &want), s.Verify)
	}
}

func TestKATInvalidCases(t *testing.T) {
	k := loadKAT(t)
	seen := map[string]bool{}
	for _, c := range k.InvalidCases {
		seen[c.ID] = true
		checkChange(t, k, c.ID, c.Base, c.Changed, c.Message, c.Epoch, c.Signature)
		if c.Valid || c.Accepts {
			t.Errorf("%s: recorded valid %v accepts %v", c.ID, c.Valid, c.Accepts)
		}
		pk, err := ParsePublicKey(c.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := ParseSignature(c.Signature)
		if err != nil {
			t.Fatal(err)
		}
		err = Verify(pk, c.Epoch, Message(c.Message), &sig)
		checkVerdict(t, c.ID, err, c.ReferenceError)
		tr, terr := VerifyTrace(pk, c.Epoch, Message(c.Message), &sig)
		checkVerdict(t, c.ID+" (VerifyTrace)", terr, c.ReferenceError)
		if tr == nil {
			t.Errorf("%s: VerifyTrace returned no trace", c.ID)
		}
	}
	for _, id := range []string{"wrong_message", "wrong_epoch", "flipped_chain_value", "flipped_merkle_path",
		"flipped_randomness", "other_signers_signature"} {
		if !seen[id] {
			t.Errorf("required invalid case %s missing", id)
		}
	}
	if k.Set == "public" {
		for _, id := range []string{"wrong_message_valid_encoding", "same_signer_other_epoch_signature"} {
			if !seen[id] {
				t.Errorf("extra invalid case %s missing", id)
			}
		}
	}
}

// checkChange re-applies a recorded single-byte change to the base signature, message or
// epoch, checking the case against the layout offsets of XMSS.md §9.
func checkChange(t *testing.T, k *katFile, id, base string, changed map[string]any, msg []byte, epoch uint32, sig []byte) {
	t.Helper()
	var b *katSignature
	for i := range k.Signatures {
		if k.Signatures[i].ID == base {
			b = &k.Signatures[i]
		}
	}
	if b == nil {
		t.Fatalf("%s: no base signature %q", id, base)
	}
	num := func(key string) int {
		v, ok := changed[key].(float64)
		if !ok {
			t.Fatalf("%s: changed.%s missing", id, key)
		}
		return int(v)
	}
	field, _ := changed["field"].(string)
	switch field {
	case "chain_tips", "merkle_path", "randomness":
		off := num("signature_byte_offset")
		start := OffsetRandomness
		switch field {
		case "chain_tips":
			start = OffsetTips + N*num("chain")
		case "merkle_path":
			start = OffsetPath + N*num("level")
		}
		if off != start+num("byte") {
			t.Errorf("%s: offset %d is not byte %d of its field at %d", id, off, num("byte"), start)
		}
		want := bytes.Clone(b.Signature)
		want[off] ^= byte(num("xor"))
		mustEqual(t, id+" signature", sig, want)
	case "message":
		if _, ok := changed["xor"]; ok {
			want := bytes.Clone(b.Message)
			want[num("byte")] ^= byte(num("xor"))
			mustEqual(t, id+" message", msg, want)
		}
		mustEqual(t, id+" signature", sig, b.Signature)
	case "epoch":
		if uint32(num("from")) != b.Epoch || uint32(num("to")) != epoch {
			t.Errorf("%s: epoch %d→%d, case epoch %d", id, num("from"), num("to"), epoch)
		}
		mustEqual(t, id+" signature", sig, b.Signature)
	}
}

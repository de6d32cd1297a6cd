package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
)

// proveAggregate proves a generated signatures file of n signers into dir and
// returns the proof's path and the input.
func proveAggregate(t *testing.T, dir string, n int, seed uint64) (string, *aggregate.Input) {
	t.Helper()
	sigs, in := signaturesFile(t, dir, "sigs.json", n, seed)
	out := filepath.Join(dir, "agg.proof.bin")
	if code, o, e := run(t, "prove", "--signatures", sigs, "--out", out, "--workers", "2"); code != 0 {
		t.Fatalf("prove: exit %d: %s %s", code, o, e)
	}
	return out, in
}

// TestVerifyKeys: verify of an aggregate prints the number of keys and the SHA-256
// of the keys concatenated in order (lowercase hex), --show-keys lists them; a
// sidecar giving a field twice or in two letter cases is refused (exit 2).
func TestVerifyKeys(t *testing.T) {
	dir := t.TempDir()
	out, in := proveAggregate(t, dir, 2, 5)
	h := sha256.New()
	for _, s := range in.Signers {
		b := s.PublicKey.Bytes()
		h.Write(b[:])
	}
	want := "keys: 2, keys sha256:" + hex.EncodeToString(h.Sum(nil))
	code, o, _ := run(t, "verify", out)
	if code != 0 || !accepted(o) || !strings.Contains(o, want+"\n") || strings.Contains(o, "key 0:") {
		t.Fatalf("verify: %d %q, want a line %q", code, o, want)
	}
	code, o, _ = run(t, "verify", out, "--show-keys")
	if code != 0 || !strings.Contains(o, want+"\nkey 0: "+in.Signers[0].PublicKey.String()+"\nkey 1: "+in.Signers[1].PublicKey.String()+"\n") {
		t.Fatalf("verify --show-keys: %d %q", code, o)
	}

	mb, _ := os.ReadFile(out + ".json")
	for _, c := range []struct{ from, to, want string }{
		{`"n": 2,`, `"n": 2, "n": 1,`, `field "n" is given twice`},
		{`"epoch":`, `"Epoch": 1, "epoch":`, `differ only in case`},
		{`"message":`, `"message": "00", "message":`, `field "message" is given twice`},
	} {
		doc := strings.Replace(string(mb), c.from, c.to, 1)
		if doc == string(mb) {
			t.Fatalf("sidecar has no %q: %s", c.from, mb)
		}
		os.WriteFile(out+".json", []byte(doc), 0o644)
		if code, o, e := run(t, "verify", out); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("sidecar with %s: exit %d, %q %q; want 2 and %q", c.to, code, o, e, c.want)
		}
	}
}

// TestVerifyStatement: verify --statement takes an aggregate's statement from a
// signatures file (signatures ignored) or a statement JSON, without the sidecar, for
// both forms (detected); --raw-out writes a raw proof with a matching sidecar; a
// statement that differs is "the proof does not match this statement" (exit 1); a
// missing or malformed statement is an input error (exit 2) whose hint fits the flow.
func TestVerifyStatement(t *testing.T) {
	dir := t.TempDir()
	out, in := proveAggregate(t, dir, 2, 7)
	if err := os.Remove(out + ".json"); err != nil {
		t.Fatal(err)
	}
	keys := func(order ...int) string {
		var ks []string
		for _, i := range order {
			ks = append(ks, `"`+in.Signers[i].PublicKey.String()+`"`)
		}
		return strings.Join(ks, ",")
	}
	msg := hex.EncodeToString(in.Message[:])
	other := "0" + msg[1:]
	if other == msg {
		other = "1" + msg[1:]
	}
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(doc), 0o644)
		return p
	}
	epoch := strconv.FormatUint(uint64(in.Epoch), 10)
	stmt := write("st.json", `{"message":"`+msg+`","epoch":`+epoch+`,"public_keys":[`+keys(0, 1)+`]}`)
	// A signatures file whose signatures are not even hex: they are ignored.
	junk := write("junk-sigs.json", `{"message":"`+msg+`","epoch":`+epoch+`,"signers":[{"public_key":"`+in.Signers[0].PublicKey.String()+
		`","signature":"zz"},{"public_key":"`+in.Signers[1].PublicKey.String()+`","signature":""}]}`)
	raw := filepath.Join(dir, "r.bin")
	for _, c := range []struct {
		code int
		args []string
		want string
	}{
		{2, []string{out}, "give --n N (the instance count), or --statement FILE for an xmss-aggregate proof"},
		{2, []string{out, "--flow", "xmss-aggregate"}, `give --statement FILE (a signatures file, or {"message","epoch","public_keys"})`},
		{2, []string{out, "--flow", "xmss-aggregate", "--n", "2"}, "give --statement FILE"},
		{2, []string{out, "--statement", filepath.Join(dir, "missing.json")}, "--statement: stat"},
		{2, []string{out, "--statement", stmt, "--flow", "blake2s-batch"}, "--statement gives an xmss-aggregate statement"},
		{2, []string{out, "--statement", stmt, "--n", "3"}, "--n 3 disagrees with --statement"},
		{2, []string{out, "--statement", write("both.json", `{"message":"`+msg+`","epoch":1,"public_keys":[],"signers":[]}`)}, "not both"},
		{2, []string{out, "--statement", write("nokeys.json", `{"message":"`+msg+`","epoch":1}`)}, `no "public_keys"`},
		{0, []string{out, "--statement", filepath.Join(dir, "sigs.json")}, "accepted\nchecked: statement from " + filepath.Join(dir, "sigs.json") + "; flow xmss-aggregate, 2 signatures"},
		{0, []string{out, "--statement", stmt, "--raw-out", raw}, "wire form (detected)"},
		{0, []string{out, "--statement", junk}, "accepted"},
		{0, []string{raw}, "raw form\n"},
		{0, []string{raw, "--statement", stmt}, "raw form (detected)"},
		{1, []string{out, "--statement", write("msg.json", `{"message":"`+other+`","epoch":`+epoch+`,"public_keys":[`+keys(0, 1)+`]}`)}, "rejected: the proof does not match this statement"},
		{1, []string{out, "--statement", write("order.json", `{"message":"`+msg+`","epoch":`+epoch+`,"public_keys":[`+keys(1, 0)+`]}`)}, "rejected: the proof does not match this statement"},
		{1, []string{raw, "--statement", write("one.json", `{"message":"`+msg+`","epoch":`+epoch+`,"public_keys":[`+keys(0)+`]}`)}, "rejected: the proof does not match this statement"},
		{1, []string{out, "--statement", stmt, "--log-inv-rate", "2"}, "rejected: the proof does not match this statement"},
	} {
		code, o, e := run(t, append([]string{"verify"}, c.args...)...)
		if code != c.code || !strings.Contains(o+e, c.want) {
			t.Errorf("verify %v: exit %d, %q %q; want %d and %q", c.args, code, o, e, c.code, c.want)
		}
	}
	mb, err := os.ReadFile(raw + ".json")
	if err != nil || !strings.Contains(string(mb), `"format": "raw"`) || !strings.Contains(string(mb), msg) {
		t.Fatalf("--raw-out sidecar: %s %v", mb, err)
	}
}

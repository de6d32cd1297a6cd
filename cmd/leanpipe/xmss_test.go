package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/xmss"
)

// signaturesFile writes n generated signers (not cached) to dir/name, with the
// signatures listed in corrupt changed so that they no longer verify.
func signaturesFile(t *testing.T, dir, name string, n int, seed uint64, corrupt ...int) (string, *aggregate.Input) {
	t.Helper()
	in, err := aggregate.Generate(n, seed, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range corrupt {
		in.Signers[i].Signature.Tips[3][7] ^= 0x10
	}
	data, err := in.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, in
}

// entries lists dir's file names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestXMSSKeygenSignVerify: keygen writes a 0600 key and prints the public key; sign
// builds a signatures file signer by signer (and prints a signature that verifies);
// xmss verify prints one line per signature and exits 0, 1 (any invalid, named by
// index) or 2 (malformed).
func TestXMSSKeygenSignVerify(t *testing.T) {
	dir := t.TempDir()
	msg := strings.Repeat("5a", 32)
	var pubs []string
	for i, seed := range []string{strings.Repeat("01", 32), strings.Repeat("02", 32)} {
		key := filepath.Join(dir, []string{"a.key", "b.key"}[i])
		code, o, e := run(t, "xmss", "keygen", "--out", key, "--seed-hex", seed, "--epoch-start", "40", "--epoch-end", "47",
			"--public-out", key+".pub")
		if code != 0 {
			t.Fatalf("keygen: exit %d: %s", code, e)
		}
		pub := strings.TrimSpace(o)
		if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("key file: %v %v", st, err)
		}
		kb, _ := os.ReadFile(key)
		sk, pk, err := xmss.ParseSecretKey(kb)
		if err != nil || pk.String() != pub || sk.EpochStart() != 40 || sk.EpochEnd() != 47 {
			t.Fatalf("key file does not hold the printed key: %v, %s vs %s", err, pk, pub)
		}
		if pb, _ := os.ReadFile(key + ".pub"); strings.TrimSpace(string(pb)) != pub {
			t.Fatalf("--public-out holds %q, printed %q", pb, pub)
		}
		pubs = append(pubs, pub)
	}
	// The same seed and range give the same key; a key file is not replaced without --force.
	a := filepath.Join(dir, "a.key")
	before, _ := os.ReadFile(a)
	if code, _, e := run(t, "xmss", "keygen", "--out", a, "--epoch-start", "40", "--epoch-end", "47"); code != 2 || !strings.Contains(e, "--force") {
		t.Fatalf("keygen over a key: exit %d %q", code, e)
	}
	if after, _ := os.ReadFile(a); !bytes.Equal(before, after) {
		t.Fatal("a refused keygen changed the key file")
	}
	if code, o, _ := run(t, "xmss", "keygen", "--out", filepath.Join(dir, "c.key"), "--seed-hex", strings.Repeat("01", 32), "--epoch-start", "40", "--epoch-end", "47"); code != 0 || strings.TrimSpace(o) != pubs[0] {
		t.Fatalf("keygen is not a function of seed and range: %d %q", code, o)
	}

	// sign prints a signature that verifies.
	code, o, e := run(t, "xmss", "sign", "--key", a, "--epoch", "42", "--message", msg)
	if code != 0 {
		t.Fatalf("sign: exit %d: %s", code, e)
	}
	raw, err := hex.DecodeString(strings.TrimSpace(o))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := xmss.ParseSignature(raw)
	if err != nil {
		t.Fatal(err)
	}
	pkb, _ := hex.DecodeString(pubs[0])
	pk, _ := xmss.ParsePublicKey(pkb)
	var m xmss.Message
	hex.Decode(m[:], []byte(msg))
	if err := xmss.Verify(pk, 42, m, &sig); err != nil {
		t.Fatalf("printed signature: %v", err)
	}

	// sign --append builds the input file; its message and epoch then default.
	sigs := filepath.Join(dir, "sigs.json")
	if code, _, e := run(t, "xmss", "sign", "--key", a, "--epoch", "42", "--message", msg, "--append", sigs); code != 0 {
		t.Fatalf("sign --append (new file): %d %s", code, e)
	}
	if code, o, e := run(t, "xmss", "sign", "--key", filepath.Join(dir, "b.key"), "--append", sigs); code != 0 || !strings.Contains(o, "signer 1 added") {
		t.Fatalf("sign --append (second signer): %d %q %s", code, o, e)
	}
	data, _ := os.ReadFile(sigs)
	in, err := aggregate.ParseInput(data)
	if err != nil || in.Len() != 2 || in.Epoch != 42 || in.Message != m || in.Signers[0].PublicKey.String() != pubs[0] || in.Signers[1].PublicKey.String() != pubs[1] {
		t.Fatalf("signatures file: %v %s", err, data)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--key", a, "--append", sigs}, "already signer 0"},
		{[]string{"--key", a, "--epoch", "43", "--append", sigs}, "--epoch 43 differs"},
		{[]string{"--key", a, "--message", strings.Repeat("00", 32), "--append", sigs}, "--message"},
		{[]string{"--key", a, "--epoch", "48", "--message", msg}, "outside the key's activation range [40, 47]"},
		{[]string{"--key", a, "--epoch", "42", "--message", "abc"}, "--message: 3 hex digits, want 64"},
		{[]string{"--key", sigs, "--epoch", "42", "--message", msg}, "want 40"},
		{[]string{"--key", a, "--message", msg}, "--epoch is required"},
	} {
		if code, _, e := run(t, append([]string{"xmss", "sign"}, c.args...)...); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("sign %v: exit %d, %q; want 2 mentioning %q", c.args, code, e, c.want)
		}
	}
	if after, _ := os.ReadFile(sigs); !bytes.Equal(after, data) {
		t.Fatal("a refused sign changed the signatures file")
	}

	// xmss verify: all valid, one invalid, malformed.
	if code, o, e := run(t, "xmss", "verify", "--signatures", sigs); code != 0 || o != "0 valid\n1 valid\n" {
		t.Fatalf("verify: %d %q %s", code, o, e)
	}
	bad, _ := signaturesFile(t, dir, "bad.json", 3, 5, 1)
	code, o, _ = run(t, "xmss", "verify", "--signatures", bad)
	lines := strings.Split(strings.TrimSpace(o), "\n")
	if code != 1 || len(lines) != 3 || lines[0] != "0 valid" || !strings.HasPrefix(lines[1], "1 invalid: signature does not verify") || lines[2] != "2 valid" {
		t.Fatalf("verify with signature 1 corrupted: %d %q", code, o)
	}
	short := filepath.Join(dir, "short.json")
	os.WriteFile(short, bytes.Replace(data, []byte(`"epoch":42`), []byte(`"epoch":"42"`), 1), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--signatures", short}, "short.json"},
		{[]string{"--signatures", filepath.Join(dir, "missing.json")}, "missing.json"},
		{nil, "--signatures is required"},
		{[]string{"--signatures", sigs, "extra"}, "unknown command"},
	} {
		if code, _, e := run(t, append([]string{"xmss", "verify"}, c.args...)...); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("xmss verify %v: exit %d, %q; want 2 mentioning %q", c.args, code, e, c.want)
		}
	}
	if code, _, e := run(t, "xmss"); code != 2 || !strings.Contains(e, "subcommand") {
		t.Errorf("xmss alone: %d %q", code, e)
	}
}

// TestProveSignatures: prove --signatures proves a signatures file and writes the
// statement into PROOF.json; verify rebuilds it from there, and a sidecar whose
// message, epoch, any key or the key order differs is rejected (exit 1). An invalid
// signature is named by index before any proving (exit 1), a malformed file is exit
// 2, and neither writes anything.
func TestProveSignatures(t *testing.T) {
	dir := t.TempDir()
	good, in := signaturesFile(t, dir, "sigs.json", 2, 11)
	out := filepath.Join(dir, "agg.proof.bin")
	if code, o, e := run(t, "prove", "--flow", "xmss-aggregate", "--signatures", good, "--out", out, "--workers", "2"); code != 0 || !strings.Contains(o, "witness") {
		t.Fatalf("prove: exit %d: %s %s", code, o, e)
	}
	mb, _ := os.ReadFile(out + ".json")
	var meta map[string]any
	if err := json.Unmarshal(mb, &meta); err != nil {
		t.Fatal(err)
	}
	keys, _ := meta["public_keys"].([]any)
	if meta["flow"] != "xmss-aggregate" || meta["n"] != 2.0 || meta["epoch"] != float64(in.Epoch) || meta["message"] != hex.EncodeToString(in.Message[:]) ||
		len(keys) != 2 || keys[0] != in.Signers[0].PublicKey.String() || keys[1] != in.Signers[1].PublicKey.String() || meta["label"] != aggregate.FlowLabel {
		t.Fatalf("sidecar %s", mb)
	}
	code, o, _ := run(t, "verify", out)
	if code != 0 || !accepted(o) || !strings.Contains(o, "2 signatures") {
		t.Fatalf("verify: %d %q", code, o)
	}
	flip := func(h string) string {
		if h[0] == '0' {
			return "1" + h[1:]
		}
		return "0" + h[1:]
	}
	for name, change := range map[string]func(m map[string]any){
		"message":   func(m map[string]any) { m["message"] = flip(m["message"].(string)) },
		"epoch":     func(m map[string]any) { m["epoch"] = m["epoch"].(float64) + 1 },
		"key 1":     func(m map[string]any) { k := m["public_keys"].([]any); k[1] = flip(k[1].(string)) },
		"key order": func(m map[string]any) { k := m["public_keys"].([]any); k[0], k[1] = k[1], k[0] },
	} {
		var m map[string]any
		json.Unmarshal(mb, &m)
		change(m)
		b, _ := json.Marshal(m)
		os.WriteFile(out+".json", b, 0o644)
		if code, o, _ := run(t, "verify", out); code != 1 || !strings.HasPrefix(o, "rejected: ") {
			t.Errorf("sidecar with another %s: exit %d, %q", name, code, o)
		}
	}
	os.WriteFile(out+".json", mb, 0o644)
	if code, o, _ := run(t, "verify", out); code != 0 || !accepted(o) {
		t.Fatalf("verify with the sidecar restored: %d %q", code, o)
	}

	// Refusals write nothing.
	work := t.TempDir()
	bad, _ := signaturesFile(t, work, "bad.json", 3, 13, 2)
	malformed := filepath.Join(work, "malformed.json")
	os.WriteFile(malformed, []byte(`{"message":"00","epoch":1,"signers":[]}`), 0o644)
	p := filepath.Join(work, "p.bin")
	for _, c := range []struct {
		code int
		args []string
		want string
	}{
		{1, []string{"--flow", "xmss-aggregate", "--signatures", bad}, "signature 2 invalid: signature does not verify"},
		{1, []string{"--signatures", bad}, "signature 2 invalid"},
		{2, []string{"--signatures", malformed}, "--signatures " + malformed + ": flows: invalid input: aggregate: malformed statement: no \"signers\""},
		{2, []string{"--flow", "blake2s-batch", "--signatures", good}, "--signatures is the xmss-aggregate flow's input"},
		{2, []string{"--signatures", good, "--input", good}, "not both"},
		{2, []string{"--signatures", good, "--blocks", good}, "--blocks is the blake2s-batch flow's input"},
	} {
		before := entries(t, work)
		code, _, e := run(t, append([]string{"prove", "--out", p}, c.args...)...)
		if code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("prove %v: exit %d, %q; want %d mentioning %q", c.args, code, e, c.code, c.want)
		}
		if after := entries(t, work); strings.Join(after, " ") != strings.Join(before, " ") {
			t.Errorf("prove %v left files: %v", c.args, after)
		}
	}
}

// TestServeSignatures: a signatures job proves (its proof verifies from its
// sidecar), a job with an invalid signature gets an error result naming the index,
// and the stream goes on.
func TestServeSignatures(t *testing.T) {
	if testing.Short() {
		t.Skip("proves an xmss-aggregate job")
	}
	jobs := t.TempDir()
	good, _ := signaturesFile(t, jobs, "good.json", 2, 17)
	bad, _ := signaturesFile(t, jobs, "bad.json", 2, 19, 0)
	lines := `{"id":"good","signatures":"` + good + `"}
{"id":"bad","signatures":"` + bad + `"}
{"id":"after","n":8}
`
	out := t.TempDir()
	var ob, eb bytes.Buffer
	code := executeIn([]string{"serve", "--out", out, "--in-flight", "1"}, strings.NewReader(lines), &ob, &eb)
	o := ob.String()
	if code != 0 {
		t.Fatalf("serve: exit %d: %s %s", code, o, eb.String())
	}
	var res []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(o), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err == nil {
			res = append(res, r)
		}
	}
	if len(res) != 3 || res[0]["ok"] != true || res[0]["flow"] != "xmss-aggregate" || res[1]["ok"] != false || res[2]["ok"] != true {
		t.Fatalf("results %s", o)
	}
	if msg, _ := res[1]["error"].(string); !strings.Contains(msg, "job bad") || !strings.Contains(msg, "signature 0 invalid: signature does not verify") {
		t.Fatalf("invalid signature's error: %q", msg)
	}
	if code, o, _ := run(t, "verify", filepath.Join(out, "good.proof.bin")); code != 0 || !accepted(o) {
		t.Fatalf("verify the served proof: %d %q", code, o)
	}
	if _, err := os.Stat(filepath.Join(out, "bad.proof.bin")); err == nil {
		t.Fatal("the invalid job left a proof")
	}
}

// TestBenchSigs: bench --sigs measures the xmss-aggregate flow by signature count.
func TestBenchSigs(t *testing.T) {
	if testing.Short() {
		t.Skip("proves twice")
	}
	t.Setenv("LEANPIPE_CACHE_DIR", t.TempDir())
	code, o, e := run(t, "bench", "--sigs", "2", "--workers", "2", "--repeat", "1", "--json", "--in-process")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, e)
	}
	var rows []benchRow
	if err := json.Unmarshal([]byte(o), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("bench output %q: %v", o, err)
	}
	r := rows[0]
	if r.N != 2 || r.LogN != nil || r.SignaturesPerS <= 0 || r.CompressionsPerS != 0 || r.ProofBytes == 0 || r.VerifyMS <= 0 || r.StageMS["lincheck"] <= 0 {
		t.Fatalf("row %+v", r)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"--sigs", "2", "--log-n", "3"}},
		{[]string{"--sigs", "2", "--flow", "blake2s-batch"}},
		{[]string{"--sigs", "0"}},
		{[]string{"--sigs", "x"}},
	} {
		if code, _, _ := run(t, append([]string{"bench"}, c.args...)...); code != 2 {
			t.Errorf("bench %v: exit %d, want 2", c.args, code)
		}
	}
}

// TestRunExample runs examples/aggregate.yaml, the README's main command, from a
// fresh working directory with an empty signer cache: it aggregates XMSS signatures
// into leaves, merges them into one proof and verifies it.
func TestRunExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example: two aggregates of 4 signers and their merge")
	}
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "aggregate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	c := cliCommand(t, "", "run", example)
	c.Dir = work
	c.Env = append(c.Env, "LEANPIPE_CACHE_DIR="+filepath.Join(work, "cache"))
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	if err := c.Run(); err != nil {
		t.Fatalf("run example: %v: %s %s", err, o.String(), e.String())
	}
	if !strings.Contains(o.String(), "2 leaves of up to 4 signatures proved and merged into one proof of all 8 signatures") || !strings.Contains(o.String(), "all verified") {
		t.Fatalf("run output: %s", o.String())
	}
	var sum runSummary
	b, _ := os.ReadFile(filepath.Join(work, "out", "aggregate", "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum.Config.Flow != "xmss-aggregate" || len(sum.Leaves) != 2 || sum.SignaturesPerS <= 0 ||
		sum.Merged == nil || sum.Merged.N != 8 || sum.Merged.Children != 2 {
		t.Fatalf("summary: %v %s", err, b)
	}
	if code, out, _ := run(t, "verify", filepath.Join(work, "out", "aggregate", "leaf-0001.proof.bin")); code != 0 || !accepted(out) || !strings.Contains(out, "4 signatures") {
		t.Fatalf("verify leaf 1: %d %q", code, out)
	}
	if code, out, _ := run(t, "verify", filepath.Join(work, "out", "aggregate", mergedName)); code != 0 || !accepted(out) || !strings.Contains(out, "8 signatures") || !strings.Contains(out, "merged from 2 children") {
		t.Fatalf("verify the merged proof: %d %q", code, out)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRepeatedID: a job whose id an earlier job of the stream had (finished
// here) gets "ok":false naming the id, its proof file is not overwritten, and serve
// goes on to the next job and exits 0; a dotted id is refused by the one id rule.
func TestServeRepeatedID(t *testing.T) {
	out := t.TempDir()
	lines := `{"id":"a","n":8}
{"id":"a","n":16}
{"id":"a.b","n":8}
{"id":"b","n":8}
`
	var o, e bytes.Buffer
	code := executeIn([]string{"serve", "--out", out, "--in-flight", "1", "--pending", "1"}, strings.NewReader(lines), &o, &e)
	if code != 0 {
		t.Fatalf("serve: exit %d: %s %s", code, o.String(), e.String())
	}
	var res []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(o.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("result line %q: %v", l, err)
		}
		res = append(res, r)
	}
	if len(res) != 4 || res[0]["ok"] != true || res[1]["ok"] != false || res[2]["ok"] != false || res[3]["ok"] != true {
		t.Fatalf("results:\n%s", o.String())
	}
	if msg, _ := res[1]["error"].(string); !strings.Contains(msg, `the id "a" was already used in this stream`) {
		t.Errorf("repeated id's error: %q", msg)
	}
	if msg, _ := res[2]["error"].(string); !strings.Contains(msg, "a job id is 1 to 128 of A-Z a-z 0-9 _ -") {
		t.Errorf("dotted id's error: %q", msg)
	}
	mb, _ := os.ReadFile(filepath.Join(out, "a.proof.bin.json"))
	if !strings.Contains(string(mb), `"n": 8`) {
		t.Errorf("a.proof.bin.json is not the first job's: %s", mb)
	}
	if !strings.Contains(e.String(), "compressions/s") || strings.Contains(e.String(), "signatures/s") {
		t.Errorf("metrics: %s", e.String())
	}
}

// TestSubmitBadIDs: submit refuses a bad or repeated id with exit status 2 before it
// connects or publishes anything, listing the first few and how many more.
func TestSubmitBadIDs(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "jobs.jsonl")
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	var many strings.Builder
	for range 8 {
		many.WriteString(`{"id":"x/y","n":8}` + "\n")
	}
	for _, c := range []struct{ jobs, want string }{
		{`{"id":"a.b","n":8}` + "\n", `id "a.b": a job id is 1 to 128 of A-Z a-z 0-9 _ -; nothing published`},
		{`{"n":8}` + "\n", `missing "id"; nothing published`},
		{`{"id":"a","n":8}` + "\n" + `{"id":"a","n":16}` + "\n", "job a: the id is given twice; nothing published"},
		{many.String(), "…and 3 more; nothing published"},
	} {
		// Port 1 has no server: the refusal comes before any connection.
		code, o, e := run(t, "submit", "--nats", "nats://127.0.0.1:1", write(c.jobs))
		if code != 2 || !strings.Contains(e, c.want) || o != "" {
			t.Errorf("%q: exit %d, %q %q; want 2 and %q", c.jobs, code, o, e, c.want)
		}
	}
}

// TestProveLogUnits: prove's log gives its wall time as wall_ms.
func TestProveLogUnits(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.bin")
	code, _, e := run(t, "prove", "--n", "8", "--out", out)
	if code != 0 || !strings.Contains(e, `"wall_ms":`) || strings.Contains(e, `"wall":`) {
		t.Fatalf("prove: exit %d, log %s", code, e)
	}
}

// TestProveBudgetBeforeSigning: prove --n N of the xmss-aggregate flow checks the
// memory budget before it generates (signs) anything: refused at once, nothing
// written to the signers' cache.
func TestProveBudgetBeforeSigning(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("LEANPIPE_CACHE_DIR", cache)
	out := filepath.Join(t.TempDir(), "p.bin")
	code, _, e := run(t, "prove", "--flow", "xmss-aggregate", "--n", "8192", "--out", out, "--memory-budget", "1GiB")
	if code != 2 || !strings.Contains(e, "over the memory budget of 1.0 GiB") {
		t.Fatalf("exit %d: %s", code, e)
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 0 {
		t.Fatalf("signers were generated before the refusal: %v", ents)
	}
}

// TestProveManyInvalid: prove names the first invalid signatures with words a user
// understands and "…and N more", not every one.
func TestProveManyInvalid(t *testing.T) {
	dir := t.TempDir()
	corrupt := make([]int, 12)
	for i := range corrupt {
		corrupt[i] = i
	}
	sigs, _ := signaturesFile(t, dir, "bad.json", 12, 21, corrupt...)
	code, _, e := run(t, "prove", "--signatures", sigs, "--out", filepath.Join(dir, "p.bin"))
	if code != 1 || !strings.Contains(e, "12 of 12 signatures invalid, nothing proved") || !strings.Contains(e, "signature 7 invalid: signature does not verify") ||
		strings.Contains(e, "signature 8 invalid") || !strings.Contains(e, "…and 4 more") {
		t.Fatalf("exit %d: %s", code, e)
	}
}

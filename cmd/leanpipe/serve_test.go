package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/par"
)

// TestServeThreeJobs is the check: two good jobs and a malformed one in,
// two verifying proofs and three result lines in job order out, exit status 0.
func TestServeThreeJobs(t *testing.T) {
	dir := t.TempDir()
	blocks := vectors.Path(t, "reference-proofs/blake2s-batch-n256-s1.blocks.bin")
	in := `{"id":"a","blocks":"` + blocks + `"}
{"id":"bad","n":
{"id":"b","n":30,"seed":7,"format":"raw"}
`
	var o, e bytes.Buffer
	code := executeIn([]string{"serve", "--out", dir, "--workers", "2"}, strings.NewReader(in), &o, &e)
	if code != 0 {
		t.Fatalf("serve: exit %d: %s", code, e.String())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 result lines, got %q", o.String())
	}
	var res []map[string]any
	for _, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	if res[0]["ok"] != true || res[2]["ok"] != true || res[1]["ok"] != false || res[1]["error"] == "" || res[0]["id"] != "a" || res[2]["id"] != "b" {
		t.Fatalf("results %v", res)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.proof.bin"))
	if !bytes.Equal(a, vectors.ReadFile(t, "reference-proofs/blake2s-batch-n256-s1.wire-proof.bin")) {
		t.Fatal("served proof of the reference blocks differs from the reference wire proof")
	}
	for _, id := range []string{"a", "b"} {
		if code, out, _ := run(t, "verify", filepath.Join(dir, id+".proof.bin")); code != 0 || !accepted(out) {
			t.Fatalf("verify %s: %d %q", id, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.proof.bin")); err == nil {
		t.Fatal("the malformed job left a proof file")
	}
}

// TestRunStreamSource runs a config whose stream section reads a JSON-lines file.
func TestRunStreamSource(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "jobs.jsonl"), []byte(`{"id":"x","n":12,"seed":1}`+"\n"+`{"id":"y","n":5,"seed":2}`+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	cfg := filepath.Join(dir, "stream.yaml")
	os.WriteFile(cfg, []byte("output: "+out+"\nworkers: 2\nstream:\n  source: lines\n  path: jobs.jsonl\n  in_flight: 2\n"), 0o644)
	code, o, e := run(t, "run", cfg)
	if code != 0 {
		t.Fatalf("run: exit %d: %s %s", code, o, e)
	}
	if strings.Count(o, `"ok":true`) != 2 {
		t.Fatalf("results: %s", o)
	}
	for _, f := range []string{"x.proof.bin", "y.proof.bin", "metrics.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	if code, o, _ := run(t, "verify", filepath.Join(out, "y.proof.bin")); code != 0 || !accepted(o) {
		t.Fatalf("verify: %d %q", code, o)
	}
}

// A panic in a worker chunk of one job's proof fails that job only: serve reports it
// and goes on to prove the next jobs, in every stage that runs worker chunks.
func TestServeSurvivesWorkerPanic(t *testing.T) {
	for _, stage := range []string{"witness", "commit", "zerocheck", "lincheck", "ringswitch", "open"} {
		dir := t.TempDir()
		var fired atomic.Bool
		restore := par.SetChunkHook(func(ctx context.Context) {
			if graph.StageName(ctx) == stage && fired.CompareAndSwap(false, true) {
				panic("injected into " + stage)
			}
		})
		in := `{"id":"first","n":40,"seed":1}
{"id":"second","n":40,"seed":2}
`
		var o, e bytes.Buffer
		code := executeIn([]string{"serve", "--out", dir, "--workers", "2", "--in-flight", "1"}, strings.NewReader(in), &o, &e)
		restore()
		if code != 0 {
			t.Fatalf("%s: serve exit %d: %s", stage, code, e.String())
		}
		lines := strings.Split(strings.TrimSpace(o.String()), "\n")
		if len(lines) != 2 || !fired.Load() {
			t.Fatalf("%s: fired %v, results %q", stage, fired.Load(), o.String())
		}
		var first, second map[string]any
		json.Unmarshal([]byte(lines[0]), &first)
		json.Unmarshal([]byte(lines[1]), &second)
		if first["ok"] != false || !strings.Contains(fmt.Sprint(first["error"]), "injected into "+stage) || second["ok"] != true {
			t.Fatalf("%s: results %v / %v", stage, first, second)
		}
		if _, err := os.Stat(filepath.Join(dir, "first.proof.bin")); err == nil {
			t.Fatalf("%s: the failed job left a proof file", stage)
		}
		if code, out, _ := run(t, "verify", filepath.Join(dir, "second.proof.bin")); code != 0 || !accepted(out) {
			t.Fatalf("%s: verify second: %d %q", stage, code, out)
		}
	}
}

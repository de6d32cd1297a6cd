package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Output paths are checked before any proving: a missing directory, a directory as
// the target, or a parent that is a file exit 2 at once, naming the path given (not
// a temporary file), and leave nothing behind.
func TestOutputsCheckedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	proof := filepath.Join(dir, "ok.proof.bin")
	if code, _, e := run(t, "prove", "--n", "8", "--out", proof); code != 0 {
		t.Fatalf("prove: %d %s", code, e)
	}
	cfg := filepath.Join(dir, "run.yaml")
	os.WriteFile(cfg, []byte("leaves: 1\nbatch: 65536\noutput: "+filepath.Join(file, "out")+"\n"), 0o644)
	cfgSummaryDir := filepath.Join(dir, "run2.yaml")
	out2 := filepath.Join(dir, "out2")
	os.MkdirAll(filepath.Join(out2, "summary.json"), 0o755)
	os.WriteFile(cfgSummaryDir, []byte("leaves: 1\nbatch: 65536\noutput: "+out2+"\n"), 0o644)
	before, _ := os.ReadDir(dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"prove", "--n", "65536", "--out", filepath.Join(dir, "nodir", "x.bin")}, "nodir does not exist"},
		{[]string{"prove", "--n", "65536", "--out", dir}, "is a directory"},
		{[]string{"prove", "--n", "65536", "--out", filepath.Join(file, "x.bin")}, "is not a directory"},
		{[]string{"run", cfg}, "output " + filepath.Join(file, "out")},
		{[]string{"run", cfgSummaryDir}, "summary.json is a directory"},
		{[]string{"serve", "--out", file}, "not a directory"},
		{[]string{"serve", "--out", dir, "--metrics", filepath.Join(dir, "nodir", "m.json")}, "nodir does not exist"},
		{[]string{"verify", proof, "--raw-out", filepath.Join(dir, "nodir", "raw.bin")}, "--raw-out"},
	}
	for _, c := range cases {
		start := time.Now()
		code, _, e := run(t, c.args...)
		took := time.Since(start)
		if code != 2 || !strings.Contains(e, c.want) || strings.Contains(e, ".tmp-") || strings.Contains(e, "proving") {
			t.Errorf("%v: exit %d after %v, stderr %q; want exit 2 naming %q before any proving", c.args, code, took, e, c.want)
		}
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Fatalf("refused commands left files: %v, before %v", after, before)
	}
}

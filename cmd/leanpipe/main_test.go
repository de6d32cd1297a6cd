package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/internal/sysmem"
	"github.com/leanpipe/leanpipe/internal/vectors"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = execute(args, &o, &e)
	return code, o.String(), e.String()
}

// TestProveReferenceBlocks: prove --blocks gives the reference prover's bytes in both
// forms, with the sidecar; verify accepts them and the reference's own files.
func TestProveReferenceBlocks(t *testing.T) {
	dir := t.TempDir()
	const set = "reference-proofs/blake2s-batch-n300-s2"
	blocks := vectors.Path(t, set+".blocks.bin")
	for _, form := range []struct{ flag, ref string }{{"wire", ".wire-proof.bin"}, {"raw", ".proof.bin"}} {
		out := filepath.Join(dir, form.flag+".proof.bin")
		if code, _, errs := run(t, "prove", "--blocks", blocks, "--out", out, "--format", form.flag, "--workers", "2"); code != 0 {
			t.Fatalf("prove %s: exit %d: %s", form.flag, code, errs)
		}
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, vectors.ReadFile(t, set+form.ref)) {
			t.Fatalf("%s proof differs from the reference", form.flag)
		}
		var meta map[string]any
		mb, _ := os.ReadFile(out + ".json")
		if err := json.Unmarshal(mb, &meta); err != nil || meta["n"] != 300.0 || meta["format"] != form.flag || meta["label"] != "flock-blake2s-batch" || meta["flow"] != "blake2s-batch" || meta["log_inv_rate"] != 1.0 {
			t.Fatalf("sidecar %s: %v", mb, err)
		}
		if code, o, _ := run(t, "verify", out); code != 0 || !accepted(o) {
			t.Fatalf("verify %s: exit %d, %q", form.flag, code, o)
		}
		// The reference's file without a sidecar: statement and form from flags, or detected.
		if code, o, _ := run(t, "verify", vectors.Path(t, set+form.ref), "--n", "300"); code != 0 || !accepted(o) {
			t.Fatalf("verify reference %s: exit %d, %q", form.flag, code, o)
		}
	}
	// verify --raw-out turns an accepted wire proof into the raw form.
	rawOut := filepath.Join(dir, "expanded.proof.bin")
	if code, o, e := run(t, "verify", filepath.Join(dir, "wire.proof.bin"), "--raw-out", rawOut); code != 0 {
		t.Fatalf("verify --raw-out: exit %d %s %s", code, o, e)
	}
	if got, _ := os.ReadFile(rawOut); !bytes.Equal(got, vectors.ReadFile(t, set+".proof.bin")) {
		t.Fatal("raw form expanded from the wire proof differs from the reference raw proof")
	}
}

func TestVerifyRejectsCorruptedProof(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.proof.bin")
	if code, _, e := run(t, "prove", "--n", "20", "--seed", "4", "--out", out); code != 0 {
		t.Fatalf("prove: %d %s", code, e)
	}
	data, _ := os.ReadFile(out)
	for _, off := range []int{8, 100, len(data) / 2, len(data) - 1} {
		bad := bytes.Clone(data)
		bad[off] ^= 0x40
		os.WriteFile(out, bad, 0o644)
		code, o, _ := run(t, "verify", out)
		if code != 1 || !strings.HasPrefix(o, "rejected: ") {
			t.Fatalf("byte %d corrupted: exit %d, %q", off, code, o)
		}
	}
	os.WriteFile(out, data[:len(data)-3], 0o644)
	if code, o, _ := run(t, "verify", out); code != 1 || !strings.Contains(o, "rejected: ") {
		t.Fatalf("truncated: exit %d, %q", code, o)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	badBlocks := filepath.Join(dir, "bad.blocks.bin")
	os.WriteFile(badBlocks, make([]byte, 113), 0o644)
	badCfg := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badCfg, []byte("leaves: 2\nbatchsize: 3\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"prove", "--blocks", badBlocks, "--out", filepath.Join(dir, "x")}, "bad.blocks.bin"},
		{[]string{"prove", "--n", "0", "--out", filepath.Join(dir, "x")}, "--n"},
		{[]string{"prove", "--n", "5"}, "--out"},
		{[]string{"prove", "--n", "5", "--out", filepath.Join(dir, "x"), "--format", "json"}, "--format"},
		{[]string{"prove", "--n", "5", "--out", filepath.Join(dir, "x"), "--log-inv-rate", "7"}, "log inverse rate"},
		{[]string{"verify", filepath.Join(dir, "missing.bin")}, "missing.bin"},
		{[]string{"run", badCfg}, "line 2: batchsize: unknown key"},
		{[]string{"run", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{[]string{"bench", "--log-n", "x"}, "--log-n"},
		{[]string{"prove", "--bogus"}, "bogus"},
	}
	for _, c := range cases {
		code, _, e := run(t, c.args...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, e, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Fatal("a refused prove wrote a proof")
	}
}

func TestRunConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "run.yaml")
	out := filepath.Join(dir, "out")
	os.WriteFile(cfg, []byte("leaves: 2\nbatch: 9\nworkers: 2\nseed: 5\noutput: "+out+"\nformat: raw\n"), 0o644)
	code, o, e := run(t, "run", cfg)
	if code != 0 {
		t.Fatalf("run: exit %d: %s %s", code, o, e)
	}
	for _, f := range []string{"leaf-0000.proof.bin", "leaf-0001.proof.bin", "leaf-0000.proof.bin.json", "summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	var sum runSummary
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Leaves) != 2 || len(sum.Leaves[0].Stages) != 7 || sum.CompressionsPerS <= 0 {
		t.Fatalf("summary: %v %s", err, b)
	}
	// The budget says auto and what it came to, in bytes (issue 25).
	if !strings.Contains(string(b), `"memory_budget": "auto"`) || sum.MemoryBudget.Setting != "auto" || sum.MemoryBudget.Bytes <= 0 || !strings.Contains(sum.MemoryBudget.From, "the default") {
		t.Fatalf("summary's memory budget: %+v in %s", sum.MemoryBudget, b)
	}
	if code, o, _ := run(t, "verify", filepath.Join(out, "leaf-0001.proof.bin")); code != 0 || !accepted(o) {
		t.Fatalf("verify leaf: %d %q", code, o)
	}
	if !strings.Contains(o, "zerocheck") || !strings.Contains(o, "all verified") {
		t.Fatalf("run output lacks the stage table: %s", o)
	}
}

func TestVersion(t *testing.T) {
	code, o, _ := run(t, "version")
	if code != 0 || !strings.Contains(o, "leanpipe") || !strings.Contains(o, "kernels") {
		t.Fatalf("version: %d %q", code, o)
	}
}

// TestHeapLimit: the leanpipe process (a child here, set up as main sets itself up)
// runs under a soft heap limit of the machine's memory budget; GOMEMLIMIT overrides it.
func TestHeapLimit(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"", "heap limit " + sysmem.Format(memoryLimit()) + "\n"},
		{"GOMEMLIMIT=3GiB", "heap limit 3.0 GiB\n"},
		{"GOMEMLIMIT=off", "heap limit none\n"},
	} {
		cmd := cliCommand(t, "", "version")
		if c.env != "" {
			cmd.Env = append(cmd.Env, c.env)
		}
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: version %v: %q, want %q", c.env, err, out, c.want)
		}
	}
	if memoryLimit() <= 0 {
		t.Fatalf("the machine's budget is %d bytes", memoryLimit())
	}
}

// accepted reports whether verify's output says accepted (its first line).
func accepted(out string) bool {
	first, _, _ := strings.Cut(out, "\n")
	return first == "accepted"
}

// verify prints the statement it checked: the flow, the slot count, the rate and
// the form; the slot count, not N, is what the proof binds.
func TestVerifySaysWhatItChecked(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.proof.bin")
	if code, _, e := run(t, "prove", "--n", "300", "--out", out); code != 0 {
		t.Fatalf("prove: %d %s", code, e)
	}
	code, o, _ := run(t, "verify", out)
	if code != 0 || !accepted(o) || !strings.Contains(o, "checked: flow blake2s-batch, 2^9 slots (n = 300;") ||
		!strings.Contains(o, "any n in 257..512 verifies it") || !strings.Contains(o, "log_inv_rate 1, wire form") {
		t.Fatalf("verify: %d %q", code, o)
	}
	// Without PROOF.json, another n of the same power of two verifies the same proof.
	os.Remove(out + ".json")
	code, o, _ = run(t, "verify", out, "--n", "511")
	if code != 0 || !accepted(o) || !strings.Contains(o, "2^9 slots (n = 511;") || !strings.Contains(o, "wire form (detected)") {
		t.Fatalf("verify --n 511: %d %q", code, o)
	}
	// Bytes neither decoder reads: both reasons are given.
	os.WriteFile(out, []byte("not a proof"), 0o644)
	code, o, _ = run(t, "verify", out, "--n", "300")
	if code != 1 || !strings.HasPrefix(o, "rejected: ") || !strings.Contains(o, "as wire: ") || !strings.Contains(o, "as raw: ") {
		t.Fatalf("verify garbage: %d %q", code, o)
	}
}

// --cpuprofile writes a profile go tool pprof reads (a gzipped protocol buffer) of
// any command, --memprofile a heap profile at its end; a path that cannot be created
// is a usage error before any work.
func TestCPUProfileFlag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.prof")
	if code, _, e := run(t, "prove", "--n", "300", "--out", filepath.Join(dir, "p.bin"), "--cpuprofile", path); code != 0 {
		t.Fatalf("prove --cpuprofile: %d %s", code, e)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile is %d bytes and not gzip", len(b))
	}
	mem := filepath.Join(dir, "mem.prof")
	if code, _, e := run(t, "prove", "--n", "300", "--out", filepath.Join(dir, "q.bin"), "--memprofile", mem); code != 0 {
		t.Fatalf("prove --memprofile: %d %s", code, e)
	}
	if b, err := os.ReadFile(mem); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the heap profile: %d bytes, %v", len(b), err)
	}
	// Another command can profile after it: the first profile was stopped.
	if code, _, e := run(t, "version", "--cpuprofile", filepath.Join(dir, "v.prof")); code != 0 {
		t.Fatalf("version --cpuprofile after a profiled prove: %d %s", code, e)
	}
	code, _, e := run(t, "version", "--cpuprofile", filepath.Join(dir, "missing", "x.prof"))
	if code != 2 || !strings.Contains(e, "--cpuprofile") {
		t.Fatalf("an uncreatable profile: exit %d, %q", code, e)
	}
}

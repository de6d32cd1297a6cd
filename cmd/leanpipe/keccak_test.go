package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/keccak"
)

// keccak-batch on the command line: prove --n and --states write PROOF, PROOF.json
// (flow, n, permutations, no states) and PROOF.states (input then output state per
// permutation); verify accepts them together and exits 1 when any state byte, the
// states file's length, or a count in PROOF.json changed, 2 when PROOF.states is
// missing.
func TestKeccakProveVerify(t *testing.T) {
	dir := t.TempDir()
	rng := testrand.New(t)
	ins := make([]byte, 5*keccak.StateSize)
	for i := range ins {
		ins[i] = byte(rng.Uint32())
	}
	insPath := filepath.Join(dir, "ins")
	if err := os.WriteFile(insPath, ins, 0o644); err != nil {
		t.Fatal(err)
	}
	gen, file := filepath.Join(dir, "g.bin"), filepath.Join(dir, "f.bin")
	if code, _, errOut := run(t, "prove", "--flow", "keccak-batch", "--n", "7", "--seed", "4", "--out", gen); code != 0 {
		t.Fatalf("prove --n: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "prove", "--states", insPath, "--out", file); code != 0 {
		t.Fatalf("prove --states: exit %d: %s", code, errOut)
	}
	want, err := keccak.NewInput(ins)
	if err != nil {
		t.Fatal(err)
	}
	states, err := os.ReadFile(file + ".states")
	if err != nil || !bytes.Equal(states, want.States()) {
		t.Fatalf("%s.states is not the input and output states (%v)", file, err)
	}
	if got, err := os.ReadFile(gen + ".states"); err != nil || !bytes.Equal(got, keccak.GenerateInput(7, 4).States()) {
		t.Fatalf("%s.states is not the generated batch (%v)", gen, err)
	}
	var meta map[string]any
	mb, _ := os.ReadFile(file + ".json")
	if err := json.Unmarshal(mb, &meta); err != nil || meta["flow"] != "keccak-batch" || meta["permutations"] != 5.0 || meta["n"] != 2.0 || meta["states"] != nil {
		t.Fatalf("%s.json: %s (%v)", file, mb, err)
	}
	for _, p := range []string{gen, file} {
		if code, out, errOut := run(t, "verify", p); code != 0 || !accepted(out) {
			t.Fatalf("verify %s: exit %d: %s%s", p, code, out, errOut)
		}
	}

	restore := func() {
		if err := os.WriteFile(file+".states", states, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file+".json", mb, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(what string, code int) {
		t.Helper()
		got, out, errOut := run(t, "verify", file)
		if got != code {
			t.Fatalf("%s: exit %d, want %d: %s%s", what, got, code, out, errOut)
		}
		restore()
	}
	for _, off := range []int{0, 199, 200, 399, 4*keccak.PairSize + 250, rng.IntN(len(states))} {
		bad := bytes.Clone(states)
		bad[off] ^= 0x40
		os.WriteFile(file+".states", bad, 0o644)
		expect("state byte changed", 1)
	}
	os.WriteFile(file+".states", states[:len(states)-1], 0o644)
	expect("states file one byte short", 1)
	os.WriteFile(file+".states", append(bytes.Clone(states), states[:keccak.PairSize]...), 0o644)
	expect("states file one permutation long", 1)
	os.WriteFile(file+".json", []byte(strings.Replace(string(mb), `"permutations": 5`, `"permutations": 4`, 1)), 0o644)
	expect("permutations 4", 1)
	os.WriteFile(file+".json", []byte(strings.Replace(string(mb), `"n": 2`, `"n": 3`, 1)), 0o644)
	expect("n 3", 1)
	os.WriteFile(file+".json", []byte(strings.Replace(string(mb), `"permutations": 5`, `"permutations": 6`, 1)), 0o644)
	os.WriteFile(file+".states", append(bytes.Clone(states), states[:keccak.PairSize]...), 0o644)
	expect("a sixth permutation (a copy of the first) in both files", 1)
	os.Remove(file + ".states")
	expect("no states file", 2)
	expect("restored", 0)

	if code, _, _ := run(t, "prove", "--states", insPath, "--flow", "blake2s-batch", "--out", filepath.Join(dir, "x.bin")); code != 2 {
		t.Fatalf("--states with another flow: exit %d", code)
	}
	os.WriteFile(insPath, ins[:len(ins)-1], 0o644)
	if code, _, _ := run(t, "prove", "--states", insPath, "--out", filepath.Join(dir, "y.bin")); code != 2 {
		t.Fatalf("--states of a bad length: exit %d", code)
	}
}

// bench --flow keccak-batch measures permutations: its row counts them and reports
// permutations_per_s (and no compressions).
func TestKeccakBench(t *testing.T) {
	code, out, errOut := run(t, "bench", "--flow", "keccak-batch", "--log-n", "4", "--workers", "1", "--repeat", "1", "--in-process", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("%s: %v", out, err)
	}
	r := rows[0]
	if r["flow"] != "keccak-batch" || r["n"] != 16.0 || r["compressions_per_s"] != nil {
		t.Fatalf("row %v", r)
	}
	if p, _ := r["permutations_per_s"].(float64); p <= 0 {
		t.Fatalf("permutations_per_s %v", r["permutations_per_s"])
	}
}

// serve takes keccak-batch jobs by "states" file or by "flow" and "n", and writes
// DIR/<id>.proof.bin.states beside each proof; verify accepts what it wrote, and a
// "states" job naming another flow is an error line.
func TestKeccakServe(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	ins := keccak.GenerateInput(4, 9)
	var raw []byte
	for j := range ins.Len() {
		b := ins.InputState(j).Bytes()
		raw = append(raw, b[:]...)
	}
	if err := os.WriteFile(filepath.Join(dir, "ins.bin"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := `{"id":"a","states":"` + filepath.Join(dir, "ins.bin") + `"}
{"id":"b","flow":"keccak-batch","n":5,"seed":2,"format":"raw"}
{"id":"c","flow":"blake2s-batch","states":"` + filepath.Join(dir, "ins.bin") + `"}
`
	var o, e bytes.Buffer
	if code := executeIn([]string{"serve", "--out", out, "--workers", "2"}, strings.NewReader(jobs), &o, &e); code != 0 {
		t.Fatalf("serve: exit %d: %s", code, e.String())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"ok":true`) || !strings.Contains(lines[1], `"ok":true`) || !strings.Contains(lines[2], `"ok":false`) {
		t.Fatalf("results %q", o.String())
	}
	for id, want := range map[string]*keccak.Input{"a": ins, "b": keccak.GenerateInput(5, 2)} {
		p := filepath.Join(out, id+".proof.bin")
		if got, err := os.ReadFile(p + ".states"); err != nil || !bytes.Equal(got, want.States()) {
			t.Fatalf("%s.states: %v", p, err)
		}
		if mb, _ := os.ReadFile(p + ".json"); bytes.Contains(mb, []byte(`"states"`)) {
			t.Fatalf("%s.json holds the states: %s", p, mb)
		}
		if code, stdout, stderr := run(t, "verify", p); code != 0 || !accepted(stdout) {
			t.Fatalf("verify %s: exit %d: %s%s", p, code, stdout, stderr)
		}
	}
}

// A `serve --nats` worker proves keccak-batch jobs (by "states" file and by "n"),
// stores the states with the proof (in its statement object), and `submit --fetch`
// verifies each and writes it with its .states file, which `verify` accepts.
func TestKeccakNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and a worker process")
	}
	url := embeddedNATS(t, nil)
	dir := t.TempDir()
	ins := keccak.GenerateInput(4, 6)
	var raw []byte
	for j := range ins.Len() {
		b := ins.InputState(j).Bytes()
		raw = append(raw, b[:]...)
	}
	os.WriteFile(filepath.Join(dir, "ins.bin"), raw, 0o644)
	jobs := `{"id":"s","states":"` + filepath.Join(dir, "ins.bin") + `"}
{"id":"g","flow":"keccak-batch","n":5,"seed":3}
`
	jobsFile := filepath.Join(dir, "jobs.jsonl")
	os.WriteFile(jobsFile, []byte(jobs), 0o644)
	var ew bytes.Buffer
	w := child(t, &ew, "serve", "--nats", url, "--workers", "1", "--in-flight", "1", "--grace", "1s", "--name", "w")
	defer w.Process.Kill()
	fetch := filepath.Join(dir, "fetched")
	os.Mkdir(fetch, 0o755)
	var o, e bytes.Buffer
	if code := executeIn([]string{"submit", "--nats", url, "--fetch", fetch, "--timeout", "120s", jobsFile}, strings.NewReader(""), &o, &e); code != 0 {
		t.Fatalf("submit: exit %d: %s\n%s\nworker: %s", code, e.String(), o.String(), ew.String())
	}
	for id, want := range map[string]*keccak.Input{"s": ins, "g": keccak.GenerateInput(5, 3)} {
		p := filepath.Join(fetch, id+".proof.bin")
		if got, err := os.ReadFile(p + ".states"); err != nil || !bytes.Equal(got, want.States()) {
			t.Fatalf("%s.states: %v", p, err)
		}
		if code, stdout, stderr := run(t, "verify", p); code != 0 || !accepted(stdout) {
			t.Fatalf("verify %s: exit %d: %s%s", p, code, stdout, stderr)
		}
	}
}

// `run` with flow keccak-batch writes each leaf's .states beside it and reports
// permutations_per_s.
func TestKeccakRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cfg := filepath.Join(dir, "k.yaml")
	os.WriteFile(cfg, []byte("flow: keccak-batch\nleaves: 2\nbatch: 7\noutput: "+out+"\n"), 0o644)
	if code, stdout, stderr := run(t, "run", cfg); code != 0 {
		t.Fatalf("run: exit %d: %s%s", code, stdout, stderr)
	}
	for i := range 2 {
		p := filepath.Join(out, leafName(i))
		if got, err := os.ReadFile(p + ".states"); err != nil || !bytes.Equal(got, keccak.GenerateInput(7, uint64(1+i)).States()) {
			t.Fatalf("%s.states: %v", p, err)
		}
		if code, stdout, _ := run(t, "verify", p); code != 0 || !accepted(stdout) {
			t.Fatalf("verify %s: %d %s", p, code, stdout)
		}
	}
	var sum map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum["permutations_per_s"] == nil || sum["compressions_per_s"] != nil {
		t.Fatalf("summary: %v %v", sum["permutations_per_s"], err)
	}
}

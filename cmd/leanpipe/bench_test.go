package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
)

// writeJSON writes v as JSON to dir/name and returns the path.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// stageLines returns a printed point's table lines by their first field (stage,
// total, verify, peak), each split into fields.
func stageLines(t *testing.T, out, point string) map[string][]string {
	t.Helper()
	_, rest, ok := strings.Cut(out, point)
	if !ok {
		t.Fatalf("no %q in %q", point, out)
	}
	m := map[string][]string{}
	for _, l := range strings.Split(rest, "\n")[1:] {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		f := strings.Fields(l)
		m[f[0]] = f
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestBenchBaselineRatios: --from prints a saved run, --baseline compares it with an
// older one point by point (same flow, size and workers): per-stage, total, verify
// and peak RSS ratios new/old in the table and in each JSON row; the points missing
// on either side and a point at another rate are listed, not compared. Both files are
// written here, so every ratio is known.
func TestBenchBaselineRatios(t *testing.T) {
	dir := t.TempDir()
	log14, log12 := 14, 12
	// The old file is as bench --json wrote it before rows named their flow, rate
	// and kernels: those default to the batch flow at rate 1.
	oldRows := []map[string]any{
		{"n": 16384, "log_n": log14, "workers": 1, "repeat": 3, "prove_ms_median": 600.0, "verify_ms_median": 4.0,
			"stage_ms_median":    map[string]float64{"plan": 0.05, "witness": 80, "commit": 70, "zerocheck": 270, "lincheck": 25, "ringswitch": 40, "open": 115},
			"compressions_per_s": 27000.0, "proof_bytes": 257928, "peak_rss_bytes": 2 << 28},
		{"n": 16384, "log_n": log14, "workers": 2, "repeat": 3, "prove_ms_median": 400.0, "verify_ms_median": 4.0,
			"stage_ms_median": map[string]float64{"zerocheck": 200}, "log_inv_rate": 2, "peak_rss_bytes": 1},
		{"n": 4096, "log_n": log12, "workers": 1, "repeat": 3, "prove_ms_median": 150.0, "stage_ms_median": map[string]float64{}},
	}
	newRows := []benchRow{
		{Flow: "blake2s-batch", N: 16384, LogN: &log14, Workers: 1, LogInvRate: 1, Repeat: 3, ProveMS: 450, VerifyMS: 5, ProofBytes: 257928, PeakRSSBytes: 3 << 27,
			StageMS: map[string]float64{"plan": 0.04, "witness": 40, "commit": 70, "zerocheck": 216, "lincheck": 50, "ringswitch": 20, "open": 92},
			Kernels: map[string]string{"field": "avx2", "ntt": "portable", "blake2s": "avx2", "zerocheck": "avx2", "reduce": "avx2", "open": "avx2", "circuit": "avx2"}},
		{Flow: "blake2s-batch", N: 16384, LogN: &log14, Workers: 2, LogInvRate: 1, Repeat: 3, ProveMS: 300, StageMS: map[string]float64{"zerocheck": 150}},
		{Flow: "blake2s-batch", N: 65536, Workers: 1, LogInvRate: 1, Repeat: 3, ProveMS: 2000, StageMS: map[string]float64{}},
	}
	oldPath := writeJSON(t, dir, "old.json", oldRows)
	newPath := writeJSON(t, dir, "new.json", newRows)

	code, out, errs := run(t, "bench", "--from", newPath, "--baseline", oldPath)
	if code != 0 {
		t.Fatalf("bench --from --baseline: exit %d: %s", code, errs)
	}
	lines := stageLines(t, out, "2^14 compressions, 1 worker(s)")
	want := map[string]struct{ baseMS, ratio string }{
		"plan": {"0.05", "0.800"}, "witness": {"80.00", "0.500"}, "commit": {"70.00", "1.000"}, "zerocheck": {"270.00", "0.800"},
		"lincheck": {"25.00", "2.000"}, "ringswitch": {"40.00", "0.500"}, "open": {"115.00", "0.800"},
		"total": {"600.00", "0.750"}, "verify": {"4.00", "1.250"},
	}
	for name, w := range want {
		f := lines[name]
		// name, ms, share, baseline ms, new/old, kernels…; total and verify have no share
		i := 3
		if name == "total" || name == "verify" {
			i = 2
		}
		if len(f) <= i+1 || f[i] != w.baseMS || f[i+1] != w.ratio {
			t.Errorf("%s line %q: want baseline %s and ratio %s", name, f, w.baseMS, w.ratio)
		}
	}
	if f := lines["peak"]; len(f) < 5 || f[len(f)-1] != "0.750" {
		t.Errorf("peak RSS line %q: want ratio 0.750", f)
	}
	// The old row has no kernels: the new row's levels are shown, with no baseline note.
	if f := lines["commit"]; !slices.Contains(f, "ntt=portable") || strings.Contains(strings.Join(f, " "), "baseline") {
		t.Errorf("commit line %q", f)
	}
	for _, s := range []string{
		"1 of 3 point(s) compared",
		"mismatched, not compared: blake2s-batch 2^14, 2 worker(s): log_inv_rate 1 here, 2 in the baseline",
		"not in the baseline: blake2s-batch 2^16, 1 worker(s)",
		"in the baseline only: blake2s-batch 2^12, 1 worker(s)",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(stageLines(t, out, "2^14 compressions, 2 worker(s)")["zerocheck"][0], "baseline") {
		t.Error("the mismatched point was compared")
	}

	// JSON: still an array of rows, each with its ratios; the listing on stderr.
	code, out, errs = run(t, "bench", "--from", newPath, "--baseline", oldPath, "--json")
	if code != 0 {
		t.Fatalf("bench --json: exit %d: %s", code, errs)
	}
	var rows []benchRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("bench --json output %q: %v", out, err)
	}
	r := rows[0].Baseline
	if r == nil || r.File != oldPath || !near(r.Prove, 0.75) || !near(r.Verify, 1.25) || !near(r.PeakRSS, 0.75) ||
		!near(r.StageRatio["lincheck"], 2) || !near(r.StageRatio["witness"], 0.5) || len(r.StageRatio) != 7 {
		t.Fatalf("row 0 baseline %+v", r)
	}
	if rows[1].Baseline != nil || rows[2].Baseline != nil {
		t.Fatalf("unmatched rows carry ratios: %+v %+v", rows[1].Baseline, rows[2].Baseline)
	}
	if !strings.Contains(errs, "1 of 3 point(s) compared") || !strings.Contains(errs, "in the baseline only") {
		t.Fatalf("stderr %q", errs)
	}
	var raw []map[string]any
	json.Unmarshal([]byte(out), &raw)
	if _, ok := raw[0]["prove_ms_median"]; !ok {
		t.Fatal("rows lost prove_ms_median")
	}
}

// A --baseline (or --from) file that is not a bench --json output is a usage error
// naming the file, before any proving.
func TestBenchBaselineMalformed(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"truncated.json": `[{"n": 1, "workers": 1`,
		"object.json":    `{"n": 1}`,
		"null.json":      `null`,
		"norow.json":     `[{"n": 0, "workers": 1, "prove_ms_median": 1}]`,
		"strings.json":   `["a"]`,
		"dup.json":       `[{"n": 8, "workers": 1, "prove_ms_median": 1}, {"n": 8, "workers": 1, "prove_ms_median": 2}]`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		for _, flag := range []string{"--baseline", "--from"} {
			// --log-n 20 would take minutes and gigabytes: the refusal comes first.
			args := []string{"bench", flag, p}
			if flag == "--baseline" {
				args = append(args, "--log-n", "20", "--memory-budget", "0")
			}
			code, _, errs := run(t, args...)
			if code != 2 || !strings.Contains(errs, p) || !strings.Contains(errs, flag) {
				t.Errorf("%s %s: exit %d, stderr %q: want 2 naming the flag and the file", flag, name, code, errs)
			}
		}
	}
	missing := filepath.Join(dir, "absent.json")
	if code, _, errs := run(t, "bench", "--baseline", missing); code != 2 || !strings.Contains(errs, missing) {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	ok := writeJSON(t, dir, "ok.json", []map[string]any{{"n": 8, "workers": 1, "prove_ms_median": 1}})
	if code, _, errs := run(t, "bench", "--from", ok, "--log-n", "3"); code != 2 || !strings.Contains(errs, "--log-n") {
		t.Errorf("--from with --log-n: exit %d, %q", code, errs)
	}
}

// checkKernelColumn checks every stage line of a printed point: its kernel column
// names the stage's families at the levels in levels (family → level).
func checkKernelColumn(t *testing.T, lines map[string][]string, levels map[string]string) {
	t.Helper()
	for _, stage := range benchStages {
		f := lines[stage]
		if len(f) < 3 {
			t.Fatalf("no %s line: %v", stage, lines)
		}
		got := strings.Join(f[4:], " ") // name, ms, share, cores, kernels…
		want := "-"
		if fams := stageFamilies[stage]; len(fams) > 0 {
			var parts []string
			for _, fam := range fams {
				parts = append(parts, fam+"="+levels[fam])
			}
			want = strings.Join(parts, " ")
		}
		if got != want {
			t.Errorf("%s: kernels %q, want %q", stage, got, want)
		}
	}
}

// TestBenchKernelColumn: each stage line shows the level its families ran at, in the
// process that measured it: in process at every level this machine has, and in a
// child capped by the environment (portable everywhere); the JSON row carries the
// levels.
func TestBenchKernelColumn(t *testing.T) {
	registered := map[string]bool{}
	for _, f := range cpu.Families() {
		registered[f.Name()] = true
	}
	for stage, fams := range stageFamilies {
		if !slices.Contains(benchStages, stage) {
			t.Errorf("stageFamilies names stage %q, not a bench stage", stage)
		}
		for _, f := range fams {
			if !registered[f] {
				t.Errorf("stage %s: family %q is not registered", stage, f)
			}
		}
	}
	for _, l := range []cpu.Level{cpu.Portable, cpu.Detected()} {
		restore := cpu.SetLevel(l)
		code, out, errs := run(t, "bench", "--log-n", "3", "--workers", "1", "--repeat", "1", "--in-process")
		levels := kernelMap()
		restore()
		if code != 0 {
			t.Fatalf("bench at %v: exit %d: %s", l, code, errs)
		}
		for f, lv := range levels {
			if l == cpu.Portable && lv != cpu.Portable.String() {
				t.Fatalf("at portable, family %s reports %s", f, lv)
			}
		}
		checkKernelColumn(t, stageLines(t, out, "2^3 compressions, 1 worker(s)"), levels)
	}
	// A child process per point (the default), capped at portable by the environment.
	c := cliCommand(t, "", "bench", "--log-n", "3", "--workers", "1", "--repeat", "1", "--json")
	c.Env = append(c.Env, cpu.EnvCap+"=portable")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("bench child: %v", err)
	}
	var rows []benchRow
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) != 1 {
		t.Fatalf("bench --json %q: %v", out, err)
	}
	portable := map[string]string{}
	for f := range registered {
		portable[f] = cpu.Portable.String()
	}
	if fmt.Sprint(rows[0].Kernels) != fmt.Sprint(portable) {
		t.Fatalf("child row kernels %v, want %v", rows[0].Kernels, portable)
	}
	p := writeJSON(t, t.TempDir(), "rows.json", rows)
	code, text, errs := run(t, "bench", "--from", p)
	if code != 0 {
		t.Fatalf("bench --from: exit %d: %s", code, errs)
	}
	checkKernelColumn(t, stageLines(t, text, "2^3 compressions, 1 worker(s)"), portable)
	// The parent verified the child's last proof one-shot, in a fresh process.
	if rows[0].VerifyOneShotMS <= 0 || !strings.Contains(text, " (one-shot ") {
		t.Fatalf("no one-shot verify time: %+v\n%s", rows[0], text)
	}
	if rows[0].Flow != "blake2s-batch" || rows[0].LogInvRate != 1 || rows[0].StageMS["witness"] <= 0 || rows[0].ProveMS < rows[0].StageMS["witness"] {
		t.Fatalf("row %+v", rows[0])
	}
	// Every stage has its CPU time (Linux), and its cores column is CPU over wall.
	if runtime.GOOS == "linux" {
		lines := stageLines(t, text, "2^3 compressions, 1 worker(s)")
		for _, stage := range benchStages {
			c, ok := rows[0].StageCPUMS[stage]
			if !ok || c < 0 {
				t.Fatalf("%s: CPU %v ms (%v)", stage, c, ok)
			}
			if ms := rows[0].StageMS[stage]; ms > 0 && lines[stage][3] != fmt.Sprintf("%.2f", min(c/ms, 1)) {
				t.Errorf("%s: cores %q, want %.2f (at most the 1 worker)", stage, lines[stage][3], min(c/ms, 1))
			}
		}
	}
}

// Every point is checked against the memory budget before any point runs: one over
// it is a usage error naming the point, its estimate and the budget.
func TestBenchMemoryBudget(t *testing.T) {
	code, out, errs := run(t, "bench", "--log-n", "3,20", "--workers", "1", "--memory-budget", "1GiB")
	if code != 2 || out != "" || !strings.Contains(errs, "bench 2^20") || !strings.Contains(errs, "1.0 GiB") || !strings.Contains(errs, "estimated") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// --stage-rss gives every stage a peak resident size over the measured proofs and
// over the warm-up proof, each at most the process's peak, in the row and in the
// table's two extra columns.
func TestBenchStageRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm")
	}
	code, out, errs := run(t, "bench", "--log-n", "3", "--workers", "1", "--repeat", "2", "--in-process", "--json", "--stage-rss")
	if code != 0 {
		t.Fatalf("bench --stage-rss: exit %d: %s", code, errs)
	}
	var rows []benchRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("bench --json %q: %v", out, err)
	}
	r := rows[0]
	for _, stage := range benchStages {
		for what, m := range map[string]map[string]int64{"warm": r.StageRSS, "cold": r.ColdStageRSS} {
			if v := m[stage]; v <= 0 || v > r.PeakRSSBytes {
				t.Errorf("%s %s: peak RSS %d, process peak %d", what, stage, v, r.PeakRSSBytes)
			}
		}
	}
	p := writeJSON(t, t.TempDir(), "rss.json", rows)
	code, text, _ := run(t, "bench", "--from", p)
	lines := stageLines(t, text, "2^3 compressions, 1 worker(s)")
	if code != 0 || !strings.Contains(text, "cold MiB  rss MiB") {
		t.Fatalf("exit %d, table %q", code, text)
	}
	// name, ms, share, cores, cold MiB, rss MiB, kernels…
	if f := lines["commit"]; len(f) < 7 || f[5] != strconv.FormatFloat(float64(r.StageRSS["commit"])/(1<<20), 'f', 0, 64) {
		t.Fatalf("commit line %q, warm peak %d", f, r.StageRSS["commit"])
	}
	if code, _, errs := run(t, "bench", "--from", p, "--stage-rss"); code != 2 || !strings.Contains(errs, "--stage-rss") {
		t.Fatalf("--from with --stage-rss: exit %d %q", code, errs)
	}
}

// TestStageCores: a stage's cores figure is CPU over wall time, never more than its
// workers (the plan stage's CPU time can include the runtime's other threads).
func TestStageCores(t *testing.T) {
	for _, c := range []struct {
		cpu, wall float64
		workers   int
		want      float64
	}{
		{1.5, 1, 1, 1}, {3, 1, 2, 2}, {1.5, 1, 2, 1.5}, {0.5, 1, 1, 0.5},
	} {
		if got := stageCores(c.cpu, c.wall, c.workers); got != c.want {
			t.Errorf("stageCores(%v, %v, %d) = %v, want %v", c.cpu, c.wall, c.workers, got, c.want)
		}
	}
}

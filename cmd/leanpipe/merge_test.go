package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/recursion"
	"github.com/leanpipe/leanpipe/stream"
)

// siblingSignatures writes k signatures files of n signers each, cut in order from
// one generated set (one message and epoch, distinct keys): dir/s<i>.json.
func siblingSignatures(t *testing.T, dir string, k, n int, seed uint64) ([]string, []*aggregate.Input) {
	t.Helper()
	in, err := aggregate.Generate(k*n, seed, "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var parts []*aggregate.Input
	for i := range k {
		part := &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[i*n : (i+1)*n]}
		data, err := part.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths, parts = append(paths, p), append(parts, part)
	}
	return paths, parts
}

// copyProof copies a proof and its PROOF.json to dst, with change applied to the
// proof's bytes (nil: none).
func copyProof(t *testing.T, src, dst string, change func([]byte)) {
	t.Helper()
	data, _ := os.ReadFile(src)
	mb, _ := os.ReadFile(src + ".json")
	if change != nil {
		change(data)
	}
	os.WriteFile(dst, data, 0o644)
	os.WriteFile(dst+".json", mb, 0o644)
}

// TestProveMergeRefusalsShort: refusals that need no aggregate proof, each an input
// error (exit 2) that writes nothing.
func TestProveMergeRefusalsShort(t *testing.T) {
	dir := t.TempDir()
	batch := filepath.Join(dir, "batch.bin")
	if code, _, e := run(t, "prove", "--n", "8", "--out", batch, "--workers", "1"); code != 0 {
		t.Fatalf("prove batch: %d %s", code, e)
	}
	fake := filepath.Join(dir, "fake-merged.bin")
	os.WriteFile(fake, []byte("LPMERGE0 and then anything"), 0o644)
	out := filepath.Join(dir, "m.bin")
	nine := []string{}
	for range 9 {
		nine = append(nine, "--child", batch)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--child", batch}, "a merge takes 2 to 8 children"},
		{nine, "more needs a tree (merge groups of them with --nestable, then merge those)"},
		{[]string{"--child", batch, "--child", batch}, "--child " + batch + " is a \"blake2s-batch\" proof: only xmss-aggregate proofs merge"},
		{[]string{"--child", fake, "--child", batch}, "--child " + fake + " is a merged proof: a depth-1 merge in the revealing form, which cannot be merged again"},
		{[]string{"--child", filepath.Join(dir, "missing.bin"), "--child", batch}, "--child: open"},
		{[]string{"--child", batch, "--child", batch, "--flow", "blake2s-batch"}, "--flow blake2s-batch has no merge"},
		{[]string{"--child", batch, "--child", batch, "--format", "raw"}, "a merged proof has one form"},
		{[]string{"--child", batch, "--child", batch, "--n", "4"}, "--n does not go with --child"},
		{[]string{"--child", batch, "--child", batch, "--log-inv-rate", "5"}, "--log-inv-rate: 5 is out of range"},
		{[]string{"--child", batch, "--child", batch, "--memory-budget", "1GiB"}, "a merge is budgeted at 4.0 GiB, over the memory budget"},
	} {
		code, _, e := run(t, append([]string{"prove", "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("prove %v: exit %d, %q; want 2 mentioning %q", c.args, code, e, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("prove %v wrote %s", c.args, out)
		}
	}
	// A merged-looking file without its PROOF.json is an input error for verify.
	if code, _, e := run(t, "verify", fake); code != 2 || !strings.Contains(e, "is a merged proof and has no") {
		t.Errorf("verify a merged file without PROOF.json: %d %q", code, e)
	}
}

// TestProveMerge: leaves made by prove (one at its default rate 1, one at rate 2)
// and raw signers merge into one proof whose PROOF.json has a leaf's fields and the
// keys in order; verify accepts it and rejects a changed byte or statement; bad
// children are refused naming the file.
func TestProveMerge(t *testing.T) {
	skipMergeProofs(t, "proves two leaves and a 3→1 merge")
	dir := t.TempDir()
	sigs, parts := siblingSignatures(t, dir, 3, 2, 31)
	a, b := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	if code, _, e := run(t, "prove", "--flow", "xmss-aggregate", "--signatures", sigs[0], "--out", a, "--workers", "2"); code != 0 {
		t.Fatalf("prove a: %d %s", code, e)
	}
	if code, _, e := run(t, "prove", "--signatures", sigs[1], "--log-inv-rate", "2", "--out", b, "--workers", "2"); code != 0 {
		t.Fatalf("prove b: %d %s", code, e)
	}
	m := filepath.Join(dir, "m.bin")
	code, o, e := run(t, "prove", "--flow", "xmss-aggregate", "--child", a, "--child", b, "--signatures", sigs[2], "--out", m, "--workers", "2")
	if code != 0 || !strings.Contains(o, "merged 3 children") {
		t.Fatalf("merge: %d %s %s", code, o, e)
	}
	t.Log(strings.TrimSpace(o))
	data, _ := os.ReadFile(m)
	if !recursion.IsMergedProof(data) {
		t.Fatal("the merged file has no magic")
	}
	mb, _ := os.ReadFile(m + ".json")
	var meta map[string]any
	if err := json.Unmarshal(mb, &meta); err != nil {
		t.Fatal(err)
	}
	var want []any
	for _, p := range parts {
		for _, s := range p.Signers {
			want = append(want, s.PublicKey.String())
		}
	}
	got, _ := json.Marshal(meta["public_keys"])
	wantJS, _ := json.Marshal(want)
	children, _ := json.Marshal(meta["children"])
	if meta["flow"] != "xmss-aggregate" || meta["n"] != 6.0 || meta["log_inv_rate"] != float64(recursion.DefaultRate(3)) || meta["format"] != "wire" ||
		meta["label"] != recursion.MergeLabel || meta["depth"] != 1.0 || meta["message"] != hex.EncodeToString(parts[0].Message[:]) ||
		meta["epoch"] != float64(parts[0].Epoch) || string(got) != string(wantJS) ||
		string(children) != `[{"log_inv_rate":1,"n":2},{"log_inv_rate":2,"n":2},{"log_inv_rate":1,"n":2}]` {
		t.Fatalf("PROOF.json: %s", mb)
	}
	if code, o, _ := run(t, "verify", m); code != 0 || !accepted(o) || !strings.Contains(o, "6 signatures") || !strings.Contains(o, "merged from 3 children") {
		t.Fatalf("verify: %d %q", code, o)
	}

	// Tampering: a byte of the proof, a key, the order of keys, the epoch, a
	// child's size: each rejected (exit 1), or refused as malformed (exit 2).
	work := t.TempDir()
	for _, pos := range []int{30, len(data) / 2, len(data) - 5} {
		p := filepath.Join(work, fmt.Sprintf("byte%d.bin", pos))
		copyProof(t, m, p, func(d []byte) { d[pos] ^= 1 })
		if code, o, _ := run(t, "verify", p); code != 1 || !strings.HasPrefix(o, "rejected: ") {
			t.Errorf("byte %d changed: %d %q", pos, code, o)
		}
	}
	for name, change := range map[string]func(m map[string]any){
		"key order": func(m map[string]any) { k := m["public_keys"].([]any); k[0], k[3] = k[3], k[0] },
		"epoch":     func(m map[string]any) { m["epoch"] = m["epoch"].(float64) + 1 },
		"children":  func(m map[string]any) { c := m["children"].([]any); c[0], c[1] = c[1], c[0] },
	} {
		var mm map[string]any
		json.Unmarshal(mb, &mm)
		change(mm)
		js, _ := json.Marshal(mm)
		p := filepath.Join(work, strings.ReplaceAll(name, " ", "-")+".bin")
		copyProof(t, m, p, nil)
		os.WriteFile(p+".json", js, 0o644)
		if code, o, _ := run(t, "verify", p); code != 1 || !strings.HasPrefix(o, "rejected: ") {
			t.Errorf("PROOF.json with another %s: %d %q", name, code, o)
		}
	}
	// A leaf's PROOF.json beside a merged file, and a merged PROOF.json beside a leaf.
	p := filepath.Join(work, "mixed.bin")
	copyProof(t, m, p, nil)
	leafMeta, _ := os.ReadFile(a + ".json")
	os.WriteFile(p+".json", leafMeta, 0o644)
	if code, _, e := run(t, "verify", p); code != 2 || !strings.Contains(e, "describes a xmss-aggregate proof labelled") {
		t.Errorf("merged file, leaf PROOF.json: %d %q", code, e)
	}
	copyProof(t, a, p, nil)
	os.WriteFile(p+".json", mb, 0o644)
	if code, o, _ := run(t, "verify", p); code != 1 || !strings.Contains(o, "the file is not one") {
		t.Errorf("leaf file, merged PROOF.json: %d %q", code, o)
	}

	// Refusals before any work, naming the child.
	other, _ := signaturesFile(t, work, "other.json", 2, 77)
	c := filepath.Join(work, "c.bin")
	if code, _, e := run(t, "prove", "--signatures", other, "--out", c, "--workers", "2"); code != 0 {
		t.Fatalf("prove c: %d %s", code, e)
	}
	bad := filepath.Join(work, "bad.bin")
	copyProof(t, b, bad, func(d []byte) { d[len(d)/2] ^= 4 })
	out := filepath.Join(work, "refused.bin")
	for _, r := range []struct {
		args []string
		want string
	}{
		{[]string{"--child", a, "--child", c}, "--child " + c + " signs message"},
		{[]string{"--child", a, "--child", b, "--signatures", other}, "--signatures " + other + " signs message"},
		{[]string{"--child", a, "--child", a}, "--child " + a + ": public key 0"},
		{[]string{"--child", a, "--signatures", sigs[0]}, "--signatures " + sigs[0] + ": public key 0"},
		{[]string{"--child", a, "--child", bad}, "--child " + bad + " does not verify"},
		{[]string{"--child", m, "--child", a}, "--child " + m + " is a merged proof: a depth-1 merge in the revealing form, which cannot be merged again: merge its leaves with --nestable"},
	} {
		code, _, e := run(t, append([]string{"prove", "--out", out}, r.args...)...)
		if code != 2 || !strings.Contains(e, r.want) {
			t.Errorf("prove %v: exit %d, %q; want 2 mentioning %q", r.args, code, e, r.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("prove %v wrote %s", r.args, out)
		}
	}
}

// TestBenchMergeRefusals: bench --merge's flag errors are input errors.
func TestBenchMergeRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--merge", "9"}, "--merge: 9, want 2..8 children (a larger set merges as a tree: prove --child … --nestable)"},
		{[]string{"--nestable"}, "--nestable goes with --merge"},
		{[]string{"--merge", "1"}, "--merge: 1, want 2..8"},
		{[]string{"--merge", "2", "--log-n", "3"}, "--merge sizes leaves by --sigs"},
		{[]string{"--merge", "2", "--flow", "blake2s-batch"}, "--sigs sizes the xmss-aggregate flow"},
		{[]string{"--merge", "2", "--leaf-log-inv-rate", "0"}, "--leaf-log-inv-rate: 0 is out of range"},
		{[]string{"--leaf-log-inv-rate", "2"}, "--leaf-log-inv-rate goes with --merge"},
		{[]string{"--merge", "8", "--sigs", "2000"}, "16000 signers, at most 8192"},
	} {
		code, _, e := run(t, append([]string{"bench"}, c.args...)...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("bench %v: exit %d, %q; want 2 mentioning %q", c.args, code, e, c.want)
		}
	}
}

// TestBenchMerge: one 2→1 merge of 2-signer leaves measured in process; the JSON
// row has today's fields plus "merge".
func TestBenchMerge(t *testing.T) {
	skipMergeProofs(t, "proves two leaves and two merges")
	t.Setenv("LEANPIPE_CACHE_DIR", t.TempDir())
	code, o, e := run(t, "bench", "--merge", "2", "--sigs", "2", "--workers", "2", "--repeat", "1", "--in-process", "--json")
	if code != 0 {
		t.Fatalf("bench: %d %s %s", code, o, e)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(o), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("rows: %v %s", err, o)
	}
	r := rows[0]
	for _, k := range []string{"prove_ms_median", "verify_ms_median", "proof_bytes", "peak_rss_bytes"} {
		if v, _ := r[k].(float64); v <= 0 {
			t.Errorf("%s = %v", k, r[k])
		}
	}
	if r["merge"] != 2.0 || r["n"] != 4.0 || r["leaf_sigs"] != 2.0 || r["log_inv_rate"] != float64(recursion.DefaultRate(2)) || r["leaf_log_inv_rate"] != 2.0 || r["workers"] != 2.0 {
		t.Fatalf("row: %s", o)
	}
	t.Logf("prove %.0f ms, verify %.0f ms, %v bytes (loaded machine)", r["prove_ms_median"], r["verify_ms_median"], r["proof_bytes"])

	// --nestable: the same point as a no-reveal merge, marked in its row.
	code, o, e = run(t, "bench", "--merge", "2", "--sigs", "2", "--workers", "2", "--repeat", "1", "--in-process", "--json", "--nestable")
	if code != 0 {
		t.Fatalf("bench --nestable: %d %s %s", code, o, e)
	}
	rows = nil
	if err := json.Unmarshal([]byte(o), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("rows: %v %s", err, o)
	}
	r = rows[0]
	for _, k := range []string{"prove_ms_median", "verify_ms_median", "proof_bytes", "peak_rss_bytes"} {
		if v, _ := r[k].(float64); v <= 0 {
			t.Errorf("--nestable: %s = %v", k, r[k])
		}
	}
	if r["merge"] != 2.0 || r["nestable"] != true || r["n"] != 4.0 {
		t.Fatalf("--nestable row: %s", o)
	}
	// Its stages: the children, the layout, the filled segments, the segmented
	// proof's stages and the batch, adding up to no more than the whole.
	st, _ := r["stage_ms_median"].(map[string]any)
	sum := 0.0
	for _, k := range []string{"children", "layout", "fill", "witness", "commit", "zerocheck", "lincheck", "ringswitch", "linear", "open", "batch"} {
		v, _ := st[k].(float64)
		if v <= 0 && k != "witness" {
			t.Errorf("--nestable: stage %s = %v", k, st[k])
		}
		sum += v
	}
	if prove := r["prove_ms_median"].(float64); sum > prove*1.01 || sum < prove*0.9 {
		t.Errorf("--nestable: stages add up to %.1f ms of a %.1f ms prove", sum, prove)
	}
}

// TestRunTreeRefusals: a tree run that one merge cannot take is refused before any
// work, naming the reason.
func TestRunTreeRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		yaml, want string
	}{
		{"flow: xmss-aggregate\nsigners: 129\ntree: {leaf: 1}\n", "make 129 leaves; a run merges at most 128 (16 groups of up to 8 leaves, merged in pairs to depth 5)"},
		{"flow: xmss-aggregate\nsigners: 4\ntree: {leaf: 4}\n", "make one leaf: nothing to merge"},
		{"flow: xmss-aggregate\nsigners: 4\nleaves: 2\ntree: {leaf: 2}\n", "leaves: not used with tree"},
		{"signers: 4\ntree: {leaf: 2}\n", "only for the xmss-aggregate flow"},
		{"flow: xmss-aggregate\nsigners: 4\ntree: {size: 2}\n", "tree.size: unknown key"},
		{"flow: xmss-aggregate\nsigners: 4\ntree: 2\n", "want a mapping such as {leaf: 256}"},
	} {
		p := filepath.Join(dir, "tree.yaml")
		os.WriteFile(p, []byte(c.yaml+"output: "+filepath.Join(dir, "out")+"\n"), 0o644)
		code, _, e := run(t, "run", p)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("run %q: exit %d, %q; want 2 mentioning %q", c.yaml, code, e, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
			t.Errorf("run %q made the output directory", c.yaml)
		}
	}
}

// TestServeMerge: a serve merge job {"id","children","signatures"} writes one merged
// proof that verifies; malformed merge jobs get error results naming the reason,
// and the stream goes on.
func TestServeMerge(t *testing.T) {
	skipMergeProofs(t, "proves two leaves and a merge job")
	dir := t.TempDir()
	sigs, _ := siblingSignatures(t, dir, 3, 2, 41)
	a, b := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	for i, p := range []string{a, b} {
		if code, _, e := run(t, "prove", "--signatures", sigs[i], "--log-inv-rate", "2", "--out", p, "--workers", "2"); code != 0 {
			t.Fatalf("prove %s: %d %s", p, code, e)
		}
	}
	q := func(s string) string { return `"` + s + `"` }
	lines := `{"id":"m","children":[` + q(a) + `,` + q(b) + `],"signatures":` + q(sigs[2]) + `}
{"id":"one","children":[` + q(a) + `]}
{"id":"dup","children":[` + q(a) + `,` + q(a) + `]}
{"id":"raw","children":[` + q(a) + `,` + q(b) + `],"format":"raw"}
{"id":"mixed","children":[` + q(a) + `,` + q(b) + `],"n":4}
{"id":"after","n":8}
`
	out := t.TempDir()
	var ob, eb bytes.Buffer
	code := executeIn([]string{"serve", "--out", out, "--in-flight", "1", "--workers", "2"}, strings.NewReader(lines), &ob, &eb)
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
	if len(res) != 6 || res[0]["ok"] != true || res[0]["n"] != 6.0 || res[0]["flow"] != "xmss-aggregate" || res[5]["ok"] != true {
		t.Fatalf("results %s", o)
	}
	for i, want := range map[int]string{
		1: "a merge takes 2 to 8 children",
		2: "child " + a + ": public key 0",
		3: "a merged proof has one form (wire)",
		4: "a merge job takes \"children\" and optionally \"signatures\", no other input",
	} {
		if msg, _ := res[i]["error"].(string); res[i]["ok"] != false || !strings.Contains(msg, want) {
			t.Errorf("result %d: %v, want an error mentioning %q", i, res[i], want)
		}
	}
	code, vo, _ := run(t, "verify", filepath.Join(out, "m.proof.bin"))
	if code != 0 || !accepted(vo) || !strings.Contains(vo, "merged from 3 children") || !strings.Contains(vo, "6 signatures") {
		t.Fatalf("verify the served merged proof: %d %q", code, vo)
	}
}

// TestRunTreeInput: a tree run over a signatures file cuts it into leaves of 2 and 1
// signers and merges them; the merged proof's keys are the file's, in order.
func TestRunTreeInput(t *testing.T) {
	skipMergeProofs(t, "proves two leaves and a merge")
	dir := t.TempDir()
	sigs, in := signaturesFile(t, dir, "sigs.json", 3, 53)
	cfg := filepath.Join(dir, "tree.yaml")
	out := filepath.Join(dir, "out")
	os.WriteFile(cfg, []byte("flow: xmss-aggregate\ninput: "+filepath.Base(sigs)+"\ntree: {leaf: 2}\nlog_inv_rate: 2\nworkers: 2\noutput: "+out+"\n"), 0o644)
	code, o, e := run(t, "run", cfg)
	if code != 0 || !strings.Contains(o, "2 leaves of up to 2 signatures proved and merged into one proof of all 3 signatures") {
		t.Fatalf("run: %d %s %s", code, o, e)
	}
	mb, _ := os.ReadFile(filepath.Join(out, mergedName+".json"))
	var meta struct {
		Keys     []string `json:"public_keys"`
		Children []struct {
			N int `json:"n"`
		} `json:"children"`
	}
	if err := json.Unmarshal(mb, &meta); err != nil || len(meta.Keys) != 3 || len(meta.Children) != 2 || meta.Children[0].N != 2 || meta.Children[1].N != 1 {
		t.Fatalf("merged PROOF.json: %v %s", err, mb)
	}
	for i, s := range in.Signers {
		if meta.Keys[i] != s.PublicKey.String() {
			t.Fatalf("key %d: %s, want %s", i, meta.Keys[i], s.PublicKey)
		}
	}
	if code, vo, _ := run(t, "verify", filepath.Join(out, mergedName), "--flow", "blake2s-batch"); code != 2 {
		t.Fatalf("verify a merged proof as another flow: %d %q", code, vo)
	}
}

// TestRunTreeDepth2: nine leaves are more than one merge takes: a tree run merges
// them in two groups (4 and 5 leaves) without revealing, then the groups' proofs,
// into one proof of depth 2; verify accepts it.
func TestRunTreeDepth2(t *testing.T) {
	skipMergeProofs(t, "proves nine leaves and a depth-2 tree")
	// The tree's rate is given: at the default (the root at rate 3) the root's proof
	// takes about 11.7 GB against 10.1 GB at rate 2, and CI runs two packages at once.
	out := runTreeChecked(t, 9, "{leaf: 1, log_inv_rate: 2}", 2)
	mb, _ := os.ReadFile(filepath.Join(out, mergedName+".json"))
	var meta struct {
		Label    string `json:"label"`
		Depth    int    `json:"depth"`
		Children []struct {
			N int `json:"n"`
		} `json:"children"`
	}
	if err := json.Unmarshal(mb, &meta); err != nil || meta.Label != recursion.MergeLabelNR || meta.Depth != 2 || len(meta.Children) != 2 || meta.Children[0].N != 4 || meta.Children[1].N != 5 {
		t.Fatalf("merged PROOF.json: %v %s", err, mb)
	}
}

// runTreeChecked runs a tree of signers 1-signer leaves (tree: the YAML mapping) and
// checks that it merged them into one proof of the given depth, which verify accepts;
// it returns the output directory.
func runTreeChecked(t *testing.T, signers int, tree string, depth int) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tree.yaml")
	out := filepath.Join(dir, "out")
	os.WriteFile(cfg, []byte(fmt.Sprintf("flow: xmss-aggregate\nsigners: %d\ntree: %s\nlog_inv_rate: 2\nworkers: 2\noutput: %s\n", signers, tree, out)), 0o644)
	code, o, e := run(t, "run", cfg)
	want := fmt.Sprintf("%d leaves of up to 1 signatures proved and merged into one proof of all %d signatures (depth %d", signers, signers, depth)
	if code != 0 || !strings.Contains(o, want) {
		t.Fatalf("run: %d %s %s", code, o, e)
	}
	t.Log(strings.TrimSpace(o))
	if code, vo, _ := run(t, "verify", filepath.Join(out, mergedName)); code != 0 || !accepted(vo) || !strings.Contains(vo, fmt.Sprintf("(depth %d)", depth)) {
		t.Fatalf("verify: %d %q", code, vo)
	}
	return out
}

// TestTreePlan: a tree run's levels (queue.TreeGroups, whose every count
// TestTreeGroups checks) and rates: the defaults (a depth-2 tree's as before: its
// groups at DefaultRate of the root's fan-in, the root at 3) or the one given.
func TestTreePlan(t *testing.T) {
	for _, tc := range []struct {
		k, rate int
		groups  [][]int
		rates   []int
	}{
		{9, 0, [][]int{{4, 5}, {2}}, []int{2, 3}},
		{16, 0, [][]int{{8, 8}, {2}}, []int{2, 3}},
		{17, 0, [][]int{{4, 4, 4, 5}, {2, 2}, {2}}, []int{2, 3, 3}},
		{17, 2, [][]int{{4, 4, 4, 5}, {2, 2}, {2}}, []int{2, 2, 2}},
	} {
		groups, rates := treePlan(tc.k, tc.rate)
		if !reflect.DeepEqual(groups, tc.groups) || !slices.Equal(rates, tc.rates) {
			t.Errorf("%d leaves at rate %d: groups %v rates %v, want %v %v", tc.k, tc.rate, groups, rates, tc.groups, tc.rates)
		}
	}
}

// TestRunTreeDepth3 (LEANPIPE_RUN_TREE3=1; 7 merges, about two minutes): 17 leaves make
// a tree of depth 3 (4 groups of leaves, 2 merges of those, the root); verify accepts
// its one proof.
func TestRunTreeDepth3(t *testing.T) {
	if os.Getenv("LEANPIPE_RUN_TREE3") == "" {
		t.Skip("set LEANPIPE_RUN_TREE3=1 to prove a depth-3 tree run")
	}
	skipMergeProofs(t, "proves 17 leaves and a depth-3 tree")
	runTreeChecked(t, 17, "{leaf: 1}", 3)
}

// skipMergeProofs skips a test that proves merges under -short and when the kernels
// are capped at the portable level (CI's portable and purego passes; the recursion
// package's merge tests skip there too).
func skipMergeProofs(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip(what)
	}
	if cpu.Detected() == cpu.Portable {
		t.Skip(what + " (kernels capped at the portable level)")
	}
}

// TestMergeJobDefaultRate: a merge without a rate takes recursion.DefaultRate of its
// children (the raw signers counting as one), and 3 once a child is a no-reveal merged
// proof; a given rate stays.
func TestMergeJobDefaultRate(t *testing.T) {
	for _, tc := range []struct {
		kids   int
		merged bool
		sigs   string
		rate   int
		want   int
	}{
		{2, false, "", 0, 2}, {4, false, "", 0, 2}, {4, false, "s.json", 0, 3}, {8, false, "", 0, 3},
		{2, true, "", 0, 3}, {2, true, "", 2, 2}, {5, false, "", 1, 1},
	} {
		j := mergeJob{sigsName: tc.sigs, rate: tc.rate}
		for i := range tc.kids {
			c := &childFile{}
			if tc.merged && i == 1 {
				c.nr = &recursion.MergedNR{}
			}
			j.children = append(j.children, c)
		}
		j.defaultRate()
		if j.rate != tc.want {
			t.Errorf("%d children (merged %v, signatures %q, rate %d): rate %d, want %d", tc.kids, tc.merged, tc.sigs, tc.rate, j.rate, tc.want)
		}
	}
}

// TestMergeJobEstimate: a merge job is budgeted by its children's files: a no-reveal
// merged child (by its magic) makes it a merge of merged proofs, budgeted at
// mergeEstimateNested; leaves, unreadable files and revealing merged proofs at
// mergeEstimate. prove --child refuses a merge of merged proofs under a budget below
// that, before reading the children.
func TestMergeJobEstimate(t *testing.T) {
	dir := t.TempDir()
	leaf, nr, rev := filepath.Join(dir, "leaf.bin"), filepath.Join(dir, "nr.bin"), filepath.Join(dir, "rev.bin")
	os.WriteFile(leaf, []byte("not a merged proof at all"), 0o644)
	os.WriteFile(nr, append([]byte("LPMERGN7"), make([]byte, 64)...), 0o644)
	os.WriteFile(rev, append([]byte("LPMERGE1"), make([]byte, 64)...), 0o644)
	if !recursion.IsMergedNRProof([]byte("LPMERGN7")) {
		t.Fatal("the test's magic is not the no-reveal format's")
	}
	for _, c := range []struct {
		children []string
		want     int64
	}{
		{[]string{leaf, leaf}, mergeEstimate},
		{[]string{leaf, rev}, mergeEstimate},
		{[]string{leaf, filepath.Join(dir, "missing.bin")}, mergeEstimate},
		{[]string{leaf, nr}, mergeEstimateNested},
		{[]string{nr, nr}, mergeEstimateNested},
	} {
		if got := mergeJobEstimate(&stream.Job{Children: c.children}); got != c.want {
			t.Errorf("%v: budgeted %d, want %d", c.children, got, c.want)
		}
	}
	code, _, e := run(t, "prove", "--flow", "xmss-aggregate", "--child", leaf, "--child", nr, "--out", filepath.Join(dir, "m.bin"), "--memory-budget", "8GiB")
	if code != 2 || !strings.Contains(e, "a merge is budgeted at 16.0 GiB, over the memory budget of 8.0 GiB") {
		t.Fatalf("prove --child over its budget: exit %d, %q", code, e)
	}
}

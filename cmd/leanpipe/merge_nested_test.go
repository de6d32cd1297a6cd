package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/recursion"
)

// TestProveNestedMerge builds a tree with prove: two leaves merged with --nestable,
// that merged proof merged with a third leaf and raw signers (depth 2). verify accepts
// both, printing the depth; the depth-2 proof's keys are the leaves' in order; a
// changed byte is rejected; a nestable merge's file is refused with a revealing
// statement label.
func TestProveNestedMerge(t *testing.T) {
	skipMergeProofs(t, "proves three leaves and two no-reveal merges")
	dir := t.TempDir()
	sigs, parts := siblingSignatures(t, dir, 4, 2, 41)
	leaves := make([]string, 3)
	for i := range leaves {
		leaves[i] = filepath.Join(dir, "leaf"+string(rune('a'+i))+".bin")
		if code, _, e := run(t, "prove", "--flow", "xmss-aggregate", "--signatures", sigs[i], "--out", leaves[i], "--workers", "2"); code != 0 {
			t.Fatalf("prove leaf %d: %d %s", i, code, e)
		}
	}
	m1 := filepath.Join(dir, "m1.bin")
	code, o, e := run(t, "prove", "--child", leaves[0], "--child", leaves[1], "--nestable", "--out", m1, "--workers", "2")
	if code != 0 || !strings.Contains(o, "depth 1") {
		t.Fatalf("nestable merge: %d %s %s", code, o, e)
	}
	data, _ := os.ReadFile(m1)
	if !recursion.IsMergedNRProof(data) {
		t.Fatal("the nestable merge's file is not a no-reveal merged proof")
	}
	m2 := filepath.Join(dir, "m2.bin")
	code, o, e = run(t, "prove", "--child", m1, "--child", leaves[2], "--signatures", sigs[3], "--out", m2, "--workers", "2")
	if code != 0 || !strings.Contains(o, "merged 3 children") || !strings.Contains(o, "depth 2") {
		t.Fatalf("depth-2 merge: %d %s %s", code, o, e)
	}
	t.Log(strings.TrimSpace(o))
	for _, p := range []string{m1, m2} {
		if code, o, _ := run(t, "verify", p); code != 0 || !accepted(o) {
			t.Fatalf("verify %s: %d %q", p, code, o)
		}
	}
	if code, o, _ := run(t, "verify", m2); !strings.Contains(o, "8 signatures") || !strings.Contains(o, "merged from 3 children") || !strings.Contains(o, "(depth 2)") {
		t.Fatalf("verify m2 prints %q (%d)", o, code)
	}
	mb, _ := os.ReadFile(m2 + ".json")
	var meta struct {
		Label string   `json:"label"`
		Depth int      `json:"depth"`
		Keys  []string `json:"public_keys"`
	}
	if err := json.Unmarshal(mb, &meta); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range parts {
		for _, s := range p.Signers {
			want = append(want, s.PublicKey.String())
		}
	}
	if meta.Label != recursion.MergeLabelNR || meta.Depth != 2 || strings.Join(meta.Keys, ",") != strings.Join(want, ",") {
		t.Fatalf("PROOF.json: %s", mb)
	}
	bad := filepath.Join(dir, "bad.bin")
	copyProof(t, m2, bad, func(d []byte) { d[len(d)/2] ^= 1 })
	if code, o, _ := run(t, "verify", bad); code == 0 || accepted(o) {
		t.Fatalf("verify of a changed depth-2 proof: %d %q", code, o)
	}
	relabel := filepath.Join(dir, "relabel.bin")
	copyProof(t, m1, relabel, func([]byte) {})
	rb, _ := os.ReadFile(relabel + ".json")
	os.WriteFile(relabel+".json", []byte(strings.Replace(string(rb), recursion.MergeLabelNR, recursion.MergeLabel, 1)), 0o644)
	if code, _, e := run(t, "prove", "--child", relabel, "--child", leaves[2], "--out", filepath.Join(dir, "x.bin")); code != 2 || !strings.Contains(e, "is a merged proof") {
		t.Fatalf("a no-reveal file under a revealing label: %d %q", code, e)
	}
}

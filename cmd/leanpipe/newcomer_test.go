package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/xmss"
)

// TestNewcomerList runs testdata/newcomer.txt: each bad input, run by bash as a user
// would type it, exits with the documented status, names the problem, and leaves no
// file behind.
func TestNewcomerList(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, err := os.ReadFile(filepath.Join("testdata", "newcomer.txt"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "leanpipe")); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if code, _, e := run(t, "prove", "--n", "8", "--out", filepath.Join(work, "ok.proof.bin")); code != 0 {
		t.Fatalf("prove: %d %s", code, e)
	}
	good, _ := os.ReadFile(filepath.Join(work, "ok.proof.bin"))
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 1
	os.WriteFile(filepath.Join(work, "bad.proof.bin"), bad, 0o644)
	meta, _ := os.ReadFile(filepath.Join(work, "ok.proof.bin.json"))
	os.WriteFile(filepath.Join(work, "bad.proof.bin.json"), meta, 0o644)
	os.WriteFile(filepath.Join(work, "bare.proof.bin"), good, 0o644)
	_, pk, err := xmss.GenerateKey([xmss.SeedSize]byte{1}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "stmt.json"), []byte(`{"message":"`+strings.Repeat("ab", 32)+`","epoch":0,"public_keys":["`+pk.String()+`"]}`), 0o644)
	os.WriteFile(filepath.Join(work, "negepoch.json"), []byte(`{"message":"`+strings.Repeat("ab", 32)+`","epoch":-1,"public_keys":["`+pk.String()+`"]}`), 0o644)
	os.WriteFile(filepath.Join(work, "upper.json"), []byte(`{"message":"`+strings.Repeat("AB", 32)+`","epoch":0,"public_keys":["`+pk.String()+`"]}`), 0o644)
	os.WriteFile(filepath.Join(work, "empty.yaml"), nil, 0o644)
	os.WriteFile(filepath.Join(work, "file"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(work, "jobs.jsonl"), []byte(`{"id":"a","n":8}`+"\n"), 0o644)
	listing := func() []string {
		var names []string
		filepath.WalkDir(work, func(p string, _ os.DirEntry, _ error) error {
			names = append(names, p)
			return nil
		})
		return names
	}
	before := listing()
	n := 0
	for no, line := range strings.Split(string(script), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " | ", 3)
		if len(parts) != 3 {
			t.Fatalf("newcomer.txt:%d: want exit | message | command", no+1)
		}
		want, _ := strconv.Atoi(strings.TrimSpace(parts[0]))
		c := exec.Command("bash", "-c", parts[2])
		c.Dir = work
		c.Env = append(os.Environ(), cliEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var o, e bytes.Buffer
		c.Stdout, c.Stderr = &o, &e
		c.Run()
		code := c.ProcessState.ExitCode()
		if code != want || !strings.Contains(e.String()+o.String(), parts[1]) {
			t.Errorf("newcomer.txt:%d: %s: exit %d, want %d; output %q, want it to contain %q", no+1, parts[2], code, want, e.String()+o.String(), parts[1])
		}
		if after := listing(); !slices.Equal(after, before) {
			t.Fatalf("newcomer.txt:%d: %s left files: %v", no+1, parts[2], after)
		}
		n++
	}
	t.Logf("%d bad inputs refused as documented", n)
}

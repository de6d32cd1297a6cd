package vectors

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without LEANPIPE_VECTORS the vectors come from the repository's own copy, so a clone
// without ../shared beside it finds them.
func TestDirInRepo(t *testing.T) {
	t.Setenv("LEANPIPE_VECTORS", "")
	d, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "testdata", "vectors"); d != want {
		t.Fatalf("Dir() = %s, want %s", d, want)
	}
	for _, name := range []string{"README.md", "leanvmb-kat.json", "xmss/xmss-kat.json", "reference-proofs/SHA256SUMS"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			t.Errorf("in-repo vectors: %v", err)
		}
	}
}

// LEANPIPE_VECTORS overrides the in-repo copy; a value that is not a folder is an error.
func TestDirOverride(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("LEANPIPE_VECTORS", tmp)
	d, err := Dir()
	if err != nil || d != tmp {
		t.Fatalf("Dir() = %q, %v; want %q", d, err, tmp)
	}
	missing := filepath.Join(tmp, "absent")
	t.Setenv("LEANPIPE_VECTORS", missing)
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), "LEANPIPE_VECTORS") {
		t.Fatalf("Dir() with a missing folder: err = %v, want one naming LEANPIPE_VECTORS", err)
	}
}

// The reference proofs match their SHA256SUMS, wherever the vectors are read from.
func TestReferenceProofSums(t *testing.T) {
	sums := ReadFile(t, "reference-proofs/SHA256SUMS")
	sc := bufio.NewScanner(bytes.NewReader(sums))
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("SHA256SUMS: bad line %q", line)
		}
		b := ReadFile(t, "reference-proofs/"+strings.TrimPrefix(f[1], "*"))
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != f[0] {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", f[1], got, f[0])
		}
		n++
	}
	if n == 0 {
		t.Fatal("SHA256SUMS lists no file")
	}
}

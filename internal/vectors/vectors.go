// Package vectors locates and loads the shared known-answer vectors and reference proofs.
//
// The vectors are read from $LEANPIPE_VECTORS when set, otherwise from the copy kept in
// the repository at testdata/vectors (relative to the module root), so a fresh clone
// tests itself. That copy is byte-identical to the shared vectors folder; .ci/run
// checks it whenever ../shared/vectors exists beside the clone.
package vectors

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// InRepo is the vectors folder's path relative to the module root.
const InRepo = "testdata/vectors"

// Dir returns the vectors folder, or an error naming where it looked: $LEANPIPE_VECTORS
// when set, otherwise the repository's testdata/vectors.
func Dir() (string, error) {
	if d := os.Getenv("LEANPIPE_VECTORS"); d != "" {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return "", fmt.Errorf("vectors: LEANPIPE_VECTORS=%q is not a directory", d)
		}
		return d, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	d := filepath.Join(root, filepath.FromSlash(InRepo))
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return "", fmt.Errorf("vectors: %s not found; set LEANPIPE_VECTORS to a vectors folder", d)
	}
	return d, nil
}

func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("vectors: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("vectors: no go.mod above %s", wd)
		}
	}
}

// Path returns the path of a file inside the vectors folder, failing the test if
// the folder is missing. It never skips.
func Path(t testing.TB, name string) string {
	t.Helper()
	d, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("vectors: %v", err)
	}
	return p
}

// ReadFile reads a file of the vectors folder, failing the test if it is absent.
func ReadFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	katOnce sync.Once
	katData map[string]json.RawMessage
	katErr  error
)

// KAT decodes the section key of leanvmb-kat.json into out, failing the test if the
// file or the section is missing.
func KAT(t testing.TB, key string, out any) {
	t.Helper()
	katOnce.Do(func() {
		d, err := Dir()
		if err != nil {
			katErr = err
			return
		}
		b, err := os.ReadFile(filepath.Join(d, "leanvmb-kat.json"))
		if err != nil {
			katErr = fmt.Errorf("vectors: %w", err)
			return
		}
		katErr = json.Unmarshal(b, &katData)
	})
	if katErr != nil {
		t.Fatal(katErr)
	}
	raw, ok := katData[key]
	if !ok {
		t.Fatalf("vectors: leanvmb-kat.json has no section %q", key)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("vectors: section %q: %v", key, err)
	}
}

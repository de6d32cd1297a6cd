package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.proof.bin")
	for _, s := range []string{"first", "second"} {
		if err := Write(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if string(b) != s {
			t.Fatalf("got %q", b)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left files behind: %v", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	ents, _ = os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("failed write left files: %v", ents)
	}
}

// Check refuses what Write would fail on, naming the path given; Write's own errors
// never name the temporary file.
func TestCheckNamesThePath(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "nodir", "x.bin"), "nodir does not exist"},
		{dir, "is a directory"},
		{filepath.Join(dir, "file", "x"), "is not a directory"},
	}
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct{ path, want string }{filepath.Join(ro, "x"), "not writable"})
	}
	for _, c := range cases {
		err := Check(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%s) = %v, want %q", c.path, err, c.want)
		}
		werr := Write(c.path, []byte("x"))
		if werr == nil || strings.Contains(werr.Error(), ".tmp-") || !strings.Contains(werr.Error(), c.path) {
			t.Errorf("Write(%s) = %v, want an error naming the path and not the temporary file", c.path, werr)
		}
	}
	if err := Check(filepath.Join(dir, "new.bin")); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("Check left files: %v", ents)
	}
}

// WriteMode gives the file the mode asked for, also when it replaces a file that was
// readable by others.
func TestWriteModeSecret(t *testing.T) {
	p := filepath.Join(t.TempDir(), "key")
	if err := Write(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := WriteMode(p, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); string(b) != "secret" {
		t.Fatalf("got %q", b)
	}
}

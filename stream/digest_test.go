package stream

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamInputDigest: a job's input_sha256 must be the digest of the file it
// loads (a file changed since the job was made is refused, naming both digests), is
// checked for form, and needs an input file.
func TestStreamInputDigest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.blocks.bin")
	data := make([]byte, 8*112)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	good := InputDigest(data)
	j, err := ParseJob([]byte(`{"id":"a","blocks":"`+path+`","input_sha256":"`+good+`"}`), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.load(1<<20, 8); err != nil {
		t.Fatalf("matching digest: %v", err)
	}
	data[0] ^= 1
	os.WriteFile(path, data, 0o644)
	if _, err := j.load(1<<20, 8); !errors.Is(err, ErrJob) || !strings.Contains(err.Error(), "changed since the job was made") || !strings.Contains(err.Error(), good) {
		t.Fatalf("changed file: %v", err)
	}
	for _, s := range []string{
		`{"id":"a","n":8,"input_sha256":"` + good + `"}`,
		`{"id":"a","blocks":"x","input_sha256":"` + strings.ToUpper(good) + `"}`,
		`{"id":"a","blocks":"x","input_sha256":"abc"}`,
	} {
		if _, err := ParseJob([]byte(s), "", ""); !errors.Is(err, ErrJob) {
			t.Errorf("%s: %v, want ErrJob", s, err)
		}
	}
}

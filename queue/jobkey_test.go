package queue

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leanpipe/leanpipe/stream"
)

// TestJobKeyContent: a job's key is its input's contents, not its path: two
// signatures files with the same contents give one key, the same path with other
// contents another; "signatures" and "input" naming one file are the same job; the
// digest Submit records is the file's SHA-256.
func TestJobKeyContent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := func(s string) string {
		j, err := stream.ParseJob([]byte(s), "", "")
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		digestInput(&j, 0)
		return jobKey(j)
	}
	a := write("a.json", "contents one")
	b := write("b.json", "contents one")
	ka, kb := key(`{"id":"x","signatures":"`+a+`"}`), key(`{"id":"x","signatures":"`+b+`"}`)
	if ka != kb {
		t.Fatal("two files with the same contents give two keys")
	}
	if in := key(`{"id":"x","flow":"xmss-aggregate","input":"` + a + `"}`); in != ka {
		t.Fatal("\"signatures\" and \"input\" naming one file give different keys")
	}
	write("a.json", "contents two")
	if key(`{"id":"x","signatures":"`+a+`"}`) == ka {
		t.Fatal("the same path with other contents keeps its key")
	}
	if key(`{"id":"x","n":8}`) == key(`{"id":"x","n":16}`) {
		t.Fatal("generated jobs of 8 and 16 instances share a key")
	}
	j, _ := stream.ParseJob([]byte(`{"id":"x","signatures":"`+a+`"}`), "", "")
	digestInput(&j, 0)
	if j.InputSHA256 != stream.InputDigest([]byte("contents two")) {
		t.Fatalf("digest %s", j.InputSHA256)
	}
}

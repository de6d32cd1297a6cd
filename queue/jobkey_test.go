package queue

import (
	"testing"

	"github.com/leanpipe/leanpipe/stream"
)

// TestJobKeySignatures: two xmss-aggregate jobs on different signatures files have
// different keys (a redelivered job is never answered with another file's proof);
// "signatures" and "input" naming one file are the same job.
func TestJobKeySignatures(t *testing.T) {
	parse := func(s string) stream.Job {
		j, err := stream.ParseJob([]byte(s), "", "")
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return j
	}
	a := jobKey(parse(`{"id":"x","signatures":"/d/a.json"}`))
	b := jobKey(parse(`{"id":"x","signatures":"/d/b.json"}`))
	in := jobKey(parse(`{"id":"x","flow":"xmss-aggregate","input":"/d/a.json"}`))
	if a == b {
		t.Fatal("jobs on two signatures files share a key")
	}
	if a != in {
		t.Fatal("\"signatures\" and \"input\" naming one file give different keys")
	}
}

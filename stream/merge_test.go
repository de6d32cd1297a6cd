package stream

import (
	"errors"
	"strings"
	"testing"
)

// TestParseMergeJob: merge jobs parse with their defaults (flow xmss-aggregate,
// rate 2, wire, children relative to the base) and malformed ones are ErrJob.
func TestParseMergeJob(t *testing.T) {
	j, err := ParseJob([]byte(`{"id":"m","children":["a.bin","/abs/b.bin"],"signatures":"s.json"}`), "/base", "")
	if err != nil {
		t.Fatal(err)
	}
	if !j.isMerge() || j.Flow != "xmss-aggregate" || j.LogInvRate != 0 || j.Format != "wire" ||
		j.Children[0] != "/base/a.bin" || j.Children[1] != "/abs/b.bin" || j.Signatures != "/base/s.json" {
		t.Fatalf("%+v", j)
	}
	for _, c := range []struct{ job, want string }{
		{`{"id":"m","children":[]}`, "a merge takes 2 to 8 children"},
		{`{"id":"m","children":["a"]}`, "a merge takes 2 to 8 children"},
		{`{"id":"m","children":["a","b","c","d","e","f","g","h"],"signatures":"s"}`, "more needs a tree: merge groups of them with \"nestable\", then merge those"},
		{`{"id":"m","children":["a",""]}`, "children[1] is empty"},
		{`{"id":"m","children":["a","b"],"flow":"blake2s-batch"}`, "has no merge"},
		{`{"id":"m","children":["a","b"],"input":"x"}`, "no other input"},
		{`{"id":"m","children":["a","b"],"n":3}`, "no other input"},
		{`{"id":"m","children":["a","b"],"formats":["wire","raw"]}`, "one form"},
		{`{"id":"m","children":["a","b"],"log_inv_rate":5}`, "log_inv_rate 5"},
	} {
		_, err := ParseJob([]byte(c.job), "", "")
		if !errors.Is(err, ErrJob) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrJob mentioning %q", c.job, err, c.want)
		}
	}
}

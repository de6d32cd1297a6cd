package stream

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
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

// TestMergeEstimateJob: a Merger's EstimateJob budgets each merge job: one over the
// memory budget is refused (ErrLimit, naming its estimate) and never merged; one under
// it is merged.
func TestMergeEstimateJob(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var merged []string
	m := &Merger{
		Estimate: 1 << 20,
		EstimateJob: func(j *Job) int64 {
			if j.ID == "big" {
				return 8 << 30
			}
			return 1 << 20
		},
		Merge: func(ctx context.Context, j *Job) (flows.Meta, []byte, error) {
			mu.Lock()
			merged = append(merged, j.ID)
			mu.Unlock()
			return flows.Meta{Flow: "xmss-aggregate", N: 2}, []byte("merged"), nil
		},
	}
	jobs := make(chan Job, 2)
	for _, id := range []string{"big", "small"} {
		j, err := ParseJob([]byte(`{"id":"`+id+`","children":["a.bin","b.bin"]}`), "/base", "")
		if err != nil {
			t.Fatal(err)
		}
		jobs <- j
	}
	close(jobs)
	p := NewProver(ctx, &probe{eng: newEngine(t)}, Options{InFlight: 2, MemoryBudget: 4 << 30, Merger: m})
	got, _ := collect(NewChanSource(ctx, jobs), p, nil)
	if len(got) != 2 {
		t.Fatalf("%d results: %+v", len(got), got)
	}
	for _, r := range got {
		switch r.ID {
		case "big":
			if r.OK || !errors.Is(r.Err, ErrLimit) || !strings.Contains(r.Error, "a merge needs an estimated 8.0 GiB, over the memory budget of 4.0 GiB") {
				t.Errorf("big: %+v", r)
			}
		case "small":
			if !r.OK {
				t.Errorf("small: %+v", r)
			}
		}
	}
	if len(merged) != 1 || merged[0] != "small" {
		t.Fatalf("merged %v, want the small job only", merged)
	}
}

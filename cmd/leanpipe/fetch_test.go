package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/queue"
)

// lyingEngine proves 8 other compressions whatever it is asked: a worker that
// returns a valid proof of another statement.
type lyingEngine struct{ e *flows.Engine }

func (l lyingEngine) Prove(ctx context.Context, req flows.Request) (flows.Proved, error) {
	req.Input = flows.Blocks(flows.Generate(8, 99))
	return l.e.Prove(ctx, req)
}

// TestSubmitFetchRefusesAnotherStatement: a worker answers job x (16 compressions)
// with a valid proof of 8; submit --fetch refuses it with exit status 1, naming the
// job and the field, and writes no proof file.
func TestSubmitFetchRefusesAnotherStatement(t *testing.T) {
	url := embeddedNATS(t, nil)
	nc, js, err := queue.Connect(queue.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	eng, err := flows.NewEngine(flows.EngineOptions{Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	w := queue.NewWorker(js, lyingEngine{eng}, queue.Options{URL: url, Worker: "liar"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	defer func() { cancel(); <-done }()

	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.jsonl")
	os.WriteFile(jobs, []byte(`{"id":"x","n":16}`+"\n"), 0o644)
	fetch := filepath.Join(dir, "fetched")
	code, o, e := run(t, "submit", "--nats", url, "--fetch", fetch, "--timeout", "60s", jobs)
	if code != 1 || !strings.Contains(o, `"id":"x"`) || !strings.Contains(o, `"ok":false`) || !strings.Contains(o, "job x") ||
		!strings.Contains(o, "n (8, want 16) differs") || !strings.Contains(o, `"worker":"liar"`) || !strings.Contains(e, "1 of 1 jobs failed") {
		t.Fatalf("submit --fetch: exit %d\n%s\n%s", code, o, e)
	}
	if ents, _ := os.ReadDir(fetch); len(ents) != 0 {
		t.Fatalf("the refused proof was written: %v", ents)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/promtest"
	"github.com/leanpipe/leanpipe/queue"
)

// TestNATSWorkerObservability runs one `serve --nats` worker with --metrics-addr and
// --trace against an embedded JetStream server, submits jobs, and checks the
// worker's job counters, its readiness after SIGTERM (while a proof runs) and its
// trace file.
func TestNATSWorkerObservability(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and a worker process")
	}
	url := embeddedNATS(t, nil)
	nc, js, err := queue.Connect(queue.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queue.Ensure(context.Background(), js, queue.Options{URL: url}); err != nil {
		t.Fatal(err)
	}
	nc.Close()

	dir := t.TempDir()
	tracePath, metricsPath := filepath.Join(dir, "worker.trace.json"), filepath.Join(dir, "worker.metrics.json")
	cmd := cliCommand(t, "", "serve", "--nats", url, "--workers", "2", "--in-flight", "2", "--name", "w",
		"--metrics-addr", "127.0.0.1:0", "--trace", tracePath, "--metrics", metricsPath, "--log-level", "info")
	se, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	errs := readLines(se)
	var addr string
	errs.waitFor(t, "metrics address in the log", func(l string) bool {
		var rec struct {
			Addr string `json:"metrics_addr"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Addr != "" {
			addr = rec.Addr
			return true
		}
		return false
	})
	base := "http://" + addr

	const n = 3
	var jobs strings.Builder
	var names []string
	for i := range n {
		fmt.Fprintf(&jobs, `{"id":"q%d","n":%d}`+"\n", i, 100+i)
		names = append(names, fmt.Sprintf("job q%d", i))
	}
	jobsFile := filepath.Join(dir, "jobs.jsonl")
	os.WriteFile(jobsFile, []byte(jobs.String()), 0o644)
	var o, e strings.Builder
	if code := executeIn([]string{"submit", "--nats", url, "--timeout", "90s", jobsFile}, strings.NewReader(""), &o, &e); code != 0 {
		t.Fatalf("submit: exit %d: %s %s; worker: %q", code, o.String(), e.String(), errs.snapshot())
	}
	f, err := promtest.Scrape(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := f.Value("leanpipe_jobs_total", "flow", flows.DefaultName, "result", "ok"); err != nil || v != n {
		t.Fatalf("jobs_total ok = %v (%v), want %d", v, err, n)
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("readyz while working: %v %v", resp, err)
	}
	resp.Body.Close()

	// Readiness after SIGTERM is "503 while running proofs finish": an idle worker
	// has no such time (it stops pulling, closes the endpoint and exits within a
	// millisecond or so), so the worker is given a proof that runs a while (about
	// 1.5 s on two cores) and SIGTERM is sent once it is in flight. The worker logs
	// "shutting down" only after it has withdrawn its readiness, and it cannot close
	// the endpoint before the proof ends, so the readyz read right after that line
	// must answer 503, with no polling for a short window.
	longJobs := filepath.Join(dir, "long.jsonl")
	os.WriteFile(longJobs, []byte(`{"id":"long","n":32768}`+"\n"), 0o644)
	o.Reset()
	e.Reset()
	if code := executeIn([]string{"submit", "--nats", url, "--no-wait", longJobs}, strings.NewReader(""), &o, &e); code != 0 {
		t.Fatalf("submit --no-wait: exit %d: %s %s", code, o.String(), e.String())
	}
	names = append(names, "job long")
	for deadline := time.Now().Add(60 * time.Second); ; {
		f, err := promtest.Scrape(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := f.Value("leanpipe_jobs_in_flight"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the long proof never showed in flight; worker: %q", errs.snapshot())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	errs.waitFor(t, "the shutdown line in the log", func(l string) bool { return strings.Contains(l, "shutting down") })
	get := func(path string) (int, error) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get("/readyz"); err != nil || code != 503 {
		t.Errorf("readyz after the shutdown line, while the long proof runs: %d %v; want 503", code, err)
	}
	if code, err := get("/healthz"); err != nil || code != 200 {
		t.Errorf("healthz after the shutdown line, while the long proof runs: %d %v; want 200", code, err)
	}
	<-errs.eof
	if err := cmd.Wait(); err != nil {
		t.Fatalf("worker after SIGTERM: %v; stderr %q", err, errs.snapshot())
	}
	// The proof running at SIGTERM finished in its grace: stored, published, acked.
	var m queue.Metrics
	if b, err := os.ReadFile(metricsPath); err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("worker metrics %s: %v %s", metricsPath, err, b)
	}
	if m.Acked != n+1 || m.Published != n+1 || m.Nacked != 0 || m.Terminated != 0 {
		t.Errorf("worker metrics: %d acked, %d published, %d nacked, %d terminated; want %d, %d, 0, 0", m.Acked, m.Published, m.Nacked, m.Terminated, n+1, n+1)
	}
	checkTraceFile(t, tracePath, names)
}

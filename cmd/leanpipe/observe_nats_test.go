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

	"github.com/nats-io/nats-server/v2/server"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/promtest"
	"github.com/leanpipe/leanpipe/queue"
)

// TestNATSWorkerObservability runs one `serve --nats` worker with --metrics-addr and
// --trace against an embedded JetStream server, submits jobs, and checks the
// worker's job counters, its readiness after SIGTERM and its trace file.
func TestNATSWorkerObservability(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and a worker process")
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	defer s.Shutdown()
	url := s.ClientURL()
	nc, js, err := queue.Connect(queue.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queue.Ensure(context.Background(), js, queue.Options{URL: url}); err != nil {
		t.Fatal(err)
	}
	nc.Close()

	dir := t.TempDir()
	tracePath := filepath.Join(dir, "worker.trace.json")
	cmd := cliCommand(t, "", "serve", "--nats", url, "--workers", "2", "--in-flight", "2", "--name", "w",
		"--metrics-addr", "127.0.0.1:0", "--trace", tracePath, "--log-level", "info")
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

	cmd.Process.Signal(syscall.SIGTERM)
	sawNotReady := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			break // exited
		}
		resp.Body.Close()
		if resp.StatusCode == 503 {
			sawNotReady = true
			break
		}
		time.Sleep(time.Millisecond)
	}
	<-errs.eof
	if err := cmd.Wait(); err != nil {
		t.Fatalf("worker after SIGTERM: %v; stderr %q", err, errs.snapshot())
	}
	if !sawNotReady {
		t.Error("readyz never answered 503 after SIGTERM")
	}
	checkTraceFile(t, tracePath, names)
}

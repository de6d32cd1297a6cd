package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/queue"
)

// child starts `leanpipe args…` in its own process (see cliCommand).
func child(t *testing.T, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	cmd := cliCommand(t, "", args...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// Two `serve --nats` worker processes and `submit --fetch`: every job gets exactly one
// ok result, and every fetched proof verifies with `leanpipe verify`; a worker killed
// with SIGKILL mid-run loses no job; SIGTERM stops the other cleanly.
func TestNATSWorkersAndSubmit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and worker processes")
	}
	url := embeddedNATS(t, nil)
	// Create the shared objects once, as an operator (or the first submit) would.
	nc, js, err := queue.Connect(queue.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queue.Ensure(context.Background(), js, queue.Options{URL: url, AckWait: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	nc.Close()

	dir := t.TempDir()
	var jobs strings.Builder
	const n = 8
	for i := range n {
		// 2^11-slot proofs: cheap enough that one worker does all of them within the
		// timeout at the portable level on a loaded machine (CI's second pass).
		fmt.Fprintf(&jobs, `{"id":"j%d","n":%d,"seed":%d}`+"\n", i, 1100+100*i, i+1)
	}
	jobsFile := filepath.Join(dir, "jobs.jsonl")
	os.WriteFile(jobsFile, []byte(jobs.String()), 0o644)

	var e1, e2 bytes.Buffer
	common := []string{"serve", "--nats", url, "--workers", "1", "--in-flight", "1", "--ack-wait", "2s", "--grace", "1s"}
	w1 := child(t, &e1, append(common, "--name", "w1")...)
	w2 := child(t, &e2, append(common, "--name", "w2")...)
	defer w1.Process.Kill()
	defer w2.Process.Kill()
	// Kill w1 once it has started proving (its jobs must be redelivered to w2).
	go func() {
		time.Sleep(150 * time.Millisecond)
		w1.Process.Signal(syscall.SIGKILL)
	}()

	fetch := filepath.Join(dir, "fetched")
	os.Mkdir(fetch, 0o755)
	var o, e bytes.Buffer
	code := executeIn([]string{"submit", "--nats", url, "--ack-wait", "2s", "--fetch", fetch, "--timeout", "180s", jobsFile}, strings.NewReader(""), &o, &e)
	if code != 0 {
		t.Fatalf("submit: exit %d: %s\nstdout %s\nw1: %s\nw2: %s", code, e.String(), o.String(), e1.String(), e2.String())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != n {
		t.Fatalf("%d result lines for %d jobs: %s", len(lines), n, o.String())
	}
	seen := map[string]bool{}
	byWorker := map[string]int{}
	redelivered := 0
	for _, l := range lines {
		var r struct {
			ID, Worker string
			OK         bool
			Deliveries int
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || !r.OK || r.Worker == "" || r.Deliveries < 1 || seen[r.ID] {
			t.Fatalf("result %s (%v)", l, err)
		}
		seen[r.ID] = true
		byWorker[r.Worker]++
		if r.Deliveries > 1 {
			redelivered++
		}
		if code, out, _ := run(t, "verify", filepath.Join(fetch, r.ID+".proof.bin")); code != 0 || !strings.HasPrefix(out, "accepted") {
			t.Fatalf("verify %s: %d %q", r.ID, code, out)
		}
	}
	t.Logf("results by worker %v, %d redelivered", byWorker, redelivered)
	w1.Wait()
	w2.Process.Signal(syscall.SIGTERM)
	if err := w2.Wait(); err != nil {
		t.Fatalf("w2 after SIGTERM: %v\n%s", err, e2.String())
	}
}

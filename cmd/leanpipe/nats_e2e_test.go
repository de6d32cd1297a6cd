package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/leanpipe/leanpipe/internal/promtest"
	"github.com/leanpipe/leanpipe/queue"
)

// natsServerEnv names a nats-server binary (Debian's is /usr/sbin/nats-server) for the
// tests that run a real server process; .ci/run sets it.
const natsServerEnv = "LEANPIPE_NATS_SERVER"

// natsServerProcess picks a free loopback port for `nats-server -js` from
// $LEANPIPE_NATS_SERVER and returns its URL and the function that starts it (its
// store in a temporary directory) and waits until it listens; the test's cleanup
// stops it. The test is skipped when the variable is unset.
func natsServerProcess(t *testing.T) (string, func()) {
	t.Helper()
	bin := os.Getenv(natsServerEnv)
	if bin == "" {
		t.Skipf("%s is unset: set it to a nats-server binary (e.g. /usr/sbin/nats-server, Debian's nats-server package) to run this test against a real server process", natsServerEnv)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	store := t.TempDir()
	return "nats://" + addr, func() {
		t.Helper()
		var log syncBuf
		cmd := exec.Command(bin, "-js", "-a", "127.0.0.1", "-p", fmt.Sprint(port), "-sd", store)
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			_ = cmd.Wait()
			if t.Failed() {
				t.Logf("%s output:\n%s", bin, log.String())
			}
		})
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%s does not listen on %s:\n%s", bin, addr, log.String())
			}
		}
	}
}

// metricsAddr is the metrics_addr a serve process logged.
func metricsAddr(l string) string {
	var rec struct {
		Addr string `json:"metrics_addr"`
	}
	if json.Unmarshal([]byte(l), &rec) == nil {
		return rec.Addr
	}
	return ""
}

// syncBuf is a bytes.Buffer safe for a child's concurrent writes and the test's reads.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestNATSEndToEndProcesses is the fleet with nothing in-process: a real
// `nats-server -js` process, two `leanpipe serve --nats` worker processes started
// before the server (so before any JetStream object exists), `leanpipe submit
// --fetch` in its own process,
// one worker SIGKILLed while it is proving (seen on its /metrics); every job ends
// with exactly one result (one line from submit, one message in the results
// stream), the killed worker's job is redelivered, and every fetched proof passes
// `leanpipe verify` run as a process.
func TestNATSEndToEndProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a nats-server process and leanpipe worker processes")
	}
	url, startServer := natsServerProcess(t)
	dir := t.TempDir()

	// Workers first: they create the streams, consumer and bucket (or find them).
	common := []string{"serve", "--nats", url, "--workers", "1", "--in-flight", "1", "--ack-wait", "2s", "--grace", "1s", "--log-level", "info"}
	w1 := cliCommand(t, "", append(common, "--name", "w1", "--metrics-addr", "127.0.0.1:0")...)
	w1err, err := w1.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w1.Start(); err != nil {
		t.Fatal(err)
	}
	defer w1.Process.Kill()
	w1lines := readLines(w1err)
	w2 := cliCommand(t, "", append(common, "--name", "w2", "--metrics-addr", "127.0.0.1:0")...)
	w2err, err := w2.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	defer w2.Process.Kill()
	w2lines := readLines(w2err)
	var addr, addr2 string
	w1lines.waitFor(t, "w1's metrics address", func(l string) bool { addr = metricsAddr(l); return addr != "" })
	w2lines.waitFor(t, "w2's metrics address", func(l string) bool { addr2 = metricsAddr(l); return addr2 != "" })
	w1lines.waitFor(t, "w1 waiting for the server", func(l string) bool { return strings.Contains(l, "not reachable yet") })
	startServer()

	const n = 8
	var jobs strings.Builder
	for i := range n {
		fmt.Fprintf(&jobs, `{"id":"e%d","n":%d,"seed":%d}`+"\n", i, 12000+500*i, i+1)
	}
	jobsFile := filepath.Join(dir, "jobs.jsonl")
	if err := os.WriteFile(jobsFile, []byte(jobs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fetch := filepath.Join(dir, "fetched")
	sub := cliCommand(t, "", "submit", "--nats", url, "--ack-wait", "2s", "--fetch", fetch, "--timeout", "50s", jobsFile)
	var so, se bytes.Buffer
	sub.Stdout, sub.Stderr = &so, &se
	if err := sub.Start(); err != nil {
		t.Fatal(err)
	}
	defer sub.Process.Kill()

	// SIGKILL w1 while it is proving: its job is neither stored nor acked.
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := promtest.Scrape("http://" + addr + "/metrics")
		if err == nil {
			if v, err := f.Value("leanpipe_jobs_in_flight"); err == nil && v >= 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("w1 never started a proof; its log: %q\nw2: %s\nsubmit: %s", w1lines.snapshot(), strings.Join(w2lines.snapshot(), "\n"), se.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	<-w1lines.eof

	err = sub.Wait()
	if err != nil {
		t.Fatalf("submit: %v\nstdout %s\nstderr %s\nw1 %q\nw2 %s", err, so.String(), se.String(), w1lines.snapshot(), strings.Join(w2lines.snapshot(), "\n"))
	}
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	if len(lines) != n {
		t.Fatalf("%d result lines for %d jobs:\n%s", len(lines), n, so.String())
	}
	seen := map[string]bool{}
	byWorker := map[string]int{}
	redelivered := 0
	for _, l := range lines {
		var r struct {
			ID, Worker, Proof string
			OK                bool
			Deliveries        int
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || !r.OK || r.Worker == "" || r.Deliveries < 1 || seen[r.ID] {
			t.Fatalf("result %s (%v)", l, err)
		}
		seen[r.ID] = true
		byWorker[r.Worker]++
		if r.Deliveries > 1 {
			redelivered++
			if r.Worker != "w2" {
				t.Errorf("job %s redelivered after w1 was killed but answered by %s", r.ID, r.Worker)
			}
		}
		if want := filepath.Join(fetch, r.ID+".proof.bin"); r.Proof != want {
			t.Errorf("job %s: proof %q, want %q", r.ID, r.Proof, want)
		}
		c := cliCommand(t, "", "verify", r.Proof)
		out, err := c.Output()
		if err != nil || !accepted(string(out)) {
			t.Fatalf("leanpipe verify %s: %v %q", r.Proof, err, out)
		}
	}
	if len(seen) != n {
		t.Fatalf("results for %d distinct jobs, want %d", len(seen), n)
	}
	if redelivered == 0 {
		t.Errorf("no job was redelivered, although w1 was killed while proving")
	}

	// Exactly one result message per job in the results stream.
	nc, js, err := queue.Connect(queue.Options{URL: url, Worker: "check"})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, queue.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(queue.ResultsSubject+">"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.State.Subjects) != n {
		t.Errorf("results stream has %d subjects, want %d: %v", len(info.State.Subjects), n, info.State.Subjects)
	}
	for subj, count := range info.State.Subjects {
		if count != 1 {
			t.Errorf("%s has %d result messages, want 1", subj, count)
		}
	}
	jobsInfo, err := js.Stream(ctx, queue.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	// The last ack may land just after its result: poll briefly.
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ji, err := jobsInfo.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ji.State.Msgs == 0 {
			break
		}
		if time.Now().After(end) {
			t.Errorf("%d jobs left in %s", ji.State.Msgs, queue.JobsStream)
			break
		}
	}
	t.Logf("results by worker %v, %d redelivered", byWorker, redelivered)

	// w2's queue counters on /metrics: it took the redelivered job and stored proofs.
	f, err := promtest.Scrape("http://" + addr2 + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		min  float64
	}{{"leanpipe_queue_redeliveries_total", 1}, {"leanpipe_queue_pulled_total", float64(byWorker["w2"])},
		{"leanpipe_queue_acked_total", float64(byWorker["w2"])}, {"leanpipe_queue_store_bytes_total", 1}} {
		if v, err := f.Value(c.name); err != nil || v < c.min {
			t.Errorf("w2 %s = %v (%v), want at least %v", c.name, v, err, c.min)
		}
	}

	if err := w2.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-w2lines.eof
	if err := w2.Wait(); err != nil {
		t.Fatalf("w2 after SIGTERM: %v\n%s", err, strings.Join(w2lines.snapshot(), "\n"))
	}
}

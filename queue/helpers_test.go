package queue

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// serverBin, when set ($LEANPIPE_NATS_SERVER, e.g. /usr/sbin/nats-server), is a
// nats-server binary the tests run instead of the embedded server: the suite then
// checks the queue against that server's version (Debian ships 2.9.10).
var serverBin = os.Getenv("LEANPIPE_NATS_SERVER")

// testServer is a JetStream-enabled NATS server on 127.0.0.1 with its store in a
// temporary directory; restart brings it back on the same port and store.
type testServer struct {
	t    testing.TB
	opts server.Options
	s    *server.Server
	cmd  *exec.Cmd // with serverBin
	log  syncBuffer
	url  string
}

// syncBuffer collects a server's output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startServer starts a server and creates the shared objects with o's settings;
// tweak, if given, changes the embedded server's options first.
func startServer(t testing.TB, o Options, tweak ...func(*server.Options)) *testServer {
	t.Helper()
	ts := &testServer{t: t, opts: server.Options{
		Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		NoLog: true, NoSigs: true,
	}}
	for _, f := range tweak {
		f(&ts.opts)
	}
	if serverBin != "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ts.opts.Port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	ts.start()
	if serverBin == "" {
		ts.opts.Port = ts.s.Addr().(*net.TCPAddr).Port
	}
	ts.url = fmt.Sprintf("nats://127.0.0.1:%d", ts.opts.Port)
	// Create the shared objects once, as an operator would: otherwise the
	// workers' and submitters' first Ensure calls create them at the same time,
	// and the embedded server has a data race between a stream update and a
	// consumer creation (inside nats-server, seen under -race).
	_, js := ts.connect(t, "setup")
	if _, err := Ensure(context.Background(), js, o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ts.stop()
		if t.Failed() && serverBin != "" {
			t.Logf("%s output:\n%s", serverBin, ts.log.String())
		}
	})
	return ts
}

func (ts *testServer) stop() {
	if ts.cmd != nil {
		_ = ts.cmd.Process.Signal(os.Interrupt)
		_ = ts.cmd.Wait()
		ts.cmd = nil
		return
	}
	ts.s.Shutdown()
	ts.s.WaitForShutdown()
}

func (ts *testServer) start() {
	ts.t.Helper()
	if serverBin != "" {
		cmd := exec.Command(serverBin, "-js", "-a", "127.0.0.1", "-p", fmt.Sprint(ts.opts.Port), "-sd", ts.opts.StoreDir)
		cmd.Stdout, cmd.Stderr = &ts.log, &ts.log
		if err := cmd.Start(); err != nil {
			ts.t.Fatal(err)
		}
		ts.cmd = cmd
		addr := fmt.Sprintf("127.0.0.1:%d", ts.opts.Port)
		for end := time.Now().Add(10 * time.Second); ; {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				return
			}
			if time.Now().After(end) {
				ts.t.Fatalf("%s does not listen on %s", serverBin, addr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	o := ts.opts
	s, err := server.NewServer(&o)
	if err != nil {
		ts.t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		ts.t.Fatal("nats server not ready")
	}
	ts.s = s
}

// restart stops the server, waits, and starts it again on the same port and store.
func (ts *testServer) restart(down time.Duration) {
	ts.stop()
	time.Sleep(down)
	ts.start()
}

// connect opens a client connection named name.
func (ts *testServer) connect(t testing.TB, name string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, js, err := Connect(Options{URL: ts.url, Worker: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, js
}

// testEngine counts the proofs it is asked for; with block set it holds each
// proof until its context ends. started receives the job's n as each proof starts.
type testEngine struct {
	eng     stream.Engine
	proofs  atomic.Int64
	block   bool
	started chan int
}

func newEngine(t *testing.T) *testEngine {
	t.Helper()
	e, err := flows.NewEngine(flows.EngineOptions{Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return &testEngine{eng: e, started: make(chan int, 64)}
}

func (e *testEngine) Prove(ctx context.Context, req flows.Request) (flows.Proved, error) {
	e.proofs.Add(1)
	select {
	case e.started <- req.Input.Len():
	default:
	}
	if e.block {
		<-ctx.Done()
		return flows.Proved{}, ctx.Err()
	}
	return e.eng.Prove(ctx, req)
}

// running is a worker started by startWorker.
type running struct {
	w      *Worker
	cancel context.CancelFunc
	done   chan Metrics
	last   Metrics
}

func startWorker(t *testing.T, js jetstream.JetStream, eng stream.Engine, o Options, setup func(*Worker)) *running {
	t.Helper()
	w := NewWorker(js, eng, o)
	if setup != nil {
		setup(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{w: w, cancel: cancel, done: make(chan Metrics, 1)}
	go func() {
		m, err := w.Run(ctx)
		if err != nil {
			t.Errorf("worker %s: %v", o.Worker, err)
		}
		r.done <- m
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels the worker and waits for Run to return (at most once).
func (r *running) stop(t *testing.T) Metrics {
	t.Helper()
	r.cancel()
	select {
	case m, ok := <-r.done:
		if ok {
			close(r.done)
			r.last = m
		}
		return r.last
	case <-time.After(30 * time.Second):
		t.Fatal("worker did not stop")
		return Metrics{}
	}
}

// parseJobs makes envelopes of JSON jobs, numbered in order.
func parseJobs(t *testing.T, lines ...string) []stream.Envelope[stream.Job] {
	t.Helper()
	jobs, err := ReadJobs(context.Background(), strings.NewReader(strings.Join(lines, "\n")), "")
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// nJobs makes count jobs id<prefix><i> of 8..64 generated compressions.
func nJobs(t *testing.T, prefix string, count int) []stream.Envelope[stream.Job] {
	t.Helper()
	var lines []string
	for i := range count {
		lines = append(lines, fmt.Sprintf(`{"id":"%s%d","n":%d,"seed":%d}`, prefix, i, 8+(i*8)%57, i+1))
	}
	return parseJobs(t, lines...)
}

func submit(t *testing.T, js jetstream.JetStream, jobs []stream.Envelope[stream.Job], o Options, timeout time.Duration) ([]Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return Submit(ctx, js, jobs, o)
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// streamMsgs is the number of messages in a stream.
func streamMsgs(t *testing.T, js jetstream.JetStream, name string) uint64 {
	t.Helper()
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// recv receives from ch or fails the test after d.
func recv[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

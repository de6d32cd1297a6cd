package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/promtest"
	"github.com/leanpipe/leanpipe/observe"
)

// lineReader collects a pipe's lines as they arrive.
type lineReader struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // gets a value after each line
	eof   chan struct{} // closed at the end of the pipe
}

func readLines(r io.Reader) *lineReader {
	lr := &lineReader{more: make(chan struct{}, 1), eof: make(chan struct{})}
	go func() {
		defer close(lr.eof)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lr.mu.Lock()
			lr.lines = append(lr.lines, sc.Text())
			lr.mu.Unlock()
			select {
			case lr.more <- struct{}{}:
			default:
			}
		}
	}()
	return lr
}

func (lr *lineReader) snapshot() []string {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return append([]string(nil), lr.lines...)
}

// waitFor waits until some line satisfies ok and returns it.
func (lr *lineReader) waitFor(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		for _, l := range lr.snapshot() {
			if ok(l) {
				return l
			}
		}
		select {
		case <-lr.more:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no %s after 60 s; lines: %q", what, lr.snapshot())
		}
	}
}

// TestServeMetricsAndReadiness runs serve in a child process with --metrics-addr,
// streams good and bad jobs into it while scraping /metrics (parsed with the
// Prometheus text parser), checks the job counters against the jobs sent and the
// result lines, then signals SIGTERM while a proof runs: /readyz turns 503 while
// /healthz answers 200 until the process exits.
func TestServeMetricsAndReadiness(t *testing.T) {
	dir := t.TempDir()
	cmd := cliCommand(t, "", "serve", "--out", dir, "--workers", "2", "--in-flight", "2", "--grace", "60s",
		"--metrics-addr", "127.0.0.1:0", "--log-level", "info")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	so, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	se, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	out, errs := readLines(so), readLines(se)
	exited := make(chan struct{})
	go func() {
		// Wait only once both pipes are read to their end (Wait closes them).
		<-out.eof
		<-errs.eof
		cmd.Wait()
		close(exited)
	}()

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
	get := func(path string) (int, error) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	// Ready once the stream is set up (the endpoint starts first, not ready).
	for start := time.Now(); ; {
		code, err := get("/readyz")
		if err == nil && code == 200 {
			break
		}
		if err != nil || code != 503 || time.Since(start) > 30*time.Second {
			t.Fatalf("readyz before serving: %d %v", code, err)
		}
		time.Sleep(2 * time.Millisecond)
	}

	// Jobs: good ones, and bad ones of every kind the counters tell apart.
	const good = 6
	var jobs []string
	for i := range good {
		jobs = append(jobs, fmt.Sprintf(`{"id":"g%d","n":%d,"seed":%d}`, i, 8+3*i, i))
	}
	jobs = append(jobs,
		`{"id":"broken","n":`,                           // unreadable: flow unknown
		`{"id":"nf","flow":"no-such-flow","n":8}`,       // names no flow
		fmt.Sprintf(`{"id":"big","n":%d}`, 1<<21),       // over --max-n: the default flow's error
		`{"id":"missing","blocks":"/no/such/file.bin"}`, // no input file: the default flow's error
	)
	wantOK := map[string]float64{flows.DefaultName: good}
	wantErr := map[string]float64{flows.DefaultName: 2, observe.UnknownFlow: 2}
	go func() {
		for _, j := range jobs {
			stdin.Write([]byte(j + "\n"))
			time.Sleep(5 * time.Millisecond)
		}
	}()
	scrapes := 0
	for len(out.snapshot()) < len(jobs) {
		if _, err := promtest.Scrape(base + "/metrics"); err != nil {
			t.Fatalf("scrape during the stream: %v", err)
		}
		scrapes++
		select {
		case <-out.more:
		case <-time.After(5 * time.Millisecond):
		case <-exited:
			t.Fatalf("serve exited; stderr: %q", errs.snapshot())
		}
	}
	t.Logf("%d scrapes while %d jobs streamed", scrapes, len(jobs))
	ok, bad := 0, 0
	for _, l := range out.snapshot() {
		var r struct{ OK bool }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("result line %q: %v", l, err)
		}
		if r.OK {
			ok++
		} else {
			bad++
		}
	}
	if ok != good || bad != len(jobs)-good {
		t.Fatalf("%d ok and %d error result lines, want %d and %d", ok, bad, good, len(jobs)-good)
	}
	f, err := promtest.Scrape(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var okSum, errSum float64
	for _, m := range f["leanpipe_jobs_total"].GetMetric() {
		labels := promtest.Labels(m)
		var flow, result string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "flow":
				flow = l.GetValue()
			case "result":
				result = l.GetValue()
			}
		}
		v := m.GetCounter().GetValue()
		want := map[string]map[string]float64{"ok": wantOK, "error": wantErr}[result][flow]
		if v != want {
			t.Errorf("leanpipe_jobs_total{%s} = %v, want %v", labels, v, want)
		}
		if result == "ok" {
			okSum += v
		} else {
			errSum += v
		}
	}
	if okSum != float64(ok) || errSum != float64(bad) {
		t.Errorf("jobs_total: %v ok, %v error; result lines %d, %d", okSum, errSum, ok, bad)
	}
	for _, name := range []string{"leanpipe_jobs_in_flight", "leanpipe_jobs_pending"} {
		if v, err := f.Value(name); err != nil || v != 0 {
			t.Errorf("%s = %v (%v) after every result, want 0", name, v, err)
		}
	}
	if h, err := f.Histogram("leanpipe_stage_seconds", "flow", flows.DefaultName, "stage", "zerocheck"); err != nil || h.GetSampleCount() != good {
		t.Errorf("zerocheck stage histogram: %v %v", h, err)
	}
	if h, err := f.Histogram("leanpipe_proof_bytes", "flow", flows.DefaultName); err != nil || h.GetSampleCount() != good {
		t.Errorf("proof bytes histogram: %v %v", h, err)
	}
	if f["process_cpu_seconds_total"] == nil || f["go_goroutines"] == nil {
		t.Error("no process or Go collector metrics")
	}

	// A proof that runs a while; SIGTERM once it is in flight.
	stdin.Write([]byte(`{"id":"long","n":32768}` + "\n"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := promtest.Scrape(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := f.Value("leanpipe_jobs_in_flight"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the long proof never showed in flight")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	notReady, healthy := false, 0
	for done := false; !done; {
		select {
		case <-exited:
			done = true
			continue
		default:
		}
		h, herr := get("/healthz")
		r, rerr := get("/readyz")
		if herr != nil || rerr != nil {
			// The endpoint may close only as the process exits.
			select {
			case <-exited:
				done = true
				continue
			case <-time.After(2 * time.Second):
				t.Fatalf("endpoint failed while serve runs: %v %v", herr, rerr)
			}
		}
		if h != 200 {
			t.Fatalf("healthz %d after SIGTERM while the process runs", h)
		}
		healthy++
		switch {
		case r == 503:
			notReady = true
		case r == 200 && time.Since(signalled) > 2*time.Second:
			t.Fatalf("readyz still 200 %v after SIGTERM", time.Since(signalled))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !notReady || healthy < 2 {
		t.Fatalf("after SIGTERM: readyz 503 seen %v, healthz 200 %d times before exit", notReady, healthy)
	}
	t.Logf("after SIGTERM: %d healthz 200 answers, exit after %v", healthy, time.Since(signalled).Round(time.Millisecond))
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d, want 0 (the running proof finished in its grace); stderr %q", code, errs.snapshot())
	}
	last := out.snapshot()
	if l := last[len(last)-1]; !strings.Contains(l, `"id":"long"`) || !strings.Contains(l, `"ok":true`) {
		t.Fatalf("the long job's result %q", l)
	}
	if _, err := get("/healthz"); err == nil {
		t.Fatal("healthz still answers after exit")
	}
}

// flowStages is the default flow's stage names.
func flowStages(t *testing.T) []string {
	t.Helper()
	e, err := flows.NewEngine(flows.EngineOptions{Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return flows.Default().Prover(e.Resources()).Names()
}

// checkTraceFile reads and checks a trace file and requires the named proofs in it,
// each with every stage of the flow exactly once.
func checkTraceFile(t *testing.T, path string, names []string) []observe.TracedProof {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := observe.ParseTrace(data)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := observe.CheckTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range proofs {
		got = append(got, p.Name)
		var st []string
		for _, s := range p.Stages {
			st = append(st, s.Name)
		}
		want := flowStages(t)
		sort.Strings(st)
		sort.Strings(want)
		if !slices.Equal(st, want) {
			t.Errorf("proof %q: stages %v, want each of %v once", p.Name, st, want)
		}
	}
	sort.Strings(got)
	names = slices.Clone(names)
	sort.Strings(names)
	if !slices.Equal(got, names) {
		t.Fatalf("proofs in the trace %q, want %q", got, names)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	return proofs
}

// TestServeTrace streams four jobs two at a time on two cores with --trace and checks
// the file: every stage of every proof once, nested in its proof, on a worker row,
// no overlap on a row, and two proofs in flight at once.
func TestServeTrace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "serve.trace.json")
	var in strings.Builder
	var names []string
	for i := range 4 {
		fmt.Fprintf(&in, `{"id":"t%d","n":1024,"seed":%d}`+"\n", i, i)
		names = append(names, fmt.Sprintf("job t%d", i))
	}
	var o, e strings.Builder
	code := executeIn([]string{"serve", "--out", filepath.Join(dir, "out"), "--workers", "2", "--in-flight", "2", "--trace", path, "--log-level", "warn"},
		strings.NewReader(in.String()), &o, &e)
	if code != 0 {
		t.Fatalf("serve: exit %d: %s", code, e.String())
	}
	proofs := checkTraceFile(t, path, names)
	overlap := false
	for i, a := range proofs {
		for _, b := range proofs[i+1:] {
			overlap = overlap || (a.Start < b.End && b.Start < a.End)
		}
	}
	if !overlap {
		t.Error("no two proofs overlap with --in-flight 2")
	}
}

// TestProveAndRunTrace: prove --trace and run --trace (leaves and a stream source)
// write checked traces.
func TestProveAndRunTrace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prove.trace.json")
	if code, _, e := run(t, "prove", "--n", "40", "--out", filepath.Join(dir, "p.bin"), "--trace", path, "--log-level", "warn"); code != 0 {
		t.Fatalf("prove: %d %s", code, e)
	}
	checkTraceFile(t, path, []string{flows.DefaultName + ": 40 instances"})

	cfg := filepath.Join(dir, "run.yaml")
	os.WriteFile(cfg, []byte("leaves: 2\nbatch: 9\nworkers: 2\noutput: "+filepath.Join(dir, "out")+"\n"), 0o644)
	path = filepath.Join(dir, "run.trace.json")
	if code, o, e := run(t, "run", cfg, "--trace", path, "--log-level", "warn"); code != 0 {
		t.Fatalf("run: %d %s %s", code, o, e)
	}
	checkTraceFile(t, path, []string{"leaf 0", "leaf 1"})

	os.WriteFile(filepath.Join(dir, "jobs.jsonl"), []byte(`{"id":"x","n":12}`+"\n"+`{"id":"y","n":5}`+"\n"), 0o644)
	cfg = filepath.Join(dir, "stream.yaml")
	os.WriteFile(cfg, []byte("output: "+filepath.Join(dir, "sout")+"\nworkers: 2\nstream:\n  source: lines\n  path: jobs.jsonl\n  in_flight: 2\n"), 0o644)
	path = filepath.Join(dir, "stream.trace.json")
	if code, o, e := run(t, "run", cfg, "--trace", path, "--log-level", "warn"); code != 0 {
		t.Fatalf("run stream: %d %s %s", code, o, e)
	}
	checkTraceFile(t, path, []string{"job x", "job y"})
}

// TestObserveFlagErrors: bad observability flags are usage errors naming the flag,
// before any work.
func TestObserveFlagErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "run.yaml")
	os.WriteFile(cfg, []byte("leaves: 1\nbatch: 8\noutput: "+filepath.Join(dir, "out")+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--out", dir, "--metrics-addr", "1:2:3"}, "--metrics-addr"},
		{[]string{"serve", "--out", dir, "--metrics-addr", "host:http"}, "--metrics-addr"},
		{[]string{"serve", "--out", dir, "--debug-addr", "0.0.0.0:6060"}, "--debug-addr"},
		{[]string{"serve", "--out", dir, "--trace", filepath.Join(dir, "no", "t.json")}, "--trace"},
		{[]string{"serve", "--out", dir, "--trace", dir}, "--trace"},
		{[]string{"prove", "--n", "8", "--out", filepath.Join(dir, "p.bin"), "--trace", filepath.Join(dir, "no", "t.json")}, "--trace"},
		{[]string{"run", cfg, "--trace", filepath.Join(dir, "no", "t.json")}, "--trace"},
	} {
		code, _, e := run(t, c.args...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", c.args, code, e, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p.bin")); err == nil {
		t.Error("prove wrote a proof despite a bad --trace")
	}
}

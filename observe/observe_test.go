package observe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/promtest"
	"github.com/leanpipe/leanpipe/stream"
)

func TestResolveAddr(t *testing.T) {
	for _, c := range []struct {
		in       string
		loopback bool
		want     string // "" = an error
	}{
		{"9090", false, "127.0.0.1:9090"},
		{":9090", false, "127.0.0.1:9090"},
		{"0", false, "127.0.0.1:0"},
		{"0.0.0.0:9090", false, "0.0.0.0:9090"},
		{"[::1]:6060", true, "[::1]:6060"},
		{"localhost:6060", true, "localhost:6060"},
		{"6060", true, "127.0.0.1:6060"},
		{"127.0.0.2:6060", true, "127.0.0.2:6060"},
		{"0.0.0.0:6060", true, ""},
		{"10.1.2.3:6060", true, ""},
		{"example.org:6060", true, ""},
		{"", false, ""},
		{"abc", false, ""},
		{"host:99999", false, ""},
		{"1:2:3", false, ""},
	} {
		got, err := ResolveAddr(c.in, c.loopback)
		if c.want == "" {
			if err == nil || !errors.Is(err, ErrAddr) {
				t.Errorf("ResolveAddr(%q, %v) = %q, %v; want an ErrAddr", c.in, c.loopback, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ResolveAddr(%q, %v) = %q, %v; want %q", c.in, c.loopback, got, err, c.want)
		}
	}
}

func newEngine(t testing.TB, cores, inFlight int) *flows.Engine {
	t.Helper()
	e, err := flows.NewEngine(flows.EngineOptions{Cores: cores, InFlight: inFlight})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// gated holds its first `hold` proofs until open is closed.
type gated struct {
	*flows.Engine
	mu    sync.Mutex
	calls int
	hold  int
	open  chan struct{}
}

func (g *gated) Prove(ctx context.Context, req flows.Request) (flows.Proved, error) {
	g.mu.Lock()
	g.calls++
	wait := g.calls <= g.hold
	g.mu.Unlock()
	if wait {
		<-g.open
	}
	return g.Engine.Prove(ctx, req)
}

// streamJobs runs jobs through a Prover on e under ctx and returns the results.
func streamJobs(ctx context.Context, e stream.Engine, inFlight int, jobs []stream.Job) []stream.Result {
	ch := make(chan stream.Job)
	go func() {
		defer close(ch)
		for _, j := range jobs {
			ch <- j
		}
	}()
	p := stream.NewProver(ctx, e, stream.Options{InFlight: inFlight, Cores: 2})
	var mu sync.Mutex
	var got []stream.Result
	stream.Run(stream.NewChanSource(ctx, ch), p, nil, stream.NewFuncSink(func(r stream.Result) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	}))
	return got
}

// TestMetricsEndpoint streams good and bad jobs through a Prover reporting to a
// Metrics, scrapes /metrics while the stream runs and after it, parses the text
// with the Prometheus parser and checks every leanpipe metric against what was
// sent and what the engine reports; /healthz and /readyz follow SetReady.
func TestMetricsEndpoint(t *testing.T) {
	e := newEngine(t, 2, 2)
	m := NewMetrics()
	m.WatchEngine(e)
	srv, err := ServeMetrics("127.0.0.1:0", m)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base := "http://" + srv.Addr()
	status := func(path string) int {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if h, r := status("/healthz"), status("/readyz"); h != 200 || r != 503 {
		t.Fatalf("before SetReady: healthz %d, readyz %d; want 200, 503", h, r)
	}
	srv.SetReady(true)
	if r := status("/readyz"); r != 200 {
		t.Fatalf("ready: readyz %d", r)
	}

	var jobs []stream.Job
	const good = 6
	for i := range good {
		jobs = append(jobs, stream.Job{ID: fmt.Sprintf("g%d", i), N: 8 + i})
	}
	jobs = append(jobs,
		stream.Job{ID: "no-flow", Flow: "no-such-flow", N: 8}, // refused before its flow is known
		stream.Job{ID: "too-big", N: flows.MaxBatch + 1},      // refused, flow known
		stream.Job{ID: "bad id!", N: 8},                       // malformed id
	)
	ctx := context.Background()
	ctx = stream.WithObserver(ctx, m)
	done := make(chan []stream.Result)
	g := &gated{Engine: e, hold: 2, open: make(chan struct{})}
	go func() { done <- streamJobs(ctx, g, 2, jobs) }()
	// The first two proofs are held: the gauges show them running, and pending
	// them and the third job, which the Prover admits in order and holds waiting
	// for a proving slot.
	deadline := time.Now().Add(20 * time.Second)
	for {
		f, err := promtest.Scrape(base + "/metrics")
		if err != nil {
			t.Fatalf("scrape during the stream: %v", err)
		}
		running, err1 := f.Value("leanpipe_jobs_in_flight")
		pending, err2 := f.Value("leanpipe_jobs_pending")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if running == 2 && pending == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("while two proofs are held: in flight %v, pending %v; want 2, 3", running, pending)
		}
		time.Sleep(2 * time.Millisecond)
	}
	close(g.open)
	// Scrape while the stream runs: every scrape must parse.
	var results []stream.Result
	scrapes := 0
wait:
	for {
		select {
		case results = <-done:
			break wait
		default:
		}
		if _, err := promtest.Scrape(base + "/metrics"); err != nil {
			t.Fatalf("scrape during the stream: %v", err)
		}
		scrapes++
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("%d scrapes during the stream", scrapes)
	ok := 0
	for _, r := range results {
		if r.OK {
			ok++
		}
	}
	if ok != good || len(results) != len(jobs) {
		t.Fatalf("%d results, %d ok; want %d, %d", len(results), ok, len(jobs), good)
	}

	f, err := promtest.Scrape(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	value := func(name string, kv ...string) float64 {
		t.Helper()
		v, err := f.Value(name, kv...)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	flow := flows.DefaultName
	for _, c := range []struct {
		flow, result string
		want         float64
	}{{flow, "ok", good}, {flow, "error", 1}, {UnknownFlow, "error", 2}, {UnknownFlow, "ok", 0}} {
		if got := value("leanpipe_jobs_total", "flow", c.flow, "result", c.result); got != c.want {
			t.Errorf("leanpipe_jobs_total{flow=%q,result=%q} = %v, want %v", c.flow, c.result, got, c.want)
		}
	}
	if v, p := value("leanpipe_jobs_in_flight"), value("leanpipe_jobs_pending"); v != 0 || p != 0 {
		t.Errorf("after the stream: in flight %v, pending %v", v, p)
	}
	stages := flows.Default().Prover(e.Resources()).Names()
	for _, st := range stages {
		h, err := f.Histogram("leanpipe_stage_seconds", "flow", flow, "stage", st)
		if err != nil {
			t.Fatal(err)
		}
		w, err := f.Histogram("leanpipe_stage_workers", "flow", flow, "stage", st)
		if err != nil {
			t.Fatal(err)
		}
		if h.GetSampleCount() != good || w.GetSampleCount() != good || h.GetSampleSum() <= 0 {
			t.Errorf("stage %s: %d time samples (sum %v s), %d worker samples; want %d each", st, h.GetSampleCount(), h.GetSampleSum(), w.GetSampleCount(), good)
		}
		if s := w.GetSampleSum(); s < good || s > 2*good {
			t.Errorf("stage %s: %v workers granted over %d runs on 2 cores", st, s, good)
		}
	}
	if h, err := f.Histogram("leanpipe_proof_bytes", "flow", flow); err != nil || h.GetSampleCount() != good {
		t.Errorf("leanpipe_proof_bytes: %v, %v", h, err)
	} else {
		sum := 0
		for _, r := range results {
			sum += r.Bytes
		}
		if h.GetSampleSum() != float64(sum) {
			t.Errorf("proof bytes sum %v, results' %d", h.GetSampleSum(), sum)
		}
	}
	hits, misses := e.CacheStats()
	if got := value("leanpipe_cache_requests_total", "cache", "shape", "result", "hit"); got != float64(hits) || hits == 0 {
		t.Errorf("cache hits %v, engine %d", got, hits)
	}
	if got := value("leanpipe_cache_requests_total", "cache", "shape", "result", "miss"); got != float64(misses) || misses == 0 {
		t.Errorf("cache misses %v, engine %d", got, misses)
	}
	k, ext := e.PoolStats()
	if got := value("leanpipe_buffer_pool_bytes", "pool", "K") + value("leanpipe_buffer_pool_bytes", "pool", "E"); got != float64(k.BytesAlloc+ext.BytesAlloc) || got == 0 {
		t.Errorf("buffer pool bytes %v, engine %d", got, k.BytesAlloc+ext.BytesAlloc)
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "process_cpu_seconds_total"} {
		if f[name] == nil {
			t.Errorf("no %s (Go and process collectors)", name)
		}
	}
	for name, fam := range f {
		for _, mm := range fam.GetMetric() {
			if l := promtest.Labels(mm); strings.Contains(l, "g0") || strings.Contains(l, "bad id") || strings.Contains(l, "no-such-flow") {
				t.Errorf("%s{%s} exposes a job's id or contents", name, l)
			}
		}
	}
	srv.SetReady(false)
	if h, r := status("/healthz"), status("/readyz"); h != 200 || r != 503 {
		t.Fatalf("shutting down: healthz %d, readyz %d; want 200, 503", h, r)
	}
}

// TestTraceOfAStream proves jobs two at a time on two cores with a Trace attached,
// writes the file and checks it: every stage of every proof appears once, inside its
// proof, on a worker row, no row has overlapping events, and the scheduler's rows
// show proofs overlapping in time.
func TestTraceOfAStream(t *testing.T) {
	e := newEngine(t, 2, 2)
	tr := NewTrace()
	ctx := stream.WithObserver(context.Background(), tr)
	var jobs []stream.Job
	for i := range 4 {
		jobs = append(jobs, stream.Job{ID: fmt.Sprintf("j%d", i), N: 1 << 10})
	}
	results := streamJobs(ctx, e, 2, jobs)
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := tr.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseTrace(data)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := CheckTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	stages := flows.Default().Prover(e.Resources()).Names()
	checkStages(t, proofs, results, stages)

	// The scheduler's rows hold one grant per core of every stage, and at least
	// two proofs overlap in time.
	grants := 0
	for _, ev := range f.TraceEvents {
		if ev.Cat == CatGrant {
			grants++
		}
	}
	want := 0
	for _, r := range results {
		for _, s := range r.Proved.Spans {
			want += len(s.Cores)
		}
	}
	if grants != want || want < len(results)*len(stages) {
		t.Errorf("%d grant events, want %d", grants, want)
	}
	if !overlap(proofs) {
		t.Errorf("no two proofs overlap in time with 2 in flight")
	}
}

func checkStages(t *testing.T, proofs []TracedProof, results []stream.Result, stages []string) {
	t.Helper()
	if len(proofs) != len(results) {
		t.Fatalf("%d proofs in the trace, %d made", len(proofs), len(results))
	}
	var names []string
	for _, r := range results {
		names = append(names, "job "+r.ID)
	}
	for _, p := range proofs {
		if !slices.Contains(names, p.Name) {
			t.Errorf("trace proof %q was not made", p.Name)
		}
		var got []string
		for _, s := range p.Stages {
			got = append(got, s.Name)
		}
		want := append([]string(nil), stages...)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("proof %s: stages %v, want each of %v once", p.Name, got, want)
		}
	}
}

func overlap(proofs []TracedProof) bool {
	for i, a := range proofs {
		for _, b := range proofs[i+1:] {
			if a.Start < b.End && b.Start < a.End {
				return true
			}
		}
	}
	return false
}

// TestCheckTraceRejects makes a valid trace by hand and breaks it in each way
// CheckTrace must catch.
func TestCheckTraceRejects(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	spans := []graph.Span{
		{Name: "a", Start: t0.Add(1 * ms), Duration: 2 * ms, Workers: 2, Cores: []int{0, 1}},
		{Name: "b", Start: t0.Add(4 * ms), Duration: 1 * ms, Workers: 1, Cores: []int{1}},
	}
	valid := func() TraceFile {
		tr := NewTrace()
		tr.Add("p", t0, t0.Add(6*ms), spans)
		tr.Add("q", t0.Add(5*ms+1), t0.Add(9*ms), []graph.Span{{Name: "a", Start: t0.Add(6 * ms), Duration: 1 * ms, Workers: 1, Cores: []int{1}}})
		return tr.File()
	}
	if proofs, err := CheckTrace(valid()); err != nil || len(proofs) != 2 || len(proofs[0].Stages) != 2 {
		t.Fatalf("valid trace: %v, %v", proofs, err)
	}
	find := func(f TraceFile, cat, name string, pid int) int {
		for i, e := range f.TraceEvents {
			if e.Cat == cat && e.Name == name && e.PID == pid {
				return i
			}
		}
		t.Fatalf("no %s event %s in pid %d", cat, name, pid)
		return -1
	}
	for _, c := range []struct {
		name  string
		spoil func(f *TraceFile)
	}{
		{"stage outside its proof", func(f *TraceFile) { f.TraceEvents[find(*f, CatStage, "b", 2)].Dur = "3000.000" }},
		{"overlap on a row", func(f *TraceFile) {
			// Move p's stage b onto the row of its stage a, overlapping it.
			i := find(*f, CatStage, "b", 2)
			f.TraceEvents[i].TID, f.TraceEvents[i].TS = 1, "1500.000"
		}},
		{"stage on the proof row", func(f *TraceFile) { f.TraceEvents[find(*f, CatStage, "a", 2)].TID = 0 }},
		{"stage on an unnamed row", func(f *TraceFile) { f.TraceEvents[find(*f, CatStage, "a", 2)].TID = 7 }},
		{"two proof events", func(f *TraceFile) {
			e := f.TraceEvents[find(*f, CatProof, "p", 2)]
			e.TS = "7000.000"
			f.TraceEvents = append(f.TraceEvents, e)
		}},
		{"stage without a proof", func(f *TraceFile) {
			i := find(*f, CatProof, "q", 3)
			f.TraceEvents = append(f.TraceEvents[:i], f.TraceEvents[i+1:]...)
		}},
		{"negative duration", func(f *TraceFile) { f.TraceEvents[find(*f, CatStage, "a", 3)].Dur = "-1" }},
		{"grant overlap on a core", func(f *TraceFile) {
			i := find(*f, CatGrant, "a · q", SchedulerPID)
			f.TraceEvents[i].TS = "4500.000"
		}},
		{"another phase", func(f *TraceFile) { f.TraceEvents[find(*f, CatStage, "a", 3)].Ph = "B" }},
	} {
		f := valid()
		c.spoil(&f)
		if _, err := CheckTrace(f); err == nil {
			t.Errorf("%s: accepted", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

// TestTraceBounded keeps only the last MaxTraceProofs proofs.
func TestTraceBounded(t *testing.T) {
	tr := NewTrace()
	t0 := time.Unix(0, 0)
	for i := range MaxTraceProofs + 3 {
		s := t0.Add(time.Duration(i) * time.Millisecond)
		tr.Add(fmt.Sprint(i), s, s.Add(time.Microsecond), nil)
	}
	f := tr.File()
	if tr.Len() != MaxTraceProofs || f.OtherData["dropped_proofs"] != 3 {
		t.Fatalf("held %d, dropped %v", tr.Len(), f.OtherData["dropped_proofs"])
	}
	proofs, err := CheckTrace(f)
	if err != nil || proofs[0].Name != "3" {
		t.Fatalf("%v; first proof %q", err, proofs[0].Name)
	}
}

func TestServeDebug(t *testing.T) {
	s, err := ServeDebug("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Get("http://" + s.Addr() + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("pprof: %s", resp.Status)
	}
}

package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/reugn/go-streams/flow"
)

func seed(s uint64) *uint64 { return &s }

// TestStreamOrder: with several proofs in flight and a first job held back until
// the later ones have proved, results still leave in job order, except a job that
// asks to be unordered, which leaves as soon as it is done. A go-streams operator
// dropping one job between source and Prover does not stall the order.
func TestStreamOrder(t *testing.T) {
	eng := newEngine(t)
	release := make(chan struct{})
	var laterDone atomic.Int32
	pr := &probe{eng: eng, gate: func(n int) <-chan struct{} {
		if n == 64 {
			return release
		}
		return nil
	}, after: func(n int) {
		if n != 64 && laterDone.Add(1) == 5 {
			close(release) // every later job has proved: let the first one finish
		}
	}}
	ctx := context.Background()
	jobs := make(chan Job)
	sizes := []int{64, 8, 21, 1, 40, 9}
	go func() {
		for i, n := range sizes {
			jobs <- Job{ID: fmt.Sprintf("j%d", i), N: n, Seed: seed(uint64(i)), Unordered: i == 3}
		}
		jobs <- Job{ID: "dropped", N: 5}
		close(jobs)
	}()
	p := NewProver(ctx, pr, Options{InFlight: 3, Pending: 8})
	drop := flow.NewFilter(func(e Envelope[Job]) bool { return e.Val.ID != "dropped" }, 1)
	dir := t.TempDir()
	files, err := NewProofFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []Result
	sink := NewFuncSink(func(r Result) { got = append(got, r) })
	NewChanSource(ctx, jobs).Via(drop).Via(p).Via(files).To(sink)
	m := p.Metrics()

	if len(got) != len(sizes) {
		t.Fatalf("%d results for %d jobs", len(got), len(sizes))
	}
	// The unordered job 3 left before job 0, whose proof was held back; all the
	// others in job order.
	if got[0].Seq != 3 {
		t.Fatalf("first result is job %d's, want the unordered job 3", got[0].Seq)
	}
	want := []uint64{3, 0, 1, 2, 4, 5}
	for i, r := range got {
		if r.Seq != want[i] || r.ID != fmt.Sprintf("j%d", r.Seq) || !r.OK || r.N != sizes[r.Seq] {
			t.Fatalf("result %d: %+v, want job %d proved", i, r, want[i])
		}
	}
	if m.RunningMax < 2 {
		t.Errorf("proofs never overlapped (running max %d)", m.RunningMax)
	}
	if m.QueueDepthMax > 8 {
		t.Errorf("queue depth %d over the pending bound 8", m.QueueDepthMax)
	}
	checkDir(t, dir, got)
	for _, r := range got {
		if want := flows.Generate(r.N, r.Seq); r.Meta.N != len(want) {
			t.Fatalf("job %d: statement n = %d", r.Seq, r.Meta.N)
		}
	}
}

// TestStreamFailingJobInMiddle: malformed lines, refused jobs and a proof that fails
// each give an error result for their job, in order, and the jobs after them are
// proved. Jobs over the limits are refused before any proving.
func TestStreamFailingJobInMiddle(t *testing.T) {
	eng := newEngine(t)
	pr := &probe{eng: eng, fail: func(n int) error {
		if n == 13 {
			return errInjected
		}
		return nil
	}}
	dir := t.TempDir()
	in := t.TempDir()
	good := flows.Generate(10, 5)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(in, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good.blocks.bin", witness.EncodeBlocks(good))
	write("big.blocks.bin", witness.EncodeBlocks(flows.Generate(11, 1)))
	write("odd.blocks.bin", witness.EncodeBlocks(good)[:200])
	lines := []struct {
		line string
		ok   bool
		err  error
	}{
		{`{"id":"a","n":12,"seed":3}`, true, nil},
		{`{"id":"a","n":2}`, false, ErrBusy},                           // job a is still proving
		{`{"id":"b","n":`, false, ErrJob},                              // cut short
		{`{"id":"c","n":4,"color":"red"}`, false, ErrJob},              // unknown key
		{`{"id":"d","n":17,"seed":1}`, false, ErrLimit},                // over --max-n
		{`{"id":"e","blocks":"big.blocks.bin"}`, false, ErrLimit},      // file too large
		{`{"id":"f","blocks":"missing.blocks.bin"}`, false, ErrJob},    // no such file
		{`{"id":"g","blocks":"odd.blocks.bin"}`, false, ErrJob},        // not whole blocks
		{`{"id":"h","n":13}`, false, errInjected},                      // the proof fails
		{`{"id":"../x","n":3}`, false, ErrJob},                         // unsafe id
		{`{"id":"i","n":3,"blocks":"good.blocks.bin"}`, false, ErrJob}, // both inputs
		{`{"id":"j","n":3,"format":"zip"}`, false, ErrJob},             // unknown format
		{`{"id":"k","n":3,"log_inv_rate":9}`, false, ErrJob},           // rate out of range
		{`{"id":"l","blocks":"good.blocks.bin","format":"raw","log_inv_rate":2}`, true, nil},
		{`[1,2,3]`, false, ErrJob},
		{`{"id":"m","n":3} {"id":"n"}`, false, ErrJob}, // two objects on a line
		{`{"id":"o","n":0}`, false, ErrJob},
		{`{"id":"p","n":7,"seed":2}`, true, nil},
	}
	var input strings.Builder
	for i, l := range lines {
		input.WriteString(l.line + "\n")
		if i == 6 {
			input.WriteString("\n   \n") // blank lines are not jobs
		}
	}
	ctx := context.Background()
	src := NewLineSource(ctx, strings.NewReader(input.String()), in)
	p := NewProver(ctx, pr, Options{InFlight: 2, MaxN: 16, MaxInputBytes: 10 * witness.BlockSize})
	files, err := NewProofFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sink := NewJSONLines(&out)
	m := Run(src, p, files, sink)
	if err := sink.Err(); err != nil {
		t.Fatal(err)
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	var got []Result
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("result line %q: %v", l, err)
		}
		got = append(got, r)
	}
	if len(got) != len(lines) || m.Accepted != len(lines) {
		t.Fatalf("%d result lines (%d accepted) for %d jobs", len(got), m.Accepted, len(lines))
	}
	for i, r := range got {
		l := lines[i]
		if r.Seq != uint64(i) || r.OK != l.ok {
			t.Fatalf("line %d (%s): result %+v", i, l.line, r)
		}
		if !l.ok && (r.Error == "" || !strings.Contains(r.Error, errText(l.err))) {
			t.Fatalf("line %d (%s): error %q, want one containing %q", i, l.line, r.Error, errText(l.err))
		}
	}
	if got[4].ID != "d" || got[3].ID != "c" {
		t.Fatalf("error results do not name their jobs: %q, %q", got[4].ID, got[3].ID)
	}
	// Only the good jobs and the failing one reached the engine.
	if calls, _ := pr.stats(); calls != 4 {
		t.Fatalf("engine called %d times, want 4 (3 good jobs and the failing one)", calls)
	}
	if m.OK != 3 || m.Failed != 1 || m.Refused != 3 || m.Malformed != len(lines)-7 {
		t.Fatalf("metrics %+v", m)
	}
	// The metrics are available as JSON and as text.
	var asJSON map[string]any
	if err := json.Unmarshal(m.JSON(), &asJSON); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"proofs_per_s", "stages", "utilisation", "cpu_utilisation", "queue_depth_max", "cache_hit_rate", "peak_rss_bytes", "running_max"} {
		if _, ok := asJSON[key]; !ok {
			t.Fatalf("metrics JSON lacks %q", key)
		}
	}
	if st, _ := asJSON["stages"].([]any); len(st) == 0 || m.ProofsPerS <= 0 || m.PeakRSSBytes <= 0 && runtime.GOOS == "linux" {
		t.Fatalf("metrics without stages, rate or peak memory: %s", m.JSON())
	}
	var text strings.Builder
	m.WriteText(&text)
	if !strings.Contains(text.String(), "proofs/s") || !strings.Contains(text.String(), "zerocheck") {
		t.Fatalf("metrics text:\n%s", text.String())
	}
	var full []Result
	for _, r := range got {
		r.Err = nil
		if !r.OK {
			r.Err = errors.New(r.Error)
		}
		full = append(full, r)
	}
	checkDir(t, dir, full)
	if meta := verifyFile(t, filepath.Join(dir, "l"+ProofSuffix)); meta.Format != "raw" || meta.LogInvRate != 2 || meta.N != 10 {
		t.Fatalf("job l statement %+v", meta)
	}
}

func errText(err error) string { return err.Error() }

// TestStreamShutdown cancels a stream mid-way with proofs running. Without grace
// the running proofs are abandoned; with grace they finish. Either way every
// accepted job has exactly one result, no partial or stray file is left, and the
// proofs written verify.
func TestStreamShutdown(t *testing.T) {
	for _, grace := range []time.Duration{0, time.Minute} {
		t.Run(fmt.Sprintf("grace=%v", grace), func(t *testing.T) {
			eng := newEngine(t)
			hold := make(chan struct{})
			started := make(chan int, 64)
			var proofs atomic.Int32
			pr := &probe{eng: eng, started: started, gate: func(int) <-chan struct{} {
				// The first two proofs run freely; the next ones wait.
				if proofs.Add(1) <= 2 {
					return nil
				}
				return hold
			}}
			ctx, cancel := context.WithCancel(context.Background())
			jobs := make(chan Job)
			var sent atomic.Int32
			go func() {
				defer close(jobs)
				for i := 0; i < 40; i++ {
					select {
					case jobs <- Job{ID: fmt.Sprintf("s%02d", i), N: 16 + i%8, Seed: seed(uint64(i))}:
						sent.Add(1)
					case <-ctx.Done():
						return
					}
				}
			}()
			p := NewProver(ctx, pr, Options{InFlight: 2, Pending: 6, Grace: grace})
			dir := t.TempDir()
			files, err := NewProofFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			var results []Result
			sink := NewFuncSink(func(r Result) { results = append(results, r) })
			go func() {
				// Cancel once two held proofs are running.
				for n := 0; n < 4; n++ {
					<-started
				}
				time.Sleep(30 * time.Millisecond) // let jobs queue behind the held ones
				cancel()
				if grace > 0 {
					time.Sleep(20 * time.Millisecond)
					close(hold) // the held proofs may now finish within their grace
				}
			}()
			m := Run(NewChanSource(ctx, jobs), p, files, sink)
			checkAccounted(t, results, m, true)
			checkDir(t, dir, results)
			if m.Accepted >= 40 {
				t.Fatalf("all %d jobs accepted: the stream did not stop", m.Accepted)
			}
			abandonedRunning := 0
			for _, r := range results {
				if !r.OK && !errors.Is(r.Err, ErrAbandoned) {
					t.Fatalf("job %s: unexpected error %v", r.ID, r.Err)
				}
				if r.Seq < 4 && !r.OK {
					abandonedRunning++
				}
			}
			// Jobs 0 and 1 proved before the cancel; 2 and 3 were running, held.
			if grace == 0 && abandonedRunning != 2 {
				t.Fatalf("without grace %d of the held running jobs were abandoned, want 2", abandonedRunning)
			}
			if grace > 0 && abandonedRunning != 0 {
				t.Fatalf("with grace %d of the first four jobs were abandoned, want 0", abandonedRunning)
			}
			if m.OK < 2 || m.Abandoned == 0 && grace == 0 {
				t.Fatalf("metrics %+v", m)
			}
			t.Logf("grace %v: %d sent, %d accepted, %d proved, %d abandoned", grace, sent.Load(), m.Accepted, m.OK, m.Abandoned)
		})
	}
}

// TestStreamBackpressure: with a slow sink, the Prover stops taking jobs, so the
// producer can only run ahead of the sink by the pending bound plus the jobs held
// on the pipeline's edges; and the queue depth stays within the pending bound.
func TestStreamBackpressure(t *testing.T) {
	eng := newEngine(t)
	one, err := eng.Prove(context.Background(), flows.Request{Input: flows.Blocks(flows.Generate(8, 1)), LogInvRate: 1})
	if err != nil {
		t.Fatal(err)
	}
	pr := &probe{eng: eng, cached: &one} // proving costs nothing: the sink is the bottleneck
	const total, pending = 40, 4
	ctx := context.Background()
	jobs := make(chan Job)
	var sent, sunk atomic.Int32
	var worst atomic.Int32
	go func() {
		for i := 0; i < total; i++ {
			jobs <- Job{ID: fmt.Sprintf("b%d", i), N: 8}
			if ahead := sent.Add(1) - sunk.Load(); ahead > worst.Load() {
				worst.Store(ahead)
			}
		}
		close(jobs)
	}()
	p := NewProver(ctx, pr, Options{InFlight: 2, Pending: pending})
	files, err := NewProofFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var results []Result
	sink := NewFuncSink(func(r Result) {
		time.Sleep(15 * time.Millisecond)
		results = append(results, r)
		sunk.Add(1)
	})
	m := Run(NewChanSource(ctx, jobs), p, files, sink)
	checkAccounted(t, results, m, true)
	// Jobs held outside the pending places, one each: the channel source, the
	// forwarder into the Prover, the Prover's intake waiting for a place, the
	// forwarder into the files flow, the files flow, the forwarder into the sink,
	// and the sink's current call.
	const edges = 7
	if w := worst.Load(); w > pending+edges {
		t.Fatalf("producer ran %d jobs ahead of a slow sink (bound %d)", w, pending+edges)
	}
	if m.QueueDepthMax > pending {
		t.Fatalf("queue depth %d over the pending bound %d", m.QueueDepthMax, pending)
	}
	if m.OK != total {
		t.Fatalf("%d proofs of %d", m.OK, total)
	}
	t.Logf("producer at most %d ahead of the sink; queue depth max %d, mean %.2f", worst.Load(), m.QueueDepthMax, m.QueueDepthMean)
}

// TestStreamMemoryBudget: the summed estimates of the proofs running at once never
// exceed the budget (a budget for one proof serialises them whatever K is, a
// budget for two lets two run), and a job needing more than the whole budget is
// refused before any work.
func TestStreamMemoryBudget(t *testing.T) {
	eng := newEngine(t)
	one := flows.Batch.Estimate(32, 1)
	for _, c := range []struct {
		budget  int64
		maxRun  int
		refused bool
	}{{one + one/2, 1, true}, {2*one + one/2, 2, true}} {
		t.Run(fmt.Sprintf("budget=%d", c.budget), func(t *testing.T) {
			pr := &probe{eng: eng}
			ctx := context.Background()
			jobs := make(chan Job)
			go func() {
				for i := 0; i < 6; i++ {
					jobs <- Job{ID: fmt.Sprintf("m%d", i), N: 17 + 3*i, Seed: seed(uint64(i))}
					if i == 2 {
						jobs <- Job{ID: "huge", N: 1 << 12}
					}
				}
				close(jobs)
			}()
			p := NewProver(ctx, pr, Options{InFlight: 4, MemoryBudget: c.budget})
			dir := t.TempDir()
			files, err := NewProofFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			var results []Result
			m := Run(NewChanSource(ctx, jobs), p, files, NewFuncSink(func(r Result) { results = append(results, r) }))
			checkAccounted(t, results, m, true)
			checkDir(t, dir, results)
			calls, maxRun := pr.stats()
			if calls != 6 || maxRun > c.maxRun || m.RunningMax > c.maxRun {
				t.Fatalf("%d proofs, %d running at once (metrics %d), budget allows %d", calls, maxRun, m.RunningMax, c.maxRun)
			}
			if m.BudgetPeakBytes > c.budget || m.BudgetBytes != c.budget {
				t.Fatalf("budgeted %d bytes at once, budget %d", m.BudgetPeakBytes, c.budget)
			}
			huge := results[3]
			if huge.ID != "huge" || huge.OK || !errors.Is(huge.Err, ErrLimit) || !strings.Contains(huge.Error, "memory budget") {
				t.Fatalf("huge job: %+v", huge)
			}
		})
	}
}

// TestStreamEstimateCovers: a warm proof allocates no more than Estimate budgets
// for it (the estimate is an upper bound, not a peak measurement).
func TestStreamEstimateCovers(t *testing.T) {
	eng := newEngine(t)
	for _, c := range []struct{ n, rate int }{{9, 1}, {64, 1}, {40, 2}} {
		blocks := flows.Generate(c.n, 1)
		req := flows.Request{Input: flows.Blocks(blocks), LogInvRate: c.rate}
		if _, err := eng.Prove(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := eng.Prove(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		alloc := int64(m1.TotalAlloc - m0.TotalAlloc)
		if est := flows.Batch.Estimate(c.n, c.rate); alloc > est {
			t.Fatalf("n=%d rate %d: a warm proof allocated %d bytes, estimate %d", c.n, c.rate, alloc, est)
		}
	}
}

// TestStreamDirSource: job files dropped in a directory are claimed, proved and
// named after their files; a bad job file gives an error result.
func TestStreamDirSource(t *testing.T) {
	eng := newEngine(t)
	in, out := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		"01-first.job":   `{"n":9,"seed":4}`,
		"02-second.job":  `{"id":"named","blocks":"b.bin"}`,
		"03-bad.job":     `{"n":"x"}`,
		".04-hidden.job": `{"n":3}`,
		"05-other.txt":   `{"n":3}`,
	} {
		if err := os.WriteFile(filepath.Join(in, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(in, "b.bin"), witness.EncodeBlocks(flows.Generate(5, 9)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src := NewDirSource(ctx, in, 10*time.Millisecond, true)
	p := NewProver(ctx, eng, Options{})
	files, err := NewProofFiles(out)
	if err != nil {
		t.Fatal(err)
	}
	var results []Result
	m := Run(src, p, files, NewFuncSink(func(r Result) { results = append(results, r) }))
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, results, m, true)
	checkDir(t, out, results)
	if len(results) != 3 || results[0].ID != "01-first" || !results[0].OK || results[1].ID != "named" || !results[1].OK ||
		results[2].ID != "03-bad" || results[2].OK || m.CacheHits+m.CacheMisses == 0 {
		t.Fatalf("results %+v, metrics %+v", results, m)
	}
	for _, name := range []string{"01-first.job.taken", "02-second.job.taken", "03-bad.job.taken", ".04-hidden.job", "05-other.txt"} {
		if _, err := os.Stat(filepath.Join(in, name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestStreamParseJob covers the job syntax and its limits.
func TestStreamParseJob(t *testing.T) {
	good := []string{
		`{"id":"a","blocks":"x.blocks.bin"}`,
		`{"id":"b","n":300,"seed":7}`,
		`{"id":"c1_x-y","n":1,"format":"raw","log_inv_rate":4,"unordered":true}`,
		` {"id":"d","n":1048576} `,
	}
	for _, s := range good {
		j, err := ParseJob([]byte(s), "/base", "")
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if j.Format == "" || j.LogInvRate == 0 {
			t.Fatalf("%s: defaults not filled: %+v", s, j)
		}
		if j.Blocks != "" && j.Blocks != "/base/x.blocks.bin" {
			t.Fatalf("%s: blocks path %q", s, j.Blocks)
		}
	}
	bad := map[string]error{
		`{"n":3}`:                ErrJob,
		`{"id":"","n":3}`:        ErrJob,
		`{"id":".hidden","n":3}`: ErrJob,
		`{"id":"a.b","n":3}`:     ErrJob,
		`{"id":"a/b","n":3}`:     ErrJob,
		`{"id":"` + strings.Repeat("x", 129) + `","n":3}`: ErrJob,
		`{"id":"a","n":-1}`:          ErrJob,
		`{"id":"a","seed":2}`:        ErrJob,
		`{"id":"a","n":1048577}`:     ErrLimit,
		`{"id":"a","n":3,"seed":-1}`: ErrJob,
		`{"id":"a","n":3.5}`:         ErrJob,
		`{"id":"a","n":3,"ID":"b"}`:  nil, // encoding/json matches keys case-insensitively
		`nonsense`:                   ErrJob,
		``:                           ErrJob,
	}
	for s, want := range bad {
		_, err := ParseJob([]byte(s), "", "")
		if want == nil {
			continue
		}
		if !errors.Is(err, want) {
			t.Fatalf("%q: got %v, want %v", s, err, want)
		}
	}
	if j, err := ParseJob([]byte(`{"n":3}`), "", "fromfile"); err != nil || j.ID != "fromfile" {
		t.Fatalf("default id: %+v %v", j, err)
	}
	if j, err := ParseJob([]byte(`{"id":"named","n":"x"}`), "", ""); err == nil || j.ID != "named" {
		t.Fatalf("a malformed job keeps its id for its error result: %+v %v", j, err)
	}
	// A line over MaxLineBytes is one malformed job; the next line is read.
	long := `{"id":"` + strings.Repeat("y", MaxLineBytes) + `"}` + "\n" + `{"id":"after","n":2}` + "\n"
	src := NewLineSource(context.Background(), strings.NewReader(long), "")
	var envs []Envelope[Job]
	for {
		e, ok := recv[Job](src.Out())
		if !ok {
			break
		}
		envs = append(envs, e)
	}
	if len(envs) != 2 || !errors.Is(envs[0].Err, ErrJob) || envs[1].Err != nil || envs[1].Val.ID != "after" || envs[1].Seq != 1 {
		t.Fatalf("long line: %+v", envs)
	}
}

// TestStreamEdgeType: an edge carrying the wrong type is a wiring mistake and panics.
func TestStreamEdgeType(t *testing.T) {
	ch := make(chan any, 1)
	ch <- Envelope[Result]{}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "stream: edge carries") {
			t.Fatalf("recovered %v", r)
		}
	}()
	recv[Job](ch)
}

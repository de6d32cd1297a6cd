package stream

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/transcript"
)

// probe wraps an Engine to observe and steer proofs: it counts calls and proofs
// running at once, can hold a proof until a gate opens (or its context ends), can
// fail chosen batches, and can answer from a cached proof without proving.
type probe struct {
	eng Engine

	mu         sync.Mutex
	calls      int
	running    int
	maxRunning int
	sizes      []int

	gate    func(n int) <-chan struct{}
	fail    func(n int) error
	cached  *flows.Proved
	started chan int
	after   func(n int) // called when a proof has finished
}

func (p *probe) Prove(ctx context.Context, req flows.Request) (flows.Proved, error) {
	n := req.Input.Len()
	p.mu.Lock()
	p.calls++
	p.running++
	p.maxRunning = max(p.maxRunning, p.running)
	p.sizes = append(p.sizes, n)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.running--
		p.mu.Unlock()
	}()
	if p.started != nil {
		p.started <- n
	}
	if p.gate != nil {
		if g := p.gate(n); g != nil {
			select {
			case <-g:
			case <-ctx.Done():
				return flows.Proved{}, ctx.Err()
			}
		}
	}
	if p.fail != nil {
		if err := p.fail(n); err != nil {
			return flows.Proved{}, err
		}
	}
	if p.cached != nil {
		return *p.cached, nil
	}
	res, err := p.eng.Prove(ctx, req)
	if p.after != nil {
		p.after(n)
	}
	return res, err
}

func (p *probe) stats() (calls, maxRunning int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls, p.maxRunning
}

func newEngine(t testing.TB) *flows.Engine {
	t.Helper()
	e, err := flows.NewEngine(flows.EngineOptions{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// collect runs a pipeline into a slice of results.
func collect(src interface {
	Out() <-chan any
}, p *Prover, files *ProofFiles) ([]Result, Metrics) {
	var mu sync.Mutex
	var got []Result
	sink := NewFuncSink(func(r Result) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	})
	var s interface{ Out() <-chan any } = src
	go transmit(s, p)
	var last interface{ Out() <-chan any } = p
	if files != nil {
		go transmit(p, files)
		last = files
	}
	transmit(last, sink)
	sink.AwaitCompletion()
	return got, p.Metrics()
}

// verifyFile checks a written proof against its statement file.
func verifyFile(t *testing.T, path string) flows.Meta {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := os.ReadFile(path + ".json")
	if err != nil {
		t.Fatal(err)
	}
	meta, err := flows.ParseMeta(mb)
	if err != nil {
		t.Fatal(err)
	}
	var pr transcript.Proof
	if meta.Format == "raw" {
		err = pr.UnmarshalRaw(data)
	} else {
		err = pr.UnmarshalWire(data)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := flows.VerifyBatch(&pr, meta.N, meta.LogInvRate); err != nil {
		t.Fatalf("%s: rejected: %v", path, err)
	}
	return meta
}

// checkDir requires dir to hold exactly the proof and statement files of the ok
// results, and nothing else (no temporary or partial files).
func checkDir(t *testing.T, dir string, results []Result) {
	t.Helper()
	want := map[string]bool{}
	for _, r := range results {
		if r.OK {
			want[r.ID+ProofSuffix] = true
			want[r.ID+ProofSuffix+".json"] = true
			for _, path := range r.Also {
				want[filepath.Base(path)] = true
				want[filepath.Base(path)+".json"] = true
			}
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		if !want[e.Name()] {
			t.Errorf("unexpected file %s in the proof directory", e.Name())
		}
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if len(names) != len(want) {
		sort.Strings(names)
		t.Errorf("proof directory holds %v, want the %d files of the ok results", names, len(want))
	}
	for _, r := range results {
		if r.OK {
			if r.Proof != filepath.Join(dir, r.ID+ProofSuffix) {
				t.Errorf("job %s: proof path %q", r.ID, r.Proof)
			}
			verifyFile(t, r.Proof)
			for form, path := range r.Also {
				if path != FormPath(dir, r.ID, form) {
					t.Errorf("job %s: %s form's path %q", r.ID, form, path)
				}
				if m := verifyFile(t, path); m.Format != form {
					t.Errorf("job %s: %s holds the %s form, want %s", r.ID, path, m.Format, form)
				}
			}
		}
	}
}

// checkAccounted requires one result per accepted job, numbered 0..accepted-1 in
// order (when ordered), each error result carrying its error.
func checkAccounted(t *testing.T, results []Result, m Metrics, ordered bool) {
	t.Helper()
	if len(results) != m.Accepted || m.Results != m.Accepted {
		t.Fatalf("%d results, %d emitted, for %d accepted jobs", len(results), m.Results, m.Accepted)
	}
	seen := map[uint64]bool{}
	for i, r := range results {
		if seen[r.Seq] {
			t.Fatalf("job %d has two results", r.Seq)
		}
		seen[r.Seq] = true
		if ordered && r.Seq != uint64(i) {
			t.Fatalf("result %d is job %d's", i, r.Seq)
		}
		if r.OK == (r.Err != nil) || (r.Err != nil && r.Error != r.Err.Error()) {
			t.Fatalf("job %d: ok=%v err=%v error=%q", r.Seq, r.OK, r.Err, r.Error)
		}
	}
	if sum := m.OK + m.Malformed + m.Refused + m.Abandoned + m.Failed; sum != m.Accepted {
		t.Fatalf("outcomes add up to %d of %d accepted", sum, m.Accepted)
	}
}

var errInjected = errors.New("injected failure")

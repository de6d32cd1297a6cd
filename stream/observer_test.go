package stream

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu      sync.Mutex
	provers []*Prover
	proved  []Result
	starts  []time.Time
}

func (r *recorder) Attach(p *Prover) {
	r.mu.Lock()
	r.provers = append(r.provers, p)
	r.mu.Unlock()
}

func (r *recorder) Proved(res Result, start time.Time) {
	r.mu.Lock()
	r.proved = append(r.proved, res)
	r.starts = append(r.starts, start)
	r.mu.Unlock()
}

// TestObserverAndCounts streams good, malformed and failing jobs through a Prover
// started under WithObserver and checks that the observer is attached once, told of
// every proof made (with its spans), and that Counts ends with the results per flow
// and nothing running or pending.
func TestObserverAndCounts(t *testing.T) {
	eng := &probe{eng: newEngine(t), fail: func(n int) error {
		if n == 9 {
			return errInjected
		}
		return nil
	}}
	rec := &recorder{}
	ctx := WithObserver(context.Background(), rec)
	in := `{"id":"a","n":8}
{"id":"bad","n":
{"id":"b","n":16,"seed":3}
{"id":"c","flow":"no-such-flow","n":8}
{"id":"d","n":9}
{"id":"e","n":99999999}
`
	src := NewLineSource(ctx, strings.NewReader(in), "")
	p := NewProver(ctx, eng, Options{InFlight: 2})
	before := time.Now()
	results, m := collect(src, p, nil)
	checkAccounted(t, results, m, true)
	if len(rec.provers) != 1 || rec.provers[0] != p {
		t.Fatalf("attached %d provers", len(rec.provers))
	}
	if len(rec.proved) != 2 || m.OK != 2 {
		t.Fatalf("observer told of %d proofs, %d made", len(rec.proved), m.OK)
	}
	for i, r := range rec.proved {
		if !r.OK || len(r.Proved.Spans) == 0 || r.Bytes == 0 || rec.starts[i].Before(before) {
			t.Fatalf("proof %s: ok %v, %d spans, %d bytes, start %v", r.ID, r.OK, len(r.Proved.Spans), r.Bytes, rec.starts[i])
		}
		for _, s := range r.Proved.Spans {
			if s.Start.Before(rec.starts[i]) {
				t.Fatalf("proof %s: stage %s starts before the job's work", r.ID, s.Name)
			}
		}
	}
	c := p.Counts()
	if c.Running != 0 || c.Pending != 0 || c.Waiting != 0 {
		t.Fatalf("after the stream: %+v", c)
	}
	// "bad" and "c" are refused before their flow is known; "e" (over the limits
	// when parsed) and "d" (failing) are the default flow's errors.
	want := []FlowCount{{Flow: "", Error: 2}, {Flow: "blake2s-batch", OK: 2, Error: 2}}
	if len(c.Jobs) != len(want) {
		t.Fatalf("jobs per flow %+v, want %+v", c.Jobs, want)
	}
	for i := range want {
		if c.Jobs[i] != want[i] {
			t.Fatalf("jobs per flow %+v, want %+v", c.Jobs, want)
		}
	}
}

// TestCountsWhileRunning holds two proofs at a gate and reads Counts meanwhile.
func TestCountsWhileRunning(t *testing.T) {
	gate := make(chan struct{})
	started := make(chan int, 4)
	eng := &probe{eng: newEngine(t), gate: func(int) <-chan struct{} { return gate }, started: started}
	jobs := make(chan Job)
	ctx := context.Background()
	p := NewProver(ctx, eng, Options{InFlight: 2, Pending: 4})
	done := make(chan []Result)
	go func() {
		r, _ := collect(NewChanSource(ctx, jobs), p, nil)
		done <- r
	}()
	for _, id := range []string{"a", "b", "c"} {
		jobs <- Job{ID: id, N: 8}
	}
	<-started
	<-started
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := p.Counts()
		if c.Running == 2 && c.Pending == 3 && c.Waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("counts %+v, want 2 running, 3 pending, 1 waiting", c)
		}
		time.Sleep(time.Millisecond)
	}
	close(gate)
	close(jobs)
	if r := <-done; len(r) != 3 {
		t.Fatalf("%d results", len(r))
	}
}

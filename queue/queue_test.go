package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// checkOne fails unless results hold exactly one ok result per job of jobs.
func checkOne(t *testing.T, jobs []stream.Envelope[stream.Job], results []Result) {
	t.Helper()
	if len(results) != len(jobs) {
		t.Fatalf("%d results for %d jobs", len(results), len(jobs))
	}
	seen := map[string]bool{}
	for i, r := range results {
		if !r.OK {
			t.Errorf("job %s: %s", r.ID, r.Error)
		}
		if r.ID != jobs[i].Val.ID || r.Seq != jobs[i].Seq {
			t.Errorf("result %d is job %s (seq %d), want %s (seq %d)", i, r.ID, r.Seq, jobs[i].Val.ID, jobs[i].Seq)
		}
		if seen[r.ID] {
			t.Errorf("job %s answered twice", r.ID)
		}
		seen[r.ID] = true
		if r.Worker == "" || r.Deliveries < 1 {
			t.Errorf("job %s: worker %q, deliveries %d", r.ID, r.Worker, r.Deliveries)
		}
	}
}

// Two workers on two engines share 20 jobs: one ok result each, every fetched
// proof verifies (Submit verifies; the files are checked again here), no job is
// proved twice and the queue is empty at the end.
func TestTwoWorkers(t *testing.T) {
	o := Options{AckWait: 5 * time.Second}
	ts := startServer(t, o)
	var engs []*testEngine
	var ws []*running
	for _, name := range []string{"w1", "w2"} {
		_, js := ts.connect(t, name)
		e := newEngine(t)
		engs = append(engs, e)
		wo := o
		wo.Worker = name
		ws = append(ws, startWorker(t, js, e, wo, nil))
	}
	_, js := ts.connect(t, "submit")
	jobs := nJobs(t, "j", 20)
	dir := t.TempDir()
	so := o
	so.Fetch = dir
	results, err := submit(t, js, jobs, so, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	checkOne(t, jobs, results)
	for _, r := range results {
		if r.Proof != stream.ProofPath(dir, r.ID) {
			t.Errorf("job %s: proof %q", r.ID, r.Proof)
		}
		data, err := os.ReadFile(r.Proof)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := os.ReadFile(r.Proof + ".json")
		if err != nil {
			t.Fatal(err)
		}
		meta, err := flows.ParseMeta(mb)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := flows.VerifyBytes(data, meta); err != nil {
			t.Errorf("job %s: %v", r.ID, err)
		}
		if meta.N != r.N || len(data) != r.Bytes {
			t.Errorf("job %s: meta n %d, %d bytes; result n %d, %d bytes", r.ID, meta.N, len(data), r.N, r.Bytes)
		}
	}
	var acked, proofs int
	var storeBytes int64
	for i, w := range ws {
		m := w.stop(t)
		acked += m.Acked
		storeBytes += m.StoreBytes
		proofs += int(engs[i].proofs.Load())
		if m.OK != m.Acked {
			t.Errorf("worker %s: %d proved, %d acked", m.Worker, m.OK, m.Acked)
		}
	}
	if acked != 20 || proofs != 20 {
		t.Errorf("%d jobs acked, %d proofs made; want 20 and 20", acked, proofs)
	}
	if storeBytes == 0 {
		t.Error("no store bytes counted")
	}
	if n := streamMsgs(t, js, JobsStream); n != 0 {
		t.Errorf("%d jobs left in the queue", n)
	}
}

// A worker cancelled in the middle of a proof (its context ends, then Abort ends
// the grace) Naks its job; the other worker proves it and there is one result.
func TestCancelledWorkerRedelivers(t *testing.T) {
	o := Options{AckWait: 5 * time.Second}
	ts := startServer(t, o)
	_, jsA := ts.connect(t, "a")
	ea := newEngine(t)
	ea.block = true
	oa := o
	oa.Worker, oa.Grace = "a", time.Hour
	a := startWorker(t, jsA, ea, oa, nil)

	_, js := ts.connect(t, "submit")
	jobs := nJobs(t, "c", 1)
	type out struct {
		rs  []Result
		err error
	}
	got := make(chan out, 1)
	go func() {
		rs, err := submit(t, js, jobs, o, time.Minute)
		got <- out{rs, err}
	}()
	recv(t, ea.started, 30*time.Second, "a's proof")
	_, jsB := ts.connect(t, "b")
	eb := newEngine(t)
	ob := o
	ob.Worker = "b"
	b := startWorker(t, jsB, eb, ob, nil)
	a.cancel()
	a.w.Abort()
	ma := a.stop(t)
	res := recv(t, got, time.Minute, "the results")
	if res.err != nil {
		t.Fatal(res.err)
	}
	checkOne(t, jobs, res.rs)
	// Server 2.9 may count the Nak'ed delivery back (a's other pull request,
	// left waiting at the server, had no interest any more), and may count one
	// more delivery to that stale pull request: b's delivery is the second or,
	// there, the first or the third.
	if r := res.rs[0]; r.Worker != "b" || r.Deliveries < 1 || r.Deliveries > 3 {
		t.Errorf("answered by %s at delivery %d, want b at 1 to 3", r.Worker, r.Deliveries)
	}
	// The same stale pull request may hand the Nak'ed job back to a while it aborts
	// (seen once in a CI run under -tags=purego): a then Naks it again, unproved. So
	// a Naks and abandons the job once or twice, the same number of times, and
	// publishes nothing.
	if ma.Nacked < 1 || ma.Nacked > 2 || ma.Abandoned != ma.Nacked || ma.Published != 0 {
		t.Errorf("worker a: %d nacked, %d abandoned, %d published; want 1 or 2, as many, 0", ma.Nacked, ma.Abandoned, ma.Published)
	}
	wantRe := 0
	if res.rs[0].Deliveries > 1 {
		wantRe = 1
	}
	if mb := b.stop(t); mb.Acked != 1 || mb.Redeliveries != wantRe {
		t.Errorf("worker b: %d redeliveries, %d acked; want %d, 1", mb.Redeliveries, mb.Acked, wantRe)
	}
}

// A worker whose connection dies mid-proof (as under SIGKILL: no Nak) loses its
// lease after AckWait; the other worker proves the job; one result.
func TestDeadWorkerLeaseExpires(t *testing.T) {
	o := Options{AckWait: time.Second}
	ts := startServer(t, o)
	ncA, jsA := ts.connect(t, "a")
	ea := newEngine(t)
	ea.block = true
	oa := o
	oa.Worker = "a"
	a := startWorker(t, jsA, ea, oa, nil)
	_, js := ts.connect(t, "submit")
	jobs := nJobs(t, "k", 1)
	got := make(chan []Result, 1)
	go func() {
		rs, err := submit(t, js, jobs, o, time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- rs
	}()
	recv(t, ea.started, 30*time.Second, "a's proof")
	ncA.Close()
	_, jsB := ts.connect(t, "b")
	ob := o
	ob.Worker = "b"
	startWorker(t, jsB, newEngine(t), ob, nil)
	rs := recv(t, got, time.Minute, "the results")
	checkOne(t, jobs, rs)
	if rs[0].Worker != "b" || rs[0].Deliveries != 2 {
		t.Errorf("answered by %s at delivery %d, want b at 2", rs[0].Worker, rs[0].Deliveries)
	}
	a.stop(t)
}

// resultsOf subscribes (core NATS) to the results of job id.
func resultsOf(t *testing.T, nc *nats.Conn, id string) *nats.Subscription {
	t.Helper()
	sub, err := nc.SubscribeSync(ResultsSubject + id)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// A malformed job published by hand gets one error result and is terminated, not
// redelivered; so does a job whose id cannot be a subject token. Submit refuses
// malformed lines itself, without publishing them.
func TestMalformedJob(t *testing.T) {
	o := Options{AckWait: 300 * time.Millisecond, Worker: "w"}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	w := startWorker(t, jsW, e, o, nil)
	nc, js := ts.connect(t, "t")
	if _, err := Ensure(context.Background(), js, o); err != nil {
		t.Fatal(err)
	}
	bad := resultsOf(t, nc, "bad")
	dotted := resultsOf(t, nc, "job-2")
	ctx := context.Background()
	if _, err := js.Publish(ctx, JobsSubject+flows.DefaultName, []byte(`{"id":"bad","n":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, JobsSubject+flows.DefaultName, []byte(`{"id":"a.b","n":8}`)); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []*nats.Subscription{bad, dotted} {
		m, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		r, err := parseResult(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		if r.OK || !strings.Contains(r.Error, "malformed") || r.Deliveries != 1 || r.Worker != "w" {
			t.Errorf("%s: %+v", m.Subject, r)
		}
	}
	time.Sleep(4 * o.AckWait) // a redelivery would have come by now
	for _, sub := range []*nats.Subscription{bad, dotted} {
		if m, err := sub.NextMsg(10 * time.Millisecond); err == nil {
			t.Errorf("second result: %s", m.Data)
		}
	}
	if n := streamMsgs(t, js, JobsStream); n != 0 {
		t.Errorf("%d jobs left in the queue", n)
	}

	// Submit's own refusals: an unreadable line, a dotted id, a repeated id.
	jobs := parseJobs(t, `{"id":"x","n":`, `{"id":"d.d","n":8}`, `{"id":"r","n":8}`, `{"id":"r","n":16}`)
	rs, err := submit(t, js, jobs, o, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || rs[0].OK || rs[1].OK || !rs[2].OK || rs[3].OK {
		t.Fatalf("results %+v", rs)
	}
	if !errors.Is(rs[0].Err, stream.ErrJob) || !errors.Is(rs[1].Err, stream.ErrJob) || !errors.Is(rs[3].Err, stream.ErrBusy) {
		t.Errorf("errors: %v; %v; %v", rs[0].Err, rs[1].Err, rs[3].Err)
	}
	m := w.stop(t)
	if m.Terminated != 2 || m.Malformed != 2 || m.Redeliveries != 0 || e.proofs.Load() != 1 {
		t.Errorf("worker: %d terminated, %d malformed, %d redeliveries, %d proofs; want 2, 2, 0, 1",
			m.Terminated, m.Malformed, m.Redeliveries, e.proofs.Load())
	}
}

// A job over the limits is refused before any work: by Submit over the flow's
// limit (not published), by the worker over its own MaxN (an error result, no
// proof started).
func TestSizeLimit(t *testing.T) {
	o := Options{AckWait: 5 * time.Second, Worker: "w", MaxN: 32}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	w := startWorker(t, jsW, e, o, nil)
	_, js := ts.connect(t, "t")

	jobs := parseJobs(t, fmt.Sprintf(`{"id":"huge","n":%d}`, flows.MaxBatch+1), `{"id":"big","n":64}`)
	rs, err := submit(t, js, jobs, Options{AckWait: 5 * time.Second}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.OK || !errors.Is(r.Err, stream.ErrLimit) && !strings.Contains(r.Error, "over the limits") {
			t.Errorf("job %s: %+v", r.ID, r)
		}
	}
	if rs[0].Worker != "" || rs[1].Worker != "w" || rs[1].Deliveries != 1 {
		t.Errorf("huge answered by %q, big by %q at delivery %d", rs[0].Worker, rs[1].Worker, rs[1].Deliveries)
	}
	s, _ := js.Stream(context.Background(), JobsStream)
	if info, _ := s.Info(context.Background()); info.State.LastSeq != 1 {
		t.Errorf("%d jobs published, want 1 (the job over the flow's limit is not)", info.State.LastSeq)
	}
	m := w.stop(t)
	if e.proofs.Load() != 0 || m.Refused != 1 || m.Terminated != 1 {
		t.Errorf("%d proofs, %d refused, %d terminated; want 0, 1, 1", e.proofs.Load(), m.Refused, m.Terminated)
	}
}

// A job whose estimated memory is over the worker's budget is refused before any
// work, and the error result names the budget and what set it, as serve's does.
func TestMemoryBudgetRefused(t *testing.T) {
	o := Options{AckWait: 5 * time.Second, Worker: "w", MemoryBudget: 1 << 20, BudgetFrom: "--memory-budget"}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	w := startWorker(t, jsW, e, o, nil)
	_, js := ts.connect(t, "t")
	rs, err := submit(t, js, parseJobs(t, `{"id":"big","n":64}`), Options{AckWait: 5 * time.Second}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].OK || !strings.Contains(rs[0].Error, "over the memory budget of 1.0 MiB, --memory-budget") {
		t.Fatalf("results %+v, want job big refused over the memory budget, naming --memory-budget", rs)
	}
	m := w.stop(t)
	if e.proofs.Load() != 0 || m.Refused != 1 {
		t.Errorf("%d proofs, %d refused; want 0, 1", e.proofs.Load(), m.Refused)
	}
}

// A worker that dies after storing a proof and before answering leaves the job to
// a redelivery, which the other worker answers from the store without proving; a
// resubmission of the same job is answered from the store too.
func TestRedeliveryAnsweredFromStore(t *testing.T) {
	o := Options{AckWait: time.Second}
	ts := startServer(t, o)
	ncA, jsA := ts.connect(t, "a")
	stored := make(chan string, 1)
	oa := o
	oa.Worker = "a"
	a := startWorker(t, jsA, newEngine(t), oa, func(w *Worker) {
		w.afterStore = func(_ context.Context, id string) {
			ncA.Close() // dies: no result, no ack
			stored <- id
		}
	})
	_, js := ts.connect(t, "submit")
	jobs := nJobs(t, "s", 1)
	got := make(chan []Result, 1)
	go func() {
		rs, err := submit(t, js, jobs, o, time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- rs
	}()
	recv(t, stored, 30*time.Second, "a's stored proof")
	_, jsB := ts.connect(t, "b")
	eb := newEngine(t)
	ob := o
	ob.Worker = "b"
	ob.Out = t.TempDir()
	b := startWorker(t, jsB, eb, ob, nil)
	rs := recv(t, got, time.Minute, "the results")
	checkOne(t, jobs, rs)
	if rs[0].Worker != "b" || rs[0].Deliveries != 2 {
		t.Errorf("answered by %s at delivery %d, want b at 2", rs[0].Worker, rs[0].Deliveries)
	}
	// Resubmitted unchanged: a new message, answered from the store.
	dir := t.TempDir()
	rs, err := submit(t, js, jobs, Options{AckWait: time.Second, Fetch: dir}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	checkOne(t, jobs, rs)
	if _, err := os.Stat(stream.ProofPath(ob.Out, jobs[0].Val.ID)); err != nil {
		t.Errorf("worker b's local copy: %v", err)
	}
	mb := b.stop(t)
	if eb.proofs.Load() != 0 || mb.FromStore != 2 || mb.Acked != 2 {
		t.Errorf("worker b: %d proofs, %d from the store, %d acked; want 0, 2, 2", eb.proofs.Load(), mb.FromStore, mb.Acked)
	}
	a.stop(t)
}

// A job delivered more than MaxDeliver times goes to the dead-letter subject with
// an error result, without being proved, and leaves the queue.
func TestDeadLetter(t *testing.T) {
	o := Options{AckWait: time.Second, MaxDeliver: 2}
	ts := startServer(t, o)
	_, js := ts.connect(t, "t")
	sh, err := Ensure(context.Background(), js, o)
	if err != nil {
		t.Fatal(err)
	}
	jobs := nJobs(t, "dl", 1)
	got := make(chan []Result, 1)
	go func() {
		rs, err := submit(t, js, jobs, o, time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- rs
	}()
	// Two deliveries that "kill their worker": taken and given back.
	for range o.MaxDeliver {
		msg, err := sh.Workers.Next(jetstream.FetchMaxWait(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if err := msg.Nak(); err != nil {
			t.Fatal(err)
		}
	}
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	ow := o
	ow.Worker = "w"
	w := startWorker(t, jsW, e, ow, nil)
	rs := recv(t, got, time.Minute, "the results")
	if len(rs) != 1 || rs[0].OK || !strings.Contains(rs[0].Error, "delivered too many times") || rs[0].Deliveries != 3 {
		t.Fatalf("results %+v", rs)
	}
	if n := streamMsgs(t, js, DeadStream); n != 1 {
		t.Errorf("%d dead letters stored, want 1", n)
	}
	dead, err := sh.Dead.GetLastMsgForSubject(context.Background(), DeadSubject+flows.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	if dead.Header.Get(HeaderDeliveries) != "3" || dead.Header.Get(HeaderID) != jobs[0].Val.ID {
		t.Errorf("dead letter headers %v", dead.Header)
	}
	m := w.stop(t)
	if e.proofs.Load() != 0 || m.DeadLetters != 1 || m.Terminated != 1 {
		t.Errorf("%d proofs, %d dead letters, %d terminated; want 0, 1, 1", e.proofs.Load(), m.DeadLetters, m.Terminated)
	}
	if n := streamMsgs(t, js, JobsStream); n != 0 {
		t.Errorf("%d jobs left in the queue", n)
	}
}

// A worker holds at most InFlight pulled, unacked jobs.
func TestInFlightBound(t *testing.T) {
	o := Options{AckWait: 5 * time.Second, InFlight: 1, Worker: "w"}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	e.block = true
	w := startWorker(t, jsW, e, o, nil)
	_, js := ts.connect(t, "t")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = Submit(ctx, js, nJobs(t, "f", 5), o) }()
	recv(t, e.started, 30*time.Second, "the proof")
	time.Sleep(300 * time.Millisecond)
	c, err := js.Consumer(context.Background(), JobsStream, Consumer)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.NumAckPending != 1 || info.NumPending != 4 {
		t.Errorf("%d unacked, %d waiting; want 1 and 4", info.NumAckPending, info.NumPending)
	}
	if m := w.stop(t); m.Pulled != 1 || m.Nacked != 1 {
		t.Errorf("pulled %d, nacked %d; want 1 and 1", m.Pulled, m.Nacked)
	}
}

// The NATS server stopped and restarted on the same store in the middle of a
// stream of jobs: no job is lost, each has one ok result.
func TestServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a server")
	}
	o := Options{AckWait: 2 * time.Second}
	ts := startServer(t, o)
	var ws []*running
	for _, name := range []string{"w1", "w2"} {
		_, js := ts.connect(t, name)
		wo := o
		wo.Worker = name
		ws = append(ws, startWorker(t, js, newEngine(t), wo, nil))
	}
	_, js := ts.connect(t, "submit")
	jobs := nJobs(t, "r", 16)
	type out struct {
		rs  []Result
		err error
	}
	got := make(chan out, 1)
	go func() {
		rs, err := submit(t, js, jobs, Options{AckWait: o.AckWait, Fetch: t.TempDir()}, 2*time.Minute)
		got <- out{rs, err}
	}()
	waitFor(t, "a few results", 30*time.Second, func() bool {
		return ws[0].w.Metrics().Published+ws[1].w.Metrics().Published >= 3
	})
	ts.restart(300 * time.Millisecond)
	res := recv(t, got, time.Minute, "the results")
	if res.err != nil {
		t.Fatal(res.err)
	}
	checkOne(t, jobs, res.rs)
	waitFor(t, "an empty queue", 30*time.Second, func() bool { return streamMsgs(t, js, JobsStream) == 0 })
}

// A job with the id of a stored proof made from another job is proved again, and
// the fetched proof is the new one; NoWait returns once the jobs are published.
func TestSameIDOtherJob(t *testing.T) {
	o := Options{Worker: "w"}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	w := startWorker(t, jsW, e, o, nil)
	_, js := ts.connect(t, "t")
	first := parseJobs(t, `{"id":"x","n":8}`)
	rs, err := submit(t, js, first, Options{NoWait: true}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || !rs[0].OK || !rs[0].Queued || rs[0].Worker != "" {
		t.Fatalf("no-wait results %+v", rs)
	}
	waitFor(t, "the first proof", 30*time.Second, func() bool { return w.w.Metrics().Acked == 1 })
	second := parseJobs(t, `{"id":"x","n":16,"format":"raw"}`)
	dir := t.TempDir()
	rs, err = submit(t, js, second, Options{Fetch: dir}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	checkOne(t, second, rs)
	if rs[0].N != 16 || rs[0].Form != "raw" || e.proofs.Load() != 2 {
		t.Errorf("n %d, format %s, %d proofs; want 16, raw, 2", rs[0].N, rs[0].Form, e.proofs.Load())
	}
	mb, err := os.ReadFile(stream.ProofPath(dir, "x") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if meta, err := flows.ParseMeta(mb); err != nil || meta.N != 16 || meta.Format != "raw" {
		t.Errorf("fetched statement %+v, %v", meta, err)
	}
	if m := w.stop(t); m.FromStore != 0 {
		t.Errorf("%d answered from the store, want 0", m.FromStore)
	}
}

// Ensure is idempotent and brings the consumer to the caller's settings.
func TestEnsureUpdates(t *testing.T) {
	o := Options{}
	ts := startServer(t, o)
	_, js := ts.connect(t, "t")
	ctx := context.Background()
	for _, wait := range []time.Duration{7 * time.Second, 7 * time.Second, 30 * time.Second} {
		sh, err := Ensure(ctx, js, Options{AckWait: wait, MaxDeliver: 3})
		if err != nil {
			t.Fatal(err)
		}
		info, err := sh.Workers.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Config.AckWait != wait || info.Config.MaxDeliver != 5 {
			t.Errorf("ack wait %v, max deliver %d; want %v, 5", info.Config.AckWait, info.Config.MaxDeliver, wait)
		}
		st, err := sh.Proofs.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.TTL() != ProofsTTL {
			t.Errorf("proofs kept %v, want %v", st.TTL(), ProofsTTL)
		}
	}
	s, _ := js.Stream(ctx, ResultsStream)
	if c := s.CachedInfo().Config; c.MaxAge != ResultsMaxAge || c.Retention != jetstream.LimitsPolicy {
		t.Errorf("results stream: max age %v, retention %v", c.MaxAge, c.Retention)
	}
	s, _ = js.Stream(ctx, JobsStream)
	if c := s.CachedInfo().Config; c.Retention != jetstream.WorkQueuePolicy || c.MaxMsgSize != stream.MaxLineBytes {
		t.Errorf("jobs stream: retention %v, max message %d", c.Retention, c.MaxMsgSize)
	}
}

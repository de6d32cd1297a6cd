package queue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Worker proves the jobs of the shared queue on one Engine until its context ends.
type Worker struct {
	js  jetstream.JetStream
	eng stream.Engine
	o   Options

	mu    sync.Mutex
	m     Metrics
	p     *stream.Prover
	store jetstream.ObjectStore
	busy  map[string]bool      // job ids held by this worker
	held  map[uint64]*delivery // jobs handed to the Prover, by envelope seq
	seq   uint64               // next envelope seq

	// afterStore, for tests, runs after a proof is stored and before its result
	// is published.
	afterStore func(ctx context.Context, id string)
}

// delivery is one pulled message, from its pull to its ack, term or nak.
type delivery struct {
	msg       jetstream.Msg
	streamSeq uint64        // the job's sequence in JobsStream (the same on every delivery)
	n         int           // deliveries so far, this one included
	subSeq    uint64        // the job's place in its submission (HeaderSeq), else streamSeq
	token     string        // HeaderSubmission
	id        string        // the result subject's token
	key       string        // jobKey of the parsed job
	reserved  bool          // id held in busy
	kids      []storedChild // a merge job's children, read from the bucket
	tmp       string        // a merge job's children's files (removed when done)
	stop      chan struct{}
	once      sync.Once
}

// NewWorker prepares a worker proving on eng; Run starts it.
func NewWorker(js jetstream.JetStream, eng stream.Engine, o Options) *Worker {
	o = o.withDefaults()
	return &Worker{js: js, eng: eng, o: o, busy: map[string]bool{}, held: map[uint64]*delivery{},
		m: Metrics{Worker: o.Worker}}
}

// Metrics returns the worker's metrics so far (final once Run has returned).
func (w *Worker) Metrics() Metrics {
	w.mu.Lock()
	m, p := w.m, w.p
	w.mu.Unlock()
	if p != nil {
		m.Metrics = p.Metrics()
	}
	return m
}

// Abort cancels the running proofs now, as a second signal does in serve: their
// jobs are Nak'ed. Without it, proofs running when Run's context ends get Grace.
func (w *Worker) Abort() {
	w.mu.Lock()
	p := w.p
	w.mu.Unlock()
	if p != nil {
		p.Abort()
	}
}

func (w *Worker) count(f func(m *Metrics)) {
	w.mu.Lock()
	f(&w.m)
	w.mu.Unlock()
}

// Run ensures the shared objects (waiting for the server if needed), then pulls and
// proves jobs until ctx ends. At the end it stops pulling, gives running proofs
// Options.Grace, Naks the jobs it gives up, and returns once every pulled job is
// acked, terminated, Nak'ed or left to its lease.
func (w *Worker) Run(ctx context.Context) (Metrics, error) {
	sh, err := Ensure(ctx, w.js, w.o)
	if err != nil {
		return w.Metrics(), err
	}
	if w.o.Out != "" {
		if err := os.MkdirAll(w.o.Out, 0o755); err != nil {
			return w.Metrics(), fmt.Errorf("queue: proof directory: %w", err)
		}
	}
	p := stream.NewProver(ctx, w.eng, w.o.proverOptions())
	w.mu.Lock()
	w.p, w.store = p, sh.Proofs
	w.mu.Unlock()

	// Finishing a job (store, publish, ack) outlives ctx: a proof made is kept.
	fin := context.WithoutCancel(ctx)
	slots := make(chan struct{}, w.o.InFlight)
	var finishing, feeding sync.WaitGroup
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		for v := range p.Out() {
			env := v.(stream.Envelope[stream.Result])
			w.mu.Lock()
			d := w.held[env.Seq]
			delete(w.held, env.Seq)
			w.mu.Unlock()
			if d == nil {
				panic(fmt.Sprintf("queue: the prover returned an unknown job (seq %d)", env.Seq))
			}
			finishing.Add(1)
			go func() {
				defer finishing.Done()
				defer func() { <-slots }()
				w.finish(fin, d, env.Val)
			}()
		}
	}()

	wait := 50 * time.Millisecond
pull:
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break pull
		}
		msg, err := w.next(ctx, sh.Workers)
		if msg == nil {
			<-slots
			if ctx.Err() != nil {
				break pull
			}
			if err != nil {
				// The server is away: wait and pull again.
				select {
				case <-time.After(wait):
				case <-ctx.Done():
				}
				wait = min(2*wait, time.Second)
			}
			continue
		}
		wait = 50 * time.Millisecond
		feeding.Add(1)
		go func() {
			defer feeding.Done()
			if !w.handle(ctx, fin, msg) {
				<-slots
			}
		}()
	}
	feeding.Wait()
	close(p.In())
	<-outDone
	finishing.Wait()
	return w.Metrics(), nil
}

// next pulls one job, waiting up to 5 s; it returns nil without an error when
// none came.
func (w *Worker) next(ctx context.Context, c jetstream.Consumer) (jetstream.Msg, error) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := c.Next(jetstream.FetchContext(cctx))
	if err != nil {
		if errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, nil
		}
		return nil, err
	}
	return msg, nil
}

// handle reads one pulled job and either finishes it at once (dead letter, answer
// from the store, id busy: it returns false) or hands it to the Prover (true; the
// result finishes it).
func (w *Worker) handle(ctx, fin context.Context, msg jetstream.Msg) bool {
	d := &delivery{msg: msg, stop: make(chan struct{})}
	if md, err := msg.Metadata(); err == nil {
		d.streamSeq, d.n = md.Sequence.Stream, int(md.NumDelivered)
	}
	w.count(func(m *Metrics) {
		m.Pulled++
		if d.n > 1 {
			m.Redeliveries++
		}
	})
	go w.lease(d)
	hdr := msg.Headers()
	d.token = hdr.Get(HeaderSubmission)
	d.subSeq = d.streamSeq
	if s, err := strconv.ParseUint(hdr.Get(HeaderSeq), 10, 64); err == nil {
		d.subSeq = s
	}
	defID := hdr.Get(HeaderID)
	if CheckID(defID) != nil {
		defID = fmt.Sprintf("job-%d", d.streamSeq)
	}

	var job stream.Job
	var err error
	if data := msg.Data(); len(data) > stream.MaxLineBytes {
		err = fmt.Errorf("%w: job %s: %d bytes, at most %d", stream.ErrLimit, defID, len(data), stream.MaxLineBytes)
	} else {
		job, err = stream.ParseJob(data, "", defID)
	}
	if job.ID == "" {
		job.ID = defID
	}
	if err == nil {
		err = CheckID(job.ID)
	}
	d.id = job.ID
	if CheckID(d.id) != nil {
		d.id = defID
	}
	if job.Flow == "" {
		job.Flow = w.o.Flow
	}

	if d.n > w.o.MaxDeliver {
		w.deadLetter(fin, d, job)
		return false
	}
	if err == nil && isMergeJob(&job) {
		if err = checkMergeJob(&job); err == nil {
			d.kids, err = loadChildren(ctx, w.store, &job, w.window())
		}
		if err != nil && !errors.Is(err, stream.ErrJob) && !errors.Is(err, stream.ErrLimit) {
			// The bucket could not be read: another delivery tries again.
			w.logf("queue: job %s: its children could not be read (the job is left to its lease): %v", d.id, err)
			w.count(func(m *Metrics) { m.Unfinished++ })
			w.done(d)
			return false
		}
		if err == nil {
			d.key = mergeKey(job, d.kids)
		}
	}
	if err == nil {
		if d.key == "" {
			digestInput(&job, w.o.MaxInputBytes)
			d.key = jobKey(job)
		}
		if r, ok := w.fromStore(ctx, d, job); ok {
			w.count(func(m *Metrics) { m.FromStore++ })
			w.answer(fin, d, r)
			return false
		}
		w.mu.Lock()
		busy := w.busy[job.ID]
		if !busy {
			w.busy[job.ID], d.reserved = true, true
		}
		w.mu.Unlock()
		if busy {
			// The same id is being proved here: try again after a lease, when
			// the store will most likely answer it.
			_ = msg.NakWithDelay(w.o.AckWait)
			w.count(func(m *Metrics) { m.Nacked++ })
			w.done(d)
			return false
		}
		if d.kids != nil {
			d.tmp, err = writeChildren(&job, d.kids)
			d.kids = nil
		}
	}
	job.Unordered = true
	w.mu.Lock()
	s := w.seq
	w.seq++
	w.held[s] = d
	w.mu.Unlock()
	w.p.In() <- stream.Envelope[stream.Job]{Seq: s, Val: job, Err: err}
	return true
}

// lease renews the job's ack wait every AckWait/3 until the job is finished.
func (w *Worker) lease(d *delivery) {
	t := time.NewTicker(w.o.AckWait / 3)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = d.msg.InProgress()
		case <-d.stop:
			return
		}
	}
}

// done ends the job's lease and frees its id.
func (w *Worker) done(d *delivery) {
	d.once.Do(func() {
		close(d.stop)
		if d.tmp != "" {
			os.RemoveAll(d.tmp)
		}
	})
	if d.reserved {
		w.mu.Lock()
		delete(w.busy, d.id)
		w.mu.Unlock()
	}
}

// window is how long a worker retries storing, publishing and acking while the
// server is away, before leaving the job to its lease.
func (w *Worker) window() time.Duration { return max(10*time.Second, w.o.AckWait) }

// finish handles the Prover's result for a job: an abandoned job is Nak'ed, a
// proof is stored, answered and acked, an error is answered and terminated.
func (w *Worker) finish(fin context.Context, d *delivery, res stream.Result) {
	if d.tmp != "" {
		// A merge's errors name its children by object, not by their local files,
		// which are not needed any more.
		res.Error = strings.ReplaceAll(res.Error, d.tmp+string(os.PathSeparator), "")
		os.RemoveAll(d.tmp)
		d.tmp = ""
	}
	if errors.Is(res.Err, stream.ErrAbandoned) {
		defer w.done(d)
		if err := d.msg.Nak(); err == nil {
			w.count(func(m *Metrics) { m.Nacked++ })
		} else {
			w.count(func(m *Metrics) { m.Unfinished++ })
		}
		return
	}
	r := Result{Result: res, Worker: w.o.Worker, Deliveries: d.n}
	r.Seq, r.Data = d.subSeq, nil
	if !res.OK {
		w.answer(fin, d, r)
		return
	}
	// The other forms first, each statement before its proof, and the job's proof
	// object last: once it exists, so does everything the job asked for.
	var err error
	var stored int64
	for _, e := range res.Extra {
		var n int64
		n, err = w.put(fin, FormName(res.ID, e.Meta.Format), d.key, e.Data, e.Meta)
		stored += n
		if err != nil {
			break
		}
		if r.AlsoObjects == nil {
			r.AlsoObjects = map[string]string{}
		}
		r.AlsoObjects[e.Meta.Format] = FormName(res.ID, e.Meta.Format)
	}
	name := ProofName(res.ID)
	r.Object = name
	if err == nil {
		var n int64
		n, err = w.put(fin, name, d.key, res.Data, res.Meta)
		stored += n
	}
	w.count(func(m *Metrics) { m.StoreBytes += stored })
	if err != nil {
		// Not stored: leave the job to its lease, another delivery proves it again.
		w.logf("queue: job %s: its proof could not be stored (the job is left to its lease): %v", res.ID, err)
		w.count(func(m *Metrics) { m.Unfinished++ })
		w.done(d)
		return
	}
	if w.o.Out != "" {
		err := flows.WriteProofBytes(stream.ProofPath(w.o.Out, res.ID), res.Data, res.Meta)
		for _, e := range res.Extra {
			if err == nil {
				err = flows.WriteProofBytes(stream.FormPath(w.o.Out, res.ID, e.Meta.Format), e.Data, e.Meta)
			}
		}
		if err != nil {
			w.count(func(m *Metrics) { m.LocalFailures++ }) // the stored proof is the result
		}
	}
	if w.afterStore != nil {
		w.afterStore(fin, res.ID)
	}
	w.answer(fin, d, r)
}

// put stores a proof object (name, tagged with the job's key) and its statement
// (name.json, first), retrying while the server is away; it returns the bytes put.
func (w *Worker) put(fin context.Context, name, key string, data []byte, meta flows.Meta) (int64, error) {
	mb, _ := json.MarshalIndent(meta, "", "  ")
	mb = append(mb, '\n')
	err := retry(fin, func(ctx context.Context) error {
		_, err := w.store.PutBytes(ctx, name+".json", mb)
		return err
	}, w.window())
	if err != nil {
		return 0, err
	}
	err = retry(fin, func(ctx context.Context) error {
		_, err := w.store.Put(ctx, jetstream.ObjectMeta{Name: name, Headers: nats.Header{HeaderJob: []string{key}}},
			bytes.NewReader(data))
		return err
	}, w.window())
	if err != nil {
		return int64(len(mb)), err
	}
	return int64(len(mb) + len(data)), nil
}

// logf reports a failure no result carries (Options.Logf).
func (w *Worker) logf(format string, args ...any) {
	if w.o.Logf != nil {
		w.o.Logf(format, args...)
	}
}

// resultRoom is what a result message's headers and subject may take of the
// server's max payload.
const resultRoom = 1 << 10

// answer publishes the job's result, then acks the job (ok) or terminates it. A
// result too large for the server's max payload is logged and replaced by a short
// error result (the job is terminated, never redelivered). When the result cannot be
// published the job is left to its lease.
func (w *Worker) answer(fin context.Context, d *delivery, r Result) {
	defer w.done(d)
	data := r.JSON()
	limit := w.js.Conn().MaxPayload()
	if limit > 0 && int64(len(data))+resultRoom > limit {
		r, data = w.tooLarge(d, r, len(data), limit), nil
	}
	publish := func(data []byte) error {
		msg := &nats.Msg{Subject: ResultsSubject + d.id, Data: data, Header: nats.Header{}}
		if d.token != "" {
			msg.Header.Set(HeaderSubmission, d.token)
		}
		return retry(fin, func(ctx context.Context) error {
			_, err := w.js.PublishMsg(ctx, msg, jetstream.WithMsgID(fmt.Sprintf("result-%d", d.streamSeq)))
			return err
		}, w.window())
	}
	if data == nil {
		data = r.JSON()
	}
	err := publish(data)
	if errors.Is(err, nats.ErrMaxPayload) {
		r = w.tooLarge(d, r, len(data), limit)
		err = publish(r.JSON())
	}
	if err != nil {
		w.logf("queue: job %s: its result could not be published (the job is left to its lease): %v", d.id, err)
		w.count(func(m *Metrics) { m.Unfinished++ })
		return
	}
	w.count(func(m *Metrics) { m.Published++ })
	if r.OK {
		err = retry(fin, func(ctx context.Context) error { return d.msg.DoubleAck(ctx) }, w.window())
		if err != nil {
			w.logf("queue: job %s: its result is published but the ack failed (the job is left to its lease): %v", d.id, err)
		}
		w.count(func(m *Metrics) {
			if err == nil {
				m.Acked++
			} else {
				m.Unfinished++
			}
		})
		return
	}
	err = d.msg.Term()
	w.count(func(m *Metrics) {
		if err == nil {
			m.Terminated++
		} else {
			m.Unfinished++
		}
	})
}

// fromStore answers a job from the proofs bucket when its proof is there and was
// made from the same job.
func (w *Worker) fromStore(ctx context.Context, d *delivery, job stream.Job) (Result, bool) {
	id := job.ID
	name := ProofName(id)
	info, err := w.store.GetInfo(ctx, name)
	if err != nil || info.Headers.Get(HeaderJob) != d.key {
		return Result{}, false
	}
	var also map[string]string
	for _, form := range job.Extras() {
		fi, err := w.store.GetInfo(ctx, FormName(id, form))
		if err != nil || fi.Headers.Get(HeaderJob) != d.key {
			return Result{}, false
		}
		if also == nil {
			also = map[string]string{}
		}
		also[form] = FormName(id, form)
	}
	mb, err := w.store.GetBytes(ctx, name+".json")
	if err != nil {
		return Result{}, false
	}
	meta, err := flows.ParseMeta(mb)
	if err != nil {
		return Result{}, false
	}
	r := Result{Result: stream.Result{Seq: d.subSeq, ID: id, OK: true, Flow: meta.Flow, N: meta.N,
		Bytes: int(info.Size), Form: meta.Format}, Object: name, AlsoObjects: also, Worker: w.o.Worker, Deliveries: d.n}
	if w.o.Out != "" {
		err := copyOut(ctx, w.store, name, stream.ProofPath(w.o.Out, id), &meta)
		for _, form := range job.Extras() {
			if err == nil {
				err = copyOut(ctx, w.store, FormName(id, form), stream.FormPath(w.o.Out, id, form), nil)
			}
		}
		if err != nil {
			w.count(func(m *Metrics) { m.LocalFailures++ })
		}
	}
	return r, true
}

// copyOut writes a stored proof object and its statement to path (serve's files);
// meta, when given, is the statement already read.
func copyOut(ctx context.Context, store jetstream.ObjectStore, name, path string, meta *flows.Meta) error {
	if meta == nil {
		mb, err := store.GetBytes(ctx, name+".json")
		if err != nil {
			return err
		}
		m, err := flows.ParseMeta(mb)
		if err != nil {
			return err
		}
		meta = &m
	}
	data, err := store.GetBytes(ctx, name)
	if err != nil {
		return err
	}
	return flows.WriteProofBytes(path, data, *meta)
}

// deadLetter copies a job delivered more than MaxDeliver times to the dead-letter
// subject, answers it with an ErrDead result and terminates it.
func (w *Worker) deadLetter(fin context.Context, d *delivery, job stream.Job) {
	flow := job.Flow
	if !tokenPattern.MatchString(flow) {
		flow = "unknown"
	}
	reason := fmt.Sprintf("delivered %d times, at most %d are proved", d.n, w.o.MaxDeliver)
	dm := &nats.Msg{Subject: DeadSubject + flow, Data: d.msg.Data(), Header: nats.Header{}}
	for k, v := range d.msg.Headers() {
		if k != nats.MsgIdHdr {
			dm.Header[k] = v
		}
	}
	dm.Header.Set(HeaderReason, reason)
	dm.Header.Set(HeaderDeliveries, strconv.Itoa(d.n))
	dm.Header.Set(HeaderSubject, d.msg.Subject())
	err := retry(fin, func(ctx context.Context) error {
		_, err := w.js.PublishMsg(ctx, dm, jetstream.WithMsgID(fmt.Sprintf("dead-%d", d.streamSeq)))
		return err
	}, w.window())
	if err != nil {
		// The server delivers it once more (MaxDeliver+2), for another try.
		w.logf("queue: job %s: its dead letter could not be published (the job is left to its lease): %v", d.id, err)
		w.count(func(m *Metrics) { m.Unfinished++ })
		w.done(d)
		return
	}
	w.count(func(m *Metrics) { m.DeadLetters++ })
	r := failedResult(d.subSeq, job.ID, fmt.Errorf("%w: job %s: %s; copied to %s", ErrDead, job.ID, reason, dm.Subject))
	r.Worker, r.Deliveries = w.o.Worker, d.n
	w.answer(fin, d, r)
}

// jobKey is the digest of what a job's proof depends on: its flow, its input's
// contents (Job.InputSHA256, never its path) or generated instances, form and rate,
// and the other form it asks for (a job resubmitted unchanged has the same key; the
// same path with other contents has another).
func jobKey(j stream.Job) string {
	seed := j.Seed
	if j.N > 0 && seed == nil {
		one := uint64(1)
		seed = &one
	}
	b, _ := json.Marshal(struct {
		Flow        string
		InputSHA256 string
		N           int
		Seed        *uint64
		Format      string
		LogInvRate  int
		Also        []string `json:",omitempty"`
	}{j.Flow, j.InputSHA256, j.N, seed, j.Format, j.LogInvRate, j.Extras()})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// digestInput fills the InputSHA256 of a job with an input file that carries none
// (a job not made by Submit), reading the file, so that its key is its contents'
// and the Prover refuses the file if it changes before it is read again. A file that
// cannot be read is left to the Prover's error.
func digestInput(j *stream.Job, maxBytes int64) {
	if j.File() == "" || j.InputSHA256 != "" {
		return
	}
	if maxBytes <= 0 {
		maxBytes = 1 << 30
	}
	f, err := os.Open(j.File())
	if err != nil {
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil || int64(len(data)) > maxBytes {
		return
	}
	j.InputSHA256 = stream.InputDigest(data)
}

// tooLarge logs a result of size bytes over the server's max payload and returns
// the short error result that replaces it.
func (w *Worker) tooLarge(d *delivery, r Result, size int, limit int64) Result {
	w.logf("queue: job %s: its result (%d bytes) is over the NATS server's max payload (%d bytes); answering with a short error", d.id, size, limit)
	short := failedResult(r.Seq, r.ID, fmt.Errorf("queue: job %s: its result (%d bytes) is over the NATS server's max payload (%d bytes); the start of its error: %s",
		r.ID, size, limit, stream.BoundText(r.Error, 256)))
	short.Worker, short.Deliveries = r.Worker, r.Deliveries
	return short
}

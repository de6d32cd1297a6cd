package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// ReadJobs reads JSON-lines jobs as serve does (stream.LineSource); a line that is
// not a valid job is an envelope carrying its error, which Submit answers with an
// error result. Relative input paths ("input", "blocks", "signatures") are resolved
// against base, made absolute; they are opened by the worker, so they must name
// files the workers can read at that same path (shared storage).
func ReadJobs(ctx context.Context, r io.Reader, base string) ([]stream.Envelope[stream.Job], error) {
	if base != "" {
		if abs, err := filepath.Abs(base); err == nil {
			base = abs
		}
	}
	src := stream.NewLineSource(ctx, r, base)
	var jobs []stream.Envelope[stream.Job]
	for v := range src.Out() {
		env := v.(stream.Envelope[stream.Job])
		// A queued merge job's children are proof objects, not files: undo the
		// source's resolution of them against base.
		for i, c := range env.Val.Children {
			if base != "" && filepath.Dir(c) == base {
				env.Val.Children[i] = filepath.Base(c)
			}
		}
		jobs = append(jobs, env)
	}
	if err := src.Err(); err != nil {
		return jobs, err
	}
	return jobs, ctx.Err()
}

// Submit publishes jobs to the shared queue (Ensure first) and returns exactly one
// result per job, in job order (Result.Seq is the envelope's Seq):
//   - a job that cannot be queued (an envelope error, an id outside
//     [A-Za-z0-9_-], an id given twice, over stream.MaxLineBytes or Options.MaxN,
//     not a valid job) gets an error result at once and is not published;
//   - with Options.NoWait a published job's result has OK and Queued set;
//   - otherwise the first result message carrying this submission's token, from
//     whichever worker answered (Worker, Deliveries);
//   - when ctx ends first, the jobs still waiting get ErrNoResult results and
//     Submit returns an error wrapping ErrNoResult.
//
// With Options.Fetch each ok result's proof and statement are downloaded to
// DIR/<id>.proof.bin and .proof.bin.json, checked to come from this job and
// verified (flows.VerifyBytes); one that fails becomes an ErrFetch error result.
func Submit(ctx context.Context, js jetstream.JetStream, jobs []stream.Envelope[stream.Job], o Options) ([]Result, error) {
	o = o.withDefaults()
	if o.Fetch != "" {
		if err := os.MkdirAll(o.Fetch, 0o755); err != nil {
			return nil, fmt.Errorf("queue: fetch directory: %w", err)
		}
	}
	sh, err := Ensure(ctx, js, o)
	if err != nil {
		return nil, err
	}

	type queued struct {
		prepared
		i        int // index in results
		answered bool
	}
	results := make([]Result, len(jobs))
	byID := map[string]*queued{}
	var order []*queued
	for i, env := range jobs {
		q, err := prepare(env, o)
		id := env.Val.ID
		if err == nil && byID[id] != nil {
			err = fmt.Errorf("%w: job %s: the id is given twice", stream.ErrBusy, id)
		}
		if err != nil {
			results[i] = failedResult(env.Seq, id, err)
			continue
		}
		if q.want.job.Children != nil {
			err = prepareMerge(ctx, sh.Proofs, &q, o.tree)
		}
		if err != nil {
			results[i] = failedResult(env.Seq, id, err)
			continue
		}
		results[i] = Result{Result: stream.Result{Seq: env.Seq, ID: id}}
		byID[id] = &queued{prepared: q, i: i}
		order = append(order, byID[id])
	}

	token := nuid.Next()
	var incoming <-chan jetstream.Msg
	if !o.NoWait && len(order) > 0 {
		ch, stop, err := watchResults(ctx, js, sh.Results)
		if err != nil {
			return nil, err
		}
		defer stop()
		incoming = ch
	}

	for _, q := range order {
		r := &results[q.i]
		msg := &nats.Msg{Subject: q.subject, Data: q.data, Header: nats.Header{}}
		msg.Header.Set(HeaderSubmission, token)
		msg.Header.Set(HeaderSeq, strconv.FormatUint(r.Seq, 10))
		msg.Header.Set(HeaderID, r.ID)
		err := retry(ctx, func(ctx context.Context) error {
			_, err := js.PublishMsg(ctx, msg, jetstream.WithMsgID(token+"-"+r.ID))
			return err
		}, 0)
		if err != nil {
			return nil, fmt.Errorf("queue: publishing job %s: %w", r.ID, err)
		}
		if o.NoWait {
			r.OK, r.Queued = true, true
		}
	}
	if o.NoWait {
		return results, nil
	}

	waiting := len(order)
	for waiting > 0 {
		var m jetstream.Msg
		select {
		case m = <-incoming:
		case <-ctx.Done():
		}
		if m == nil {
			break
		}
		if m.Headers().Get(HeaderSubmission) != token {
			continue
		}
		id := strings.TrimPrefix(m.Subject(), ResultsSubject)
		q := byID[id]
		if q == nil || q.answered {
			continue // not ours, or a second answer
		}
		q.answered = true
		r, err := parseResult(m.Data())
		if err != nil {
			r = failedResult(0, id, fmt.Errorf("queue: job %s: unreadable result: %w", id, err))
		}
		r.Seq, r.ID = results[q.i].Seq, id
		results[q.i] = r
		waiting--
	}
	var missing int
	for _, q := range order {
		if r := &results[q.i]; !q.answered {
			*r = failedResult(r.Seq, r.ID, fmt.Errorf("%w: job %s: %v", ErrNoResult, r.ID, context.Cause(ctx)))
			missing++
		}
	}

	if o.Fetch != "" {
		for _, q := range order {
			if r := &results[q.i]; r.OK {
				if err := fetch(ctx, sh.Proofs, r, q.prepared, o.Fetch); err != nil {
					w, n := r.Worker, r.Deliveries
					*r = failedResult(r.Seq, r.ID, err)
					r.Worker, r.Deliveries = w, n
				}
			}
		}
	}
	sort.SliceStable(results, func(a, b int) bool { return results[a].Seq < results[b].Seq })
	if missing > 0 {
		return results, fmt.Errorf("%w for %d of %d jobs: %v", ErrNoResult, missing, len(jobs), context.Cause(ctx))
	}
	return results, nil
}

// prepared is a job ready to publish.
type prepared struct {
	subject string
	data    []byte
	key     string
	extras  []string   // the other proof form asked for (Job.Formats)
	want    *expected  // what the job's proof must prove
	merge   *mergeWant // for a merge job, what its merged proof must state
}

// prepare checks a job as a worker will and encodes it. A job with an input file has
// the file read now: its digest goes into the job (Job.InputSHA256, which the worker
// checks and the job key is made of) and the statement it proves is recorded, so
// that a fetched proof is checked against this input and not the worker's word.
func prepare(env stream.Envelope[stream.Job], o Options) (prepared, error) {
	if env.Err != nil {
		return prepared{}, env.Err
	}
	job := env.Val
	if err := CheckID(job.ID); err != nil {
		return prepared{}, err
	}
	if job.Value != nil {
		return prepared{}, fmt.Errorf("%w: job %s: a Go value cannot be queued; give \"n\" or \"input\"", stream.ErrJob, job.ID)
	}
	if job.Flow == "" {
		job.Flow = o.Flow
	}
	job.Unordered = false
	subject, err := flowSubject(job.Flow)
	if err != nil {
		return prepared{}, fmt.Errorf("job %s: %w", job.ID, err)
	}
	// The worker's checks and defaults, before the input is read.
	if job, err = parseEncoded(job); err != nil {
		return prepared{}, err
	}
	if isMergeJob(&job) {
		if err := checkMergeJob(&job); err != nil {
			return prepared{}, err
		}
	}
	want := &expected{}
	if job.File() != "" && !isMergeJob(&job) {
		if want.st, err = readInput(&job, o.MaxInputBytes); err != nil {
			return prepared{}, err
		}
		want.have = true
		if o.MaxN > 0 && want.st.N > o.MaxN {
			return prepared{}, fmt.Errorf("%w: job %s: %d instances, at most %d", stream.ErrLimit, job.ID, want.st.N, o.MaxN)
		}
	}
	data, err := json.Marshal(job)
	if err != nil {
		return prepared{}, fmt.Errorf("%w: job %s: %v", stream.ErrJob, job.ID, err)
	}
	if len(data) > stream.MaxLineBytes {
		return prepared{}, fmt.Errorf("%w: job %s: %d bytes, at most %d", stream.ErrLimit, job.ID, len(data), stream.MaxLineBytes)
	}
	// What the worker will parse: the same checks and defaults.
	parsed, err := stream.ParseJob(data, "", "")
	if err != nil {
		return prepared{}, err
	}
	if o.MaxN > 0 && parsed.N > o.MaxN {
		return prepared{}, fmt.Errorf("%w: job %s: %d instances, at most %d", stream.ErrLimit, job.ID, parsed.N, o.MaxN)
	}
	want.job = parsed
	return prepared{subject: subject, data: data, key: jobKey(parsed), extras: parsed.Extras(), want: want}, nil
}

// parseEncoded runs the worker's parse of a job (its JSON form).
func parseEncoded(job stream.Job) (stream.Job, error) {
	data, err := json.Marshal(job)
	if err != nil {
		return stream.Job{}, fmt.Errorf("%w: job %s: %v", stream.ErrJob, job.ID, err)
	}
	return stream.ParseJob(data, "", "")
}

// watchResults streams the results stream's messages published from now on
// (an ordered consumer, which survives server restarts); stop ends it.
func watchResults(ctx context.Context, js jetstream.JetStream, results jetstream.Stream) (<-chan jetstream.Msg, func(), error) {
	info, err := results.Info(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("queue: results stream: %w", err)
	}
	oc, err := js.OrderedConsumer(ctx, ResultsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{ResultsSubject + ">"},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    info.State.LastSeq + 1,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("queue: watching results: %w", err)
	}
	ch := make(chan jetstream.Msg)
	done := make(chan struct{})
	cc, err := oc.Consume(func(m jetstream.Msg) {
		select {
		case ch <- m:
		case <-done:
		}
	}, jetstream.PullExpiry(5*time.Second), jetstream.PullHeartbeat(time.Second))
	if err != nil {
		return nil, nil, fmt.Errorf("queue: watching results: %w", err)
	}
	return ch, func() { close(done); cc.Stop() }, nil
}

// fetch downloads a result's proof and statement (and its other forms'), checks that
// each proof object was made from this job and states what the job asked for (the
// statement derived from its input at submit time, the form it asked for), verifies it
// against that statement and writes the files as serve does: the other forms first,
// the job's proof last.
func fetch(ctx context.Context, store jetstream.ObjectStore, r *Result, q prepared, dir string) error {
	if q.merge != nil {
		return fetchMerged(ctx, store, r, q, dir)
	}
	want, err := q.want.statement()
	if err != nil {
		return fmt.Errorf("%w: job %s: %v", ErrFetch, r.ID, err)
	}
	also := map[string]string{}
	for _, form := range q.extras {
		path := stream.FormPath(dir, r.ID, form)
		if err := fetchOne(ctx, store, r.ID, FormName(r.ID, form), form, q.key, want, path); err != nil {
			return err
		}
		also[form] = path
	}
	path := stream.ProofPath(dir, r.ID)
	if err := fetchOne(ctx, store, r.ID, ProofName(r.ID), q.want.job.Format, q.key, want, path); err != nil {
		return err
	}
	r.Proof = path
	if len(also) > 0 {
		r.Also = also
	}
	return nil
}

// fetchOne downloads one proof object and its statement, checks its job key, that
// its statement is want in form, verifies the proof against want (not against the
// stored statement) and writes both to path.
func fetchOne(ctx context.Context, store jetstream.ObjectStore, id, name, form, key string, want flows.Statement, path string) error {
	info, data, mb, err := getProof(ctx, store, name)
	if err != nil {
		return fmt.Errorf("%w: job %s: %s: %v", ErrFetch, id, name, err)
	}
	if got := info.Headers.Get(HeaderJob); got != key {
		return fmt.Errorf("%w: job %s: the stored %s was made from another job", ErrFetch, id, name)
	}
	meta, err := flows.ParseMeta(mb)
	if err != nil {
		return fmt.Errorf("%w: job %s: %s: %v", ErrFetch, id, name, err)
	}
	if field := diffStatement(meta, want, form); field != "" {
		return fmt.Errorf("%w: job %s: %s states another statement than the job's input: %s differs", ErrFetch, id, name, field)
	}
	fl, err := flows.Lookup(want.Flow)
	if err != nil {
		return fmt.Errorf("%w: job %s: %v", ErrFetch, id, err)
	}
	meta = flows.NewMetaFor(fl, want, form)
	if _, err := flows.VerifyBytes(data, meta); err != nil {
		return fmt.Errorf("%w: job %s: %s does not prove the job's statement: %v", ErrFetch, id, name, err)
	}
	if err := flows.WriteProofBytes(path, data, meta); err != nil {
		return fmt.Errorf("%w: job %s: %v", ErrFetch, id, err)
	}
	return nil
}

// getProof reads a stored proof object, its PROOF.json and its info, retrying while
// the server is away.
func getProof(ctx context.Context, store jetstream.ObjectStore, name string) (info *jetstream.ObjectInfo, data, meta []byte, err error) {
	err = retry(ctx, func(ctx context.Context) error {
		var err error
		if info, err = store.GetInfo(ctx, name); err != nil {
			return err
		}
		if meta, err = store.GetBytes(ctx, name+".json"); err != nil {
			return err
		}
		data, err = store.GetBytes(ctx, name)
		return err
	}, 0)
	return info, data, meta, err
}

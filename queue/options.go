package queue

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the JetStream objects every worker and submitter shares.
const (
	JobsStream    = "LEANPIPE_JOBS"
	ResultsStream = "LEANPIPE_RESULTS"
	DeadStream    = "LEANPIPE_DEAD"
	Consumer      = "leanpipe-workers"
	Bucket        = "leanpipe-proofs"

	// JobsSubject is followed by the flow name, ResultsSubject by the job id,
	// DeadSubject by the flow name (or "unknown").
	JobsSubject    = "leanpipe.jobs."
	ResultsSubject = "leanpipe.results."
	DeadSubject    = "leanpipe.dead."
)

// Retention of the shared objects. Jobs stay in LEANPIPE_JOBS until acked or
// terminated (no age limit, at most stream.MaxLineBytes a job).
const (
	ResultsMaxAge = 24 * time.Hour
	DeadMaxAge    = 7 * 24 * time.Hour
	ProofsTTL     = 7 * 24 * time.Hour
)

// Message headers.
const (
	// HeaderSubmission carries the submission token from a job to its result.
	HeaderSubmission = "Leanpipe-Submission"
	// HeaderSeq carries the job's position in its submission (Result.Seq).
	HeaderSeq = "Leanpipe-Seq"
	// HeaderID names the job, so that even an unreadable job's result has a subject.
	HeaderID = "Leanpipe-Id"
	// HeaderJob, on a proof object, is the digest of the job that made it (jobKey).
	HeaderJob = "Leanpipe-Job"
	// HeaderReason and HeaderDeliveries describe a dead letter; HeaderSubject is
	// the subject the job was published on.
	HeaderReason     = "Leanpipe-Reason"
	HeaderDeliveries = "Leanpipe-Deliveries"
	HeaderSubject    = "Leanpipe-Subject"
)

// Errors carried by results and returned by Submit; match them with errors.Is. A
// result's error may also wrap stream.ErrJob, stream.ErrLimit or stream.ErrBusy.
var (
	// ErrDead marks a job delivered more than MaxDeliver times.
	ErrDead = errors.New("queue: job delivered too many times")
	// ErrNoResult marks a submitted job whose result did not arrive in time.
	ErrNoResult = errors.New("queue: no result")
	// ErrFetch marks an ok result whose proof could not be fetched or does not verify.
	ErrFetch = errors.New("queue: fetching the proof")
)

// Options configure workers (NewWorker), submitters (Submit) and the shared
// JetStream objects (Ensure). AckWait and MaxDeliver are consumer settings: every
// worker and submitter should pass the same values, since each caller of Ensure
// updates the consumer to its own.
type Options struct {
	// URL is the NATS server list (nats.DefaultURL when empty); Creds a
	// credentials file; TLSCA a CA certificate file for the server's certificate.
	// Creds and TLSCA are never logged.
	URL, Creds, TLSCA string
	// Worker names this worker in its results and metrics (default: the host name
	// and process id).
	Worker string
	// RetryConnect makes Connect return at once when the server cannot be reached
	// yet and keep trying in the background (a worker started before its server);
	// otherwise Connect fails.
	RetryConnect bool

	// AckWait is the lease of a pulled job (0 means 30 s); a worker renews it
	// every AckWait/3 while it holds the job.
	AckWait time.Duration
	// InFlight is the most pulled, unacked jobs per worker (0 means 2); it is also
	// the most proofs the worker runs at once.
	InFlight int
	// MaxDeliver is the most deliveries that may be proved (0 means 5); the next
	// delivery goes to the dead-letter subject.
	MaxDeliver int

	// MemoryBudget, BudgetFrom, MaxN, MaxInputBytes, Grace, Cores, Flow and Verify
	// are passed to the worker's stream.Prover (see stream.Options). Flow is also
	// the flow of submitted jobs that name none.
	MemoryBudget  int64
	BudgetFrom    string
	MaxN          int
	MaxInputBytes int64
	Grace         time.Duration
	Cores         int
	Flow          string
	Verify        bool

	// Out, when set, is a directory where a worker also writes each proof as
	// serve does (DIR/<id>.proof.bin and its .json).
	Out string

	// NoWait makes Submit return once every job is published.
	NoWait bool
	// Fetch, when set, is a directory where Submit writes each ok result's proof
	// (DIR/<id>.proof.bin and its .json) after verifying it.
	Fetch string

	// Merger, when set, makes a worker's merge jobs ("children": proof objects of
	// the bucket; merge.go); without it a worker answers them with an error.
	Merger *stream.Merger

	// tree, set by SubmitTree, is what its merge job's proof must state.
	tree *mergeWant

	// Logf, when set, receives a worker's failures that no result reports: a
	// result, dead letter, proof or ack that could not be published (the job is
	// then left to its lease), a result too large to publish.
	Logf func(format string, args ...any)
}

func (o Options) withDefaults() Options {
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.InFlight <= 0 {
		o.InFlight = 2
	}
	if o.MaxDeliver <= 0 {
		o.MaxDeliver = 5
	}
	if o.Flow == "" {
		o.Flow = flows.DefaultName
	}
	if o.Worker == "" {
		host, _ := os.Hostname()
		o.Worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	return o
}

// proverOptions are the worker's stream.Prover options: one pending job per
// pulled job, so the Prover never holds a job the worker has not pulled.
func (o Options) proverOptions() stream.Options {
	return stream.Options{
		InFlight: o.InFlight, Pending: o.InFlight, MemoryBudget: o.MemoryBudget, BudgetFrom: o.BudgetFrom,
		MaxN: o.MaxN, MaxInputBytes: o.MaxInputBytes, Grace: o.Grace, Cores: o.Cores,
		Flow: o.Flow, Verify: o.Verify, Merger: o.Merger,
	}
}

// Connect opens a NATS connection with the options' URL, credentials and CA (it
// reconnects without limit; with RetryConnect it also waits for a first connection)
// and its JetStream context.
func Connect(o Options) (*nats.Conn, jetstream.JetStream, error) {
	o = o.withDefaults()
	url := o.URL
	if url == "" {
		url = nats.DefaultURL
	}
	opts := []nats.Option{
		nats.Name("leanpipe " + o.Worker),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
	}
	if o.RetryConnect {
		opts = append(opts, nats.RetryOnFailedConnect(true))
	}
	if o.Creds != "" {
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("queue: connecting to NATS: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("queue: JetStream: %w", err)
	}
	return nc, js, nil
}

// CheckID reports whether id can name a queued job: stream.CheckID, the one rule
// for serve, submit and workers (1 to 128 of A-Z a-z 0-9 _ -; an id is a subject
// token). Its error wraps stream.ErrJob.
func CheckID(id string) error { return stream.CheckID(id) }

// subjectToken reports whether s can be one subject token.
var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// flowSubject is the jobs subject of a flow name; an empty name is the default
// flow. It fails for a flow name that is not one subject token.
func flowSubject(name string) (string, error) {
	if name == "" {
		name = flows.DefaultName
	}
	if !tokenPattern.MatchString(name) {
		return "", fmt.Errorf("%w: flow %q cannot be a subject token", stream.ErrJob, name)
	}
	return JobsSubject + name, nil
}

// ProofName is the proof object of job id in the bucket; its statement sidecar
// is ProofName(id)+".json".
func ProofName(id string) string { return id + stream.ProofSuffix }

// FormName is the object of job id's proof in its other form (a job's "formats"):
// <id>.proof.<form>.bin, with its statement in FormName(id, form)+".json".
func FormName(id, form string) string { return id + stream.FormSuffix(form) }

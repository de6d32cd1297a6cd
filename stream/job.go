package stream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/keccak"
)

// Errors carried by error results; match them with errors.Is.
var (
	// ErrJob marks a job that could not be read or is not well formed.
	ErrJob = errors.New("stream: malformed job")
	// ErrLimit marks a job refused before any work: over the batch or file size
	// limits, or needing more memory than the whole budget.
	ErrLimit = errors.New("stream: job over the limits")
	// ErrAbandoned marks an accepted job given up on at shutdown.
	ErrAbandoned = errors.New("stream: job abandoned at shutdown")
	// ErrBusy marks a job whose id is the id of a job still in flight, or, with
	// Options.UniqueIDs, of any earlier job of the stream.
	ErrBusy = errors.New("stream: job id in flight")
)

// MaxLineBytes bounds one JSON job (a line on a reader, a job file).
const MaxLineBytes = 1 << 20

// Job is one proof of a flow (the default flow, the BLAKE2s batch, when Flow is
// empty): its input is a file (Input; Blocks is the batch flow's name for it,
// Signatures the xmss-aggregate flow's), N
// generated instances (N, Seed, as `leanpipe prove --n N --seed S`), or, for library
// users, a Go value the flow accepts (Value). Exactly one of the three is set.
type Job struct {
	// ID names the job's results and files (DIR/<ID>.proof.bin) and, on the queue,
	// its result subject: 1 to 128 of A-Z a-z 0-9 _ - (CheckID; one rule for serve,
	// submit and the queue's workers).
	ID string `json:"id"`
	// Flow names a registered flow (flows.Names); empty is flows.DefaultName.
	Flow string `json:"flow,omitempty"`
	// Input is an input file in the flow's layout (for the batch flow, the
	// reference blocks layout); Blocks is the same for the batch flow. A relative
	// path is taken relative to the source's base directory.
	Input  string `json:"input,omitempty"`
	Blocks string `json:"blocks,omitempty"`
	// Signatures is the xmss-aggregate flow's input file (the JSON of message, epoch
	// and signers; relative like Input). A job giving it without "flow" is an
	// xmss-aggregate job.
	Signatures string `json:"signatures,omitempty"`
	// States is the keccak-batch flow's input file (N × 200 bytes of input
	// states; relative like Input). A job giving it without "flow" is a
	// keccak-batch job.
	States string `json:"states,omitempty"`
	// InputSHA256, when set, is the SHA-256 of the input file's contents as
	// lowercase hex (leanpipe submit records it): a file whose contents differ when
	// the job is proved is refused, so a proof is never made of another input than
	// the one submitted. Only a job with an input file may carry it.
	InputSHA256 string `json:"input_sha256,omitempty"`
	// N and Seed describe generated instances (Seed defaults to 1).
	N    int     `json:"n,omitempty"`
	Seed *uint64 `json:"seed,omitempty"`
	// Format is the proof form written: "wire" (default) or "raw".
	Format string `json:"format,omitempty"`
	// Formats asks for both forms, ["wire","raw"] or ["raw","wire"]: the first is
	// the job's Format (its result's "format", written as DIR/<id>.proof.bin), the
	// other is written beside it as DIR/<id>.proof.<form>.bin (FormPath) with its own
	// statement sidecar; one proof is made and encoded twice. "format", when also
	// given, must be the first. A one-form list is the same as "format".
	Formats []string `json:"formats,omitempty"`
	// LogInvRate is the WHIR level-0 log inverse rate (default 1, the reference's).
	LogInvRate int `json:"log_inv_rate,omitempty"`
	// Unordered lets the job's result leave as soon as it is done instead of in
	// job order.
	Unordered bool `json:"unordered,omitempty"`
	// Value, for library users, is proved as given (flows.Flow.FromValue).
	Value any `json:"-"`
	// Children, when set, makes the job a merge of xmss-aggregate leaf proofs
	// (relative like Input), with Signatures, if given, as one more leaf
	// (merge.go).
	Children []string `json:"children,omitempty"`
	// Nestable, in a merge job, makes a no-reveal merged proof, which can itself be a
	// child of a merge (leanpipe prove --child … --nestable); a no-reveal child makes
	// one anyway.
	Nestable bool `json:"nestable,omitempty"`

	flow    flows.Flow  // resolved by check
	decoded flows.Input // the input file, when size parsed it (not yet checked)
}

// Result is the outcome of one job. Exactly one Result is produced per accepted job.
type Result struct {
	Seq   uint64  `json:"seq"`
	ID    string  `json:"id"`
	OK    bool    `json:"ok"`
	Proof string  `json:"proof,omitempty"`  // proof file written (ProofFiles)
	Flow  string  `json:"flow,omitempty"`   // the flow proved
	N     int     `json:"n,omitempty"`      // instances proved
	MS    float64 `json:"ms,omitempty"`     // load + prove time of the job
	Bytes int     `json:"bytes,omitempty"`  // proof size in its format
	Form  string  `json:"format,omitempty"` // proof form
	// Also names the job's other proof form's file (Job.Formats): form → path.
	Also  map[string]string `json:"also,omitempty"`
	Error string            `json:"error,omitempty"`

	// Err is the error of a failed job (Error is its text).
	Err error `json:"-"`
	// Meta is the proof's statement; Data the encoded proof, until ProofFiles has
	// written it; Proved the Engine's record (proof, shape, spans).
	Meta   flows.Meta   `json:"-"`
	Data   []byte       `json:"-"`
	Proved flows.Proved `json:"-"`
	// Extra are the job's other forms (Job.Formats), encoded, until written.
	Extra []Encoded `json:"-"`
}

// Encoded is a proof in one more form, with its statement.
type Encoded struct {
	Meta flows.Meta
	Data []byte
}

// Extras are the forms of a job's Formats after its first (none without Formats).
func (j *Job) Extras() []string {
	if len(j.Formats) < 2 {
		return nil
	}
	return j.Formats[1:]
}

func failed(seq uint64, id string, err error) Result {
	return Result{Seq: seq, ID: id, Err: err, Error: BoundText(err.Error(), MaxErrorBytes)}
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// CheckID reports whether id can name a job: 1 to 128 of A-Z a-z 0-9 _ - (a file
// name and a NATS subject token). Its error is an *IDError.
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return &IDError{ID: id}
	}
	return nil
}

// IDError is the error of a job whose id is missing or breaks the id rule
// (CheckID); it wraps ErrJob.
type IDError struct{ ID string }

func (e *IDError) Error() string {
	if e.ID == "" {
		return ErrJob.Error() + `: missing "id"`
	}
	return fmt.Sprintf("%v: id %q: a job id is 1 to 128 of A-Z a-z 0-9 _ -", ErrJob, e.ID)
}

func (e *IDError) Unwrap() error { return ErrJob }

var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// File is the job's input file ("input", "signatures" or "blocks"), "" for
// generated instances or a Go value.
func (j *Job) File() string { return j.file() }

// InputDigest is the SHA-256 of an input file's contents as lowercase hex, the form
// of Job.InputSHA256.
func InputDigest(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// ParseJob decodes one JSON job strictly (unknown keys, trailing data and wrong
// types are errors) and checks it; base resolves a relative blocks path and
// defaultID names a job without "id" (empty: the id is required). Errors wrap ErrJob,
// or ErrLimit for sizes over the limits.
func ParseJob(data []byte, base, defaultID string) (Job, error) {
	var j Job
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&j)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("data after the job object")
		}
	}
	if err != nil {
		// Name the job in its error result when its id can still be read.
		var named struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(data, &named)
		if named.ID == "" || !idPattern.MatchString(named.ID) {
			named.ID = defaultID
		}
		return Job{ID: named.ID}, fmt.Errorf("%w: %v", ErrJob, err)
	}
	if j.ID == "" {
		j.ID = defaultID
	}
	if j.Blocks != "" && !filepath.IsAbs(j.Blocks) && base != "" {
		j.Blocks = filepath.Join(base, j.Blocks)
	}
	if j.Input != "" && !filepath.IsAbs(j.Input) && base != "" {
		j.Input = filepath.Join(base, j.Input)
	}
	if j.Signatures != "" && !filepath.IsAbs(j.Signatures) && base != "" {
		j.Signatures = filepath.Join(base, j.Signatures)
	}
	if j.States != "" && !filepath.IsAbs(j.States) && base != "" {
		j.States = filepath.Join(base, j.States)
	}
	for i, c := range j.Children {
		if c != "" && !filepath.IsAbs(c) && base != "" {
			j.Children[i] = filepath.Join(base, c)
		}
	}
	if err := j.check(0); err != nil {
		return j, err
	}
	return j, nil
}

// check validates a job's fields, resolves its flow and fills defaults; it reads no
// file. maxN bounds the instances (0: the flow's own limit).
func (j *Job) check(maxN int) error {
	if err := CheckID(j.ID); err != nil {
		return err
	}
	if j.isMerge() {
		return j.checkMerge()
	}
	if j.Nestable {
		return fmt.Errorf("%w: job %s: \"nestable\" goes with \"children\" (a merge job)", ErrJob, j.ID)
	}
	if j.Signatures != "" && j.Flow == "" {
		j.Flow = aggregate.FlowName
	}
	if j.States != "" && j.Flow == "" {
		j.Flow = keccak.FlowName
	}
	f, err := flows.Lookup(j.Flow)
	if err != nil {
		return fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
	}
	j.flow = f
	if j.Blocks != "" && f.Name() != flows.Name {
		return fmt.Errorf("%w: job %s: \"blocks\" is the %s flow's input; give \"input\" for %s", ErrJob, j.ID, flows.Name, f.Name())
	}
	if j.Signatures != "" && f.Name() != aggregate.FlowName {
		return fmt.Errorf("%w: job %s: \"signatures\" is the %s flow's input; give \"input\" for %s", ErrJob, j.ID, aggregate.FlowName, f.Name())
	}
	if j.States != "" && f.Name() != keccak.FlowName {
		return fmt.Errorf("%w: job %s: \"states\" is the %s flow's input; give \"input\" for %s", ErrJob, j.ID, keccak.FlowName, f.Name())
	}
	if maxN <= 0 || maxN > f.MaxN() {
		maxN = f.MaxN()
	}
	set := 0
	if j.Blocks != "" {
		set++
	}
	if j.Input != "" {
		set++
	}
	if j.Signatures != "" {
		set++
	}
	if j.States != "" {
		set++
	}
	if j.N != 0 || j.Seed != nil {
		set++
	}
	if j.Value != nil {
		set++
	}
	if set != 1 {
		return fmt.Errorf("%w: job %s: give exactly one of \"input\" (or \"blocks\", \"signatures\", \"states\") or \"n\"", ErrJob, j.ID)
	}
	if j.InputSHA256 != "" {
		if j.file() == "" {
			return fmt.Errorf("%w: job %s: \"input_sha256\" without an input file", ErrJob, j.ID)
		}
		if !sha256Pattern.MatchString(j.InputSHA256) {
			return fmt.Errorf("%w: job %s: input_sha256 %q: want 64 lowercase hex digits", ErrJob, j.ID, j.InputSHA256)
		}
	}
	if j.Seed != nil && j.N == 0 {
		return fmt.Errorf("%w: job %s: \"seed\" without \"n\"", ErrJob, j.ID)
	}
	if j.N < 0 || (j.file() == "" && j.Value == nil && j.N == 0) {
		return fmt.Errorf("%w: job %s: n = %d, want at least 1", ErrJob, j.ID, j.N)
	}
	if j.N > maxN {
		return fmt.Errorf("%w: job %s: %d instances, at most %d", ErrLimit, j.ID, j.N, maxN)
	}
	if len(j.Formats) > 0 {
		switch {
		case len(j.Formats) > 2:
			return fmt.Errorf("%w: job %s: formats %q: give wire, raw or both once", ErrJob, j.ID, j.Formats)
		case j.Format != "" && j.Format != j.Formats[0]:
			return fmt.Errorf("%w: job %s: format %q is not the first of formats %q", ErrJob, j.ID, j.Format, j.Formats)
		case len(j.Formats) == 2 && j.Formats[0] == j.Formats[1]:
			return fmt.Errorf("%w: job %s: formats %q names a form twice", ErrJob, j.ID, j.Formats)
		}
		for _, f := range j.Formats {
			if f != "wire" && f != "raw" {
				return fmt.Errorf("%w: job %s: formats: %q, want wire or raw", ErrJob, j.ID, f)
			}
		}
		j.Format = j.Formats[0]
		if len(j.Formats) == 1 {
			j.Formats = nil
		}
	}
	switch j.Format {
	case "":
		j.Format = "wire"
	case "wire", "raw":
	default:
		return fmt.Errorf("%w: job %s: format %q, want wire or raw", ErrJob, j.ID, j.Format)
	}
	if j.LogInvRate == 0 {
		j.LogInvRate = 1
	}
	if err := f.Check(1, j.LogInvRate); err != nil {
		return fmt.Errorf("%w: job %s: log_inv_rate: %v", ErrJob, j.ID, err)
	}
	return nil
}

// maxN is the most instances the job may have under a stream limit (0: none).
func (j *Job) maxN(limit int) int {
	if limit <= 0 || limit > j.flow.MaxN() {
		return j.flow.MaxN()
	}
	return limit
}

// file is the job's input file, if any.
func (j *Job) file() string {
	switch {
	case j.Input != "":
		return j.Input
	case j.Signatures != "":
		return j.Signatures
	case j.States != "":
		return j.States
	}
	return j.Blocks
}

// size returns the job's instance count before any work on it. An input file is
// refused by stat when larger than maxBytes; its count from its size (the flow's
// FileN, exact for fixed-size instances, an upper bound for a signatures file) only
// ever admits it: when that count does not fit (fits false), the file is read (its
// input_sha256 checked), parsed and counted exactly, so no file is refused by a
// guess. Its signatures, if any, are not verified here (load does). A Go value is
// converted here.
func (j *Job) size(maxBytes int64, fits func(n int) bool) (int, error) {
	switch {
	case j.Value != nil:
		in, err := j.flow.FromValue(j.Value)
		if err != nil {
			return 0, fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
		}
		j.Value = in
		return in.Len(), nil
	case j.file() == "":
		return j.N, nil
	}
	path := j.file()
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%w: job %s: input %s is not a regular file", ErrJob, j.ID, path)
	}
	if st.Size() > maxBytes {
		return 0, fmt.Errorf("%w: job %s: input file %s has %d bytes, at most %d",
			ErrLimit, j.ID, path, st.Size(), maxBytes)
	}
	n, err := j.flow.FileN(st.Size())
	if err != nil {
		return 0, fmt.Errorf("%w: job %s: input %s: %v", ErrJob, j.ID, path, err)
	}
	if fits(n) {
		return n, nil
	}
	in, err := j.read(path, maxBytes)
	if err != nil {
		return 0, err
	}
	j.decoded = in
	return in.Len(), nil
}

// read reads and parses the job's input file (at most maxBytes), checking its
// input_sha256.
func (j *Job) read(path string, maxBytes int64) (flows.Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
	}
	defer f.Close()
	// The file may have grown since it was sized: read at most one byte past the limit.
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%w: job %s: input file %s grew over %d bytes", ErrLimit, j.ID, path, maxBytes)
	}
	if j.InputSHA256 != "" {
		if got := InputDigest(data); got != j.InputSHA256 {
			return nil, fmt.Errorf("%w: job %s: input %s changed since the job was made: its sha256 is %s, the job's input_sha256 %s",
				ErrJob, j.ID, path, got, j.InputSHA256)
		}
	}
	in, err := j.flow.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: job %s: input %s: %v", ErrJob, j.ID, path, err)
	}
	return in, nil
}

// load returns the job's input. An input file's instances are counted (at most maxN)
// before its check (flows.CheckInput: an aggregate's signatures verified) runs.
func (j *Job) load(maxBytes int64, maxN int) (flows.Input, error) {
	switch {
	case j.Value != nil:
		if in, ok := j.Value.(flows.Input); ok {
			return in, nil
		}
		in, err := j.flow.FromValue(j.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
		}
		return in, nil
	case j.file() == "":
		seed := uint64(1)
		if j.Seed != nil {
			seed = *j.Seed
		}
		in, err := j.flow.Generate(j.N, seed)
		if err != nil {
			return nil, fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
		}
		return in, nil
	}
	in := j.decoded
	if in == nil {
		var err error
		if in, err = j.read(j.file(), maxBytes); err != nil {
			return nil, err
		}
	}
	j.decoded = nil
	if n := in.Len(); n < 1 || n > maxN {
		return nil, fmt.Errorf("%w: job %s: input %s: %d instances (want 1..%d)", ErrLimit, j.ID, j.file(), n, maxN)
	}
	if err := flows.CheckInput(in); err != nil {
		return nil, &inputError{msg: fmt.Sprintf("%v: job %s: input %s: %s", ErrJob, j.ID, j.file(), DescribeInput(err)), cause: err}
	}
	return in, nil
}

package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"unsafe"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
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
	// ErrBusy marks a job whose id is the id of a job still in flight.
	ErrBusy = errors.New("stream: job id in flight")
)

// MaxLineBytes bounds one JSON job (a line on a reader, a job file).
const MaxLineBytes = 1 << 20

// Job is one leaf proof: the compressions of a blocks file (Blocks), N generated
// pinned compressions (N, Seed, as `leanpipe prove --n N --seed S`), or, for
// library users, Compressions given directly. Exactly one of the three is set.
type Job struct {
	// ID names the job's results and files (DIR/<ID>.proof.bin): 1 to 128 of
	// A-Z a-z 0-9 . _ -, not starting with a dot.
	ID string `json:"id"`
	// Blocks is a file in the reference blocks layout; a relative path is taken
	// relative to the source's base directory.
	Blocks string `json:"blocks,omitempty"`
	// N and Seed describe generated compressions (Seed defaults to 1).
	N    int     `json:"n,omitempty"`
	Seed *uint64 `json:"seed,omitempty"`
	// Format is the proof form written: "wire" (default) or "raw".
	Format string `json:"format,omitempty"`
	// LogInvRate is the WHIR level-0 log inverse rate (default 1, the reference's).
	LogInvRate int `json:"log_inv_rate,omitempty"`
	// Unordered lets the job's result leave as soon as it is done instead of in
	// job order.
	Unordered bool `json:"unordered,omitempty"`
	// Compressions, for library users, are proved as given.
	Compressions []witness.Compression `json:"-"`
}

// Result is the outcome of one job. Exactly one Result is produced per accepted job.
type Result struct {
	Seq   uint64  `json:"seq"`
	ID    string  `json:"id"`
	OK    bool    `json:"ok"`
	Proof string  `json:"proof,omitempty"`  // proof file written (ProofFiles)
	N     int     `json:"n,omitempty"`      // compressions proved
	MS    float64 `json:"ms,omitempty"`     // load + prove time of the job
	Bytes int     `json:"bytes,omitempty"`  // proof size in its format
	Form  string  `json:"format,omitempty"` // proof form
	Error string  `json:"error,omitempty"`

	// Err is the error of a failed job (Error is its text).
	Err error `json:"-"`
	// Meta is the proof's statement; Data the encoded proof, until ProofFiles has
	// written it; Proved the Engine's record (proof, shape, spans).
	Meta   flows.Meta   `json:"-"`
	Data   []byte       `json:"-"`
	Proved flows.Proved `json:"-"`
}

func failed(seq uint64, id string, err error) Result {
	return Result{Seq: seq, ID: id, Err: err, Error: err.Error()}
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$`)

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
	if err := j.check(flows.MaxBatch); err != nil {
		return j, err
	}
	return j, nil
}

// check validates a job's fields and fills defaults; it reads no file.
func (j *Job) check(maxN int) error {
	switch {
	case j.ID == "":
		return fmt.Errorf("%w: missing \"id\"", ErrJob)
	case !idPattern.MatchString(j.ID):
		return fmt.Errorf("%w: id %q: want 1 to 128 of A-Z a-z 0-9 . _ -, not starting with a dot", ErrJob, j.ID)
	}
	set := 0
	if j.Blocks != "" {
		set++
	}
	if j.N != 0 || j.Seed != nil {
		set++
	}
	if j.Compressions != nil {
		set++
	}
	if set != 1 {
		return fmt.Errorf("%w: job %s: give exactly one of \"blocks\" or \"n\"", ErrJob, j.ID)
	}
	if j.Seed != nil && j.N == 0 {
		return fmt.Errorf("%w: job %s: \"seed\" without \"n\"", ErrJob, j.ID)
	}
	if j.N < 0 || (j.Blocks == "" && j.Compressions == nil && j.N == 0) {
		return fmt.Errorf("%w: job %s: n = %d, want at least 1", ErrJob, j.ID, j.N)
	}
	if j.N > maxN || len(j.Compressions) > maxN {
		return fmt.Errorf("%w: job %s: %d compressions, at most %d", ErrLimit, j.ID, max(j.N, len(j.Compressions)), maxN)
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
	if j.LogInvRate < commit.MinLogInvRate || j.LogInvRate > commit.MaxLogInvRate {
		return fmt.Errorf("%w: job %s: log_inv_rate %d, want %d..%d", ErrJob, j.ID, j.LogInvRate, commit.MinLogInvRate, commit.MaxLogInvRate)
	}
	return nil
}

// size returns the job's compression count without reading its blocks: a blocks
// file is sized by stat and refused when larger than maxBytes.
func (j *Job) size(maxBytes int64) (int, error) {
	switch {
	case j.Compressions != nil:
		return len(j.Compressions), nil
	case j.Blocks == "":
		return j.N, nil
	}
	st, err := os.Stat(j.Blocks)
	if err != nil {
		return 0, fmt.Errorf("%w: job %s: %v", ErrJob, j.ID, err)
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%w: job %s: blocks %s is not a regular file", ErrJob, j.ID, j.Blocks)
	}
	if st.Size() > maxBytes {
		return 0, fmt.Errorf("%w: job %s: blocks file %s has %d bytes, at most %d (%d compressions)",
			ErrLimit, j.ID, j.Blocks, st.Size(), maxBytes, maxBytes/witness.BlockSize)
	}
	if st.Size() == 0 || st.Size()%witness.BlockSize != 0 {
		return 0, fmt.Errorf("%w: job %s: blocks file %s has %d bytes, not a positive multiple of %d",
			ErrJob, j.ID, j.Blocks, st.Size(), witness.BlockSize)
	}
	return int(st.Size() / witness.BlockSize), nil
}

// load returns the job's compressions.
func (j *Job) load(maxBytes int64) ([]witness.Compression, error) {
	switch {
	case j.Compressions != nil:
		return j.Compressions, nil
	case j.Blocks == "":
		seed := uint64(1)
		if j.Seed != nil {
			seed = *j.Seed
		}
		return flows.Generate(j.N, seed), nil
	}
	f, err := os.Open(j.Blocks)
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
		return nil, fmt.Errorf("%w: job %s: blocks file %s grew over %d bytes", ErrLimit, j.ID, j.Blocks, maxBytes)
	}
	blocks, err := witness.DecodeBlocks(data)
	if err != nil {
		return nil, fmt.Errorf("%w: job %s: blocks %s: %v", ErrJob, j.ID, j.Blocks, err)
	}
	return blocks, nil
}

// Estimate is the memory a proof of the given shape is budgeted for, in bytes: its
// pooled buffers (the stack, A·w and B·w, the ring weights), the inputs, and the
// codeword, Merkle tree and opening work space, which scale with the codeword's
// length 2^(StackLog+LogInvRate). It is an upper bound on what one proof allocates
// with warm pools (checked by TestStreamEstimateCovers), not its exact peak.
func Estimate(sh flows.Shape) int64 {
	const k, e = 8, 24 // bytes of a K and an E
	stack := int64(k) << sh.StackLog
	column := int64(1) << sh.Mu
	pooled := stack + 2*k*column + e*column
	codeword := int64(k) << (sh.StackLog + sh.LogInvRate)
	inputs := int64(sh.N) * int64(unsafe.Sizeof(witness.Compression{})+witness.BlockSize)
	return pooled + 8*codeword + inputs + 4<<20
}

// encode serialises a proof in the job's form.
func encode(p *transcript.Proof, format string) []byte {
	if format == "raw" {
		return p.MarshalRaw()
	}
	return p.MarshalWire()
}

package queue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
)

// expected is what a submitted job's proof must prove: the statement derived from the
// job's own input at submit time (an input file is read then, and its digest goes
// into the job), or, for generated instances, from regenerating them when the proof
// is fetched.
type expected struct {
	job  stream.Job      // parsed, with defaults and InputSHA256 filled
	st   flows.Statement // the statement, once known
	have bool            // st is set
}

// readInput reads a job's input file at submit time, records its digest in the job
// (a digest the job already gives must match) and derives the statement it proves.
// maxBytes bounds the file (0: 1 GiB).
func readInput(job *stream.Job, maxBytes int64) (flows.Statement, error) {
	if maxBytes <= 0 {
		maxBytes = 1 << 30
	}
	fl, err := flows.Lookup(job.Flow)
	if err != nil {
		return flows.Statement{}, fmt.Errorf("%w: job %s: %v", stream.ErrJob, job.ID, err)
	}
	path := job.File()
	f, err := os.Open(path)
	if err != nil {
		return flows.Statement{}, fmt.Errorf("%w: job %s: reading the input to record its digest and statement: %v", stream.ErrJob, job.ID, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return flows.Statement{}, fmt.Errorf("%w: job %s: input %s: %v", stream.ErrJob, job.ID, path, err)
	}
	if int64(len(data)) > maxBytes {
		return flows.Statement{}, fmt.Errorf("%w: job %s: input file %s is over %d bytes", stream.ErrLimit, job.ID, path, maxBytes)
	}
	digest := stream.InputDigest(data)
	if job.InputSHA256 != "" && job.InputSHA256 != digest {
		return flows.Statement{}, fmt.Errorf("%w: job %s: input %s has sha256 %s, not the job's input_sha256 %s", stream.ErrJob, job.ID, path, digest, job.InputSHA256)
	}
	job.InputSHA256 = digest
	in, err := fl.Decode(data)
	if err != nil {
		return flows.Statement{}, fmt.Errorf("%w: job %s: input %s: %v", stream.ErrJob, job.ID, path, err)
	}
	return flows.StatementOf(fl, in, job.LogInvRate), nil
}

// statement returns the statement the job's proof must prove, generating the
// instances of a generated job when it is not known yet.
func (e *expected) statement() (flows.Statement, error) {
	if e.have {
		return e.st, nil
	}
	fl, err := flows.Lookup(e.job.Flow)
	if err != nil {
		return flows.Statement{}, err
	}
	seed := uint64(1)
	if e.job.Seed != nil {
		seed = *e.job.Seed
	}
	in, err := fl.Generate(e.job.N, seed)
	if err != nil {
		return flows.Statement{}, fmt.Errorf("generating the job's instances to derive its statement: %w", err)
	}
	e.st, e.have = flows.StatementOf(fl, in, e.job.LogInvRate), true
	return e.st, nil
}

// diffStatement names the first field where a stored proof's metadata differs from
// the statement the job asked for (and the form it asked for), "" when none does:
// flow, n, log_inv_rate, label, format, then each statement data field by name.
func diffStatement(meta flows.Meta, want flows.Statement, form string) string {
	fl, err := flows.Lookup(want.Flow)
	if err != nil {
		return "flow"
	}
	switch {
	case meta.Flow != want.Flow:
		return fmt.Sprintf("flow (%s, want %s)", meta.Flow, want.Flow)
	case meta.N != want.N:
		return fmt.Sprintf("n (%d, want %d)", meta.N, want.N)
	case meta.LogInvRate != want.LogInvRate:
		return fmt.Sprintf("log_inv_rate (%d, want %d)", meta.LogInvRate, want.LogInvRate)
	case meta.Label != fl.Label():
		return fmt.Sprintf("label (%q, want %q)", meta.Label, fl.Label())
	case meta.Format != form:
		return fmt.Sprintf("format (%s, want %s)", meta.Format, form)
	}
	got, err1 := dataFields(meta.Statement)
	exp, err2 := dataFields(want.Data)
	if err1 != nil || err2 != nil {
		return "statement data (not a JSON object)"
	}
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range exp {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !bytes.Equal(got[k], exp[k]) {
			return k
		}
	}
	return ""
}

// dataFields splits statement data into its fields, each compacted.
func dataFields(data json.RawMessage) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return nil, err
		}
		out[k] = b.Bytes()
	}
	return out, nil
}

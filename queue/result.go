package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/leanpipe/leanpipe/stream"
)

// Result is one job's outcome as a result message carries it: serve's result
// (stream.Result: seq, id, ok, flow, n, ms, bytes, format, error) plus the worker
// that answered and the job's delivery count. Object names the proof object in the
// bucket (<id>.proof.bin) and AlsoObjects the other forms'; Proof and Also, which
// name local files, are set only once Submit has fetched them, so a result never
// names a local file that does not exist.
type Result struct {
	stream.Result
	Object      string            `json:"object,omitempty"`
	AlsoObjects map[string]string `json:"also_objects,omitempty"`
	Worker      string            `json:"worker,omitempty"`
	Deliveries  int               `json:"deliveries,omitempty"`
	// Queued marks, with Options.NoWait, a job that was published and not waited for.
	Queued bool `json:"queued,omitempty"`
}

// JSON is the result's line: the JSON object with no newline.
func (r Result) JSON() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic("queue: result does not encode: " + err.Error())
	}
	return b
}

// parseResult decodes a result message; the error text becomes Err.
func parseResult(data []byte) (Result, error) {
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return Result{}, err
	}
	if !r.OK && r.Error != "" {
		r.Err = errors.New(r.Error)
	}
	return r, nil
}

func failedResult(seq uint64, id string, err error) Result {
	return Result{Result: stream.Result{Seq: seq, ID: id, Err: err, Error: stream.BoundText(err.Error(), stream.MaxErrorBytes)}}
}

// Metrics are a worker's: the Prover's (stream.Metrics, counting the jobs handed
// to it: proved, malformed, refused, abandoned, failed) plus the queue's own counts
// (jobs answered from the store or dead-lettered never reach the Prover).
type Metrics struct {
	stream.Metrics
	Worker string `json:"worker"`
	// Pulled counts deliveries taken from the consumer; Redeliveries those that
	// were not a job's first delivery.
	Pulled       int `json:"pulled"`
	Redeliveries int `json:"redeliveries"`
	// FromStore counts jobs answered from the proofs bucket without proving.
	FromStore int `json:"from_store"`
	// DeadLetters counts jobs sent to the dead-letter subject.
	DeadLetters int `json:"dead_letters"`
	// Published counts result messages; Acked, Terminated and Nacked the jobs
	// finished each way; Unfinished the jobs left to their lease's expiry (the
	// server could not be reached).
	Published  int `json:"results_published"`
	Acked      int `json:"acked"`
	Terminated int `json:"terminated"`
	Nacked     int `json:"nacked"`
	Unfinished int `json:"unfinished"`
	// StoreBytes is the bytes put into the proofs bucket (proofs and statements).
	StoreBytes int64 `json:"store_bytes"`
	// LocalFailures counts local copies (Options.Out) that could not be written;
	// their results stay ok, the stored proof being the result.
	LocalFailures int `json:"local_failures"`
}

// JSON returns the metrics as indented JSON.
func (m Metrics) JSON() []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

// WriteText prints the metrics for people: the stream's, then the queue's.
func (m Metrics) WriteText(w io.Writer) {
	m.Metrics.WriteText(w)
	fmt.Fprintf(w, "  queue (worker %s): %d pulled (%d redeliveries), %d answered from the store, %d dead letters; "+
		"%d results published, %d acked, %d terminated, %d nacked, %d left to their lease; %s stored\n",
		m.Worker, m.Pulled, m.Redeliveries, m.FromStore, m.DeadLetters,
		m.Published, m.Acked, m.Terminated, m.Nacked, m.Unfinished, mib(m.StoreBytes))
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

package stream

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/reugn/go-streams"
)

var (
	_ streams.Flow = (*ProofFiles)(nil)
	_ streams.Sink = (*JSONLines)(nil)
	_ streams.Sink = (*FuncSink)(nil)
)

// ProofSuffix ends every proof file's name: DIR/<id>.proof.bin, with its statement in
// DIR/<id>.proof.bin.json (what `leanpipe verify` reads beside a proof).
const ProofSuffix = ".proof.bin"

// ProofFiles is the flow that writes each proved result's proof to
// DIR/<id>.proof.bin and its statement to DIR/<id>.proof.bin.json, both atomically
// (temporary file, sync, rename; the statement first, so a proof file never exists
// without it), sets Result.Proof and drops the encoded bytes. A write that fails
// turns the result into an error result; the stream goes on. Order is kept.
type ProofFiles struct {
	dir     string
	in, out chan any
	written atomic.Int64
	failed  atomic.Int64
}

// NewProofFiles creates dir if needed, checks that it is writable, and starts the
// flow.
func NewProofFiles(dir string) (*ProofFiles, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("stream: proof directory %s is not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("stream: proof directory: %w", err)
	}
	if err := atomicfile.CheckDir(dir); err != nil {
		return nil, fmt.Errorf("stream: proof directory: %w", err)
	}
	f := &ProofFiles{dir: dir, in: make(chan any), out: make(chan any)}
	go f.run()
	return f, nil
}

// ProofPath is where the proof of job id is written in dir.
func ProofPath(dir, id string) string { return filepath.Join(dir, id+ProofSuffix) }

// FormSuffix ends the name of a job's other proof form (Job.Formats):
// <id>.proof.<form>.bin, never a ProofSuffix name, so no job's proof has it.
func FormSuffix(form string) string { return ".proof." + form + ".bin" }

// FormPath is where job id's proof in its other form is written in dir.
func FormPath(dir, id, form string) string { return filepath.Join(dir, id+FormSuffix(form)) }

func (f *ProofFiles) run() {
	defer close(f.out)
	for {
		env, ok := recv[Result](f.in)
		if !ok {
			return
		}
		if r := &env.Val; r.OK && r.Data != nil {
			// The other forms first: the job's proof file is written last.
			var err error
			also := map[string]string{}
			for _, e := range r.Extra {
				p := FormPath(f.dir, r.ID, e.Meta.Format)
				if err = flows.WriteProofBytes(p, e.Data, e.Meta); err != nil {
					break
				}
				also[e.Meta.Format] = p
			}
			path := ProofPath(f.dir, r.ID)
			if err == nil {
				err = flows.WriteProofBytes(path, r.Data, r.Meta)
			}
			if err != nil {
				f.failed.Add(1)
				*r = failed(r.Seq, r.ID, fmt.Errorf("stream: job %s: writing the proof: %w", r.ID, err))
			} else {
				f.written.Add(1)
				r.Proof, r.Data, r.Extra = path, nil, nil
				if len(also) > 0 {
					r.Also = also
				}
			}
		}
		f.out <- env
	}
}

// Written and Failed count proof files written and writes that failed.
func (f *ProofFiles) Written() int64 { return f.written.Load() }

// Failed counts proof writes that failed (their results carry the error).
func (f *ProofFiles) Failed() int64 { return f.failed.Load() }

// In is the flow's inlet (Envelope[Result]).
func (f *ProofFiles) In() chan<- any { return f.in }

// Out is the flow's outlet (Envelope[Result]).
func (f *ProofFiles) Out() <-chan any { return f.out }

// Via streams the results into the next flow.
func (f *ProofFiles) Via(next streams.Flow) streams.Flow {
	go transmit(f, next)
	return next
}

// To streams the results into a sink and waits for it to finish.
func (f *ProofFiles) To(s streams.Sink) {
	transmit(f, s)
	s.AwaitCompletion()
}

// FuncSink calls a function with every result, in order, on one goroutine.
type FuncSink struct {
	in   chan any
	done chan struct{}
}

// NewFuncSink starts a sink calling fn.
func NewFuncSink(fn func(Result)) *FuncSink {
	s := &FuncSink{in: make(chan any), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			env, ok := recv[Result](s.in)
			if !ok {
				return
			}
			fn(env.Val)
		}
	}()
	return s
}

// In is the sink's inlet (Envelope[Result]).
func (s *FuncSink) In() chan<- any { return s.in }

// AwaitCompletion waits until every result has been passed to the function.
func (s *FuncSink) AwaitCompletion() { <-s.done }

// JSONLines writes every result as one JSON line. After a write error it keeps
// draining its input (so the stream is not blocked) and Err reports the error.
type JSONLines struct {
	*FuncSink
	mu  sync.Mutex
	err error
}

// NewJSONLines starts a sink writing to w.
func NewJSONLines(w io.Writer) *JSONLines {
	s := &JSONLines{}
	s.FuncSink = NewFuncSink(func(r Result) {
		b, err := json.Marshal(r)
		if err != nil {
			panic(fmt.Sprintf("stream: result does not encode: %v", err))
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.err != nil {
			return
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			s.err = fmt.Errorf("stream: writing results: %w", err)
		}
	})
	return s
}

// Err is the first write error, if any.
func (s *JSONLines) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Run wires src → p → files (if not nil) → sink with go-streams' Via and To, and
// blocks until the sink has every result. It returns the Prover's final metrics.
func Run(src streams.Source, p *Prover, files *ProofFiles, sink streams.Sink) Metrics {
	var f streams.Flow = src.Via(p)
	if files != nil {
		f = f.Via(files)
	}
	f.To(sink)
	return p.Metrics()
}

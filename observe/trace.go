package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/stream"
)

// MaxTraceProofs is the most proofs a Trace keeps; past it the oldest are dropped
// (and counted in the file's otherData), so a long-running serve holds bounded
// memory.
const MaxTraceProofs = 10000

// Trace collects proofs' spans and writes them as Chrome trace-event JSON (the
// format Perfetto and Chromium's about:tracing read):
//
//   - process 1, "scheduler": one row (thread) per core slot; every stage of every
//     proof appears there once per core it held, as a "grant" event named
//     "<stage> · <proof>".
//   - process 2, 3, …: one per proof, in the order the proofs started, named
//     after it. Row 0 holds the proof as one "proof" event (from the start of its work
//     to its end); row c+1 ("core c") holds each stage once, as a "stage" event on
//     the first core slot it was granted, with the cores, workers, bytes and cache
//     counts in its args. A stage run outside a scheduler (no slots) is on row 1.
//
// All events are complete events ("ph": "X") with "ts" and "dur" in microseconds
// from the first proof's start. A Trace is safe for concurrent use.
type Trace struct {
	mu      sync.Mutex
	proofs  []traced // a ring of at most MaxTraceProofs, oldest at head once full
	head    int
	dropped int
}

type traced struct {
	name       string
	start, end time.Time
	spans      []graph.Span
}

var _ stream.Observer = (*Trace)(nil)

// NewTrace returns an empty trace.
func NewTrace() *Trace { return &Trace{} }

// Add records one proof: its name, when its work started and ended, and its spans.
func (t *Trace) Add(name string, start, end time.Time, spans []graph.Span) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := traced{name: name, start: start, end: end, spans: spans}
	if len(t.proofs) < MaxTraceProofs {
		t.proofs = append(t.proofs, p)
		return
	}
	t.proofs[t.head] = p
	t.head = (t.head + 1) % MaxTraceProofs
	t.dropped++
}

// Attach does nothing: a trace needs only the proofs (stream.Observer).
func (t *Trace) Attach(*stream.Prover) {}

// Proved records a stream's proof as "job <id>", ending now (stream.Observer).
func (t *Trace) Proved(r stream.Result, start time.Time) {
	t.Add("job "+r.ID, start, time.Now(), r.Proved.Spans)
}

// Len is the number of proofs held.
func (t *Trace) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.proofs)
}

// Event is one trace event as written (and read back by ParseTrace).
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	TS   json.Number    `json:"ts,omitempty"`
	Dur  json.Number    `json:"dur,omitempty"`
	PID  int            `json:"pid"`
	TID  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// TraceFile is the JSON object of a trace file.
type TraceFile struct {
	TraceEvents     []Event        `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit,omitempty"`
	OtherData       map[string]any `json:"otherData,omitempty"`
}

// Event categories and the scheduler's process id.
const (
	CatProof     = "proof"
	CatStage     = "stage"
	CatGrant     = "grant"
	SchedulerPID = 1
)

// micros formats a duration as microseconds with nanosecond digits, so that an
// event's end (ts + dur) is exact.
func micros(d time.Duration) json.Number {
	ns := d.Nanoseconds()
	return json.Number(strconv.FormatInt(ns/1000, 10) + "." + fmt.Sprintf("%03d", ns%1000))
}

// File returns the trace's events.
func (t *Trace) File() TraceFile {
	t.mu.Lock()
	proofs := append(append([]traced(nil), t.proofs[t.head:]...), t.proofs[:t.head]...)
	dropped := t.dropped
	t.mu.Unlock()
	sort.SliceStable(proofs, func(i, j int) bool { return proofs[i].start.Before(proofs[j].start) })

	f := TraceFile{DisplayTimeUnit: "ms", OtherData: map[string]any{"producer": "leanpipe", "proofs": len(proofs), "dropped_proofs": dropped}}
	if len(proofs) == 0 {
		f.TraceEvents = []Event{}
		return f
	}
	t0 := proofs[0].start
	cores := 0
	for _, p := range proofs {
		if p.start.Before(t0) {
			t0 = p.start
		}
		for _, s := range p.spans {
			for _, c := range s.Cores {
				cores = max(cores, c+1)
			}
		}
	}
	meta := func(pid, tid int, what string, args map[string]any) {
		f.TraceEvents = append(f.TraceEvents, Event{Name: what, Ph: "M", PID: pid, TID: tid, Args: args})
	}
	complete := func(pid, tid int, cat, name string, start time.Time, dur time.Duration, args map[string]any) {
		f.TraceEvents = append(f.TraceEvents, Event{Name: name, Cat: cat, Ph: "X", TS: micros(start.Sub(t0)), Dur: micros(dur), PID: pid, TID: tid, Args: args})
	}
	meta(SchedulerPID, 0, "process_name", map[string]any{"name": "scheduler: core grants"})
	meta(SchedulerPID, 0, "process_sort_index", map[string]any{"sort_index": 0})
	for c := range cores {
		meta(SchedulerPID, c, "thread_name", map[string]any{"name": fmt.Sprintf("core %d", c)})
	}
	for i, p := range proofs {
		pid := SchedulerPID + 1 + i
		meta(pid, 0, "process_name", map[string]any{"name": fmt.Sprintf("proof %d: %s", i, p.name)})
		meta(pid, 0, "process_sort_index", map[string]any{"sort_index": i + 1})
		meta(pid, 0, "thread_name", map[string]any{"name": "proof"})
		rows := map[int]bool{}
		complete(pid, 0, CatProof, p.name, p.start, p.end.Sub(p.start), map[string]any{"stages": len(p.spans)})
		for _, s := range p.spans {
			tid := 1
			if len(s.Cores) > 0 {
				tid = s.Cores[0] + 1
			}
			if !rows[tid] {
				rows[tid] = true
				name := "worker"
				if len(s.Cores) > 0 {
					name = fmt.Sprintf("core %d", tid-1)
				}
				meta(pid, tid, "thread_name", map[string]any{"name": name})
			}
			args := map[string]any{"workers": s.Workers, "bytes_in": s.BytesIn, "bytes_out": s.BytesOut}
			if len(s.Cores) > 0 {
				args["cores"] = s.Cores
			}
			if s.Hits+s.Misses > 0 {
				args["cache_hits"], args["cache_misses"] = s.Hits, s.Misses
			}
			if s.Err != "" {
				args["error"] = s.Err
			}
			complete(pid, tid, CatStage, s.Name, s.Start, s.Duration, args)
			for _, c := range s.Cores {
				complete(SchedulerPID, c, CatGrant, s.Name+" · "+p.name, s.Start, s.Duration, map[string]any{"proof": i, "stage": s.Name, "cores": s.Cores})
			}
		}
	}
	return f
}

// JSON returns the trace file's bytes.
func (t *Trace) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(t.File()); err != nil {
		panic(fmt.Sprintf("observe: trace does not encode: %v", err))
	}
	return b.Bytes()
}

// WriteFile writes the trace to path atomically (temporary file, sync, rename).
func (t *Trace) WriteFile(path string) error {
	if err := atomicfile.Write(path, t.JSON()); err != nil {
		return fmt.Errorf("observe: trace: %w", err)
	}
	return nil
}

// ParseTrace decodes a trace file.
func ParseTrace(data []byte) (TraceFile, error) {
	var f TraceFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("observe: trace: %w", err)
	}
	if f.TraceEvents == nil {
		return f, fmt.Errorf("observe: trace: no traceEvents array")
	}
	return f, nil
}

// TracedProof is one proof found in a trace by CheckTrace: its process, name,
// span and stage events.
type TracedProof struct {
	PID        int
	Name       string
	Start, End time.Duration // from the trace's origin
	Stages     []Event
}

// Span returns an event's start and end from the trace's origin (ts and ts + dur,
// to the nanosecond).
func (e Event) Span() (start, end time.Duration, err error) {
	ts, err1 := e.TS.Float64()
	dur, err2 := e.Dur.Float64()
	if e.TS == "" || e.Dur == "" || err1 != nil || err2 != nil || ts < 0 || dur < 0 {
		return 0, 0, fmt.Errorf("event %q (pid %d, tid %d): ts %q dur %q", e.Name, e.PID, e.TID, e.TS, e.Dur)
	}
	start = time.Duration(math.Round(ts * 1e3))
	return start, start + time.Duration(math.Round(dur*1e3)), nil
}

func span(e Event) (start, end time.Duration, err error) { return e.Span() }

// CheckTrace checks what a Trace promises about its file and returns the proofs in
// it: every event is a metadata event or a complete event with ts, dur ≥ 0; every
// proof process has exactly one proof event, on row 0; every stage event is in a
// proof process, on a named worker row (tid ≥ 1), and inside its proof's event; and
// the events on any one row (pid, tid) do not overlap.
func CheckTrace(f TraceFile) ([]TracedProof, error) {
	type row struct{ pid, tid int }
	named := map[row]bool{}
	onRow := map[row][]Event{}
	proofs := map[int]*TracedProof{}
	var stages []Event
	for _, e := range f.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				named[row{e.PID, e.TID}] = true
			}
			continue
		case "X":
		default:
			return nil, fmt.Errorf("observe: trace: event %q has phase %q, want X or M", e.Name, e.Ph)
		}
		start, end, err := span(e)
		if err != nil {
			return nil, fmt.Errorf("observe: trace: %w", err)
		}
		onRow[row{e.PID, e.TID}] = append(onRow[row{e.PID, e.TID}], e)
		switch e.Cat {
		case CatProof:
			if e.TID != 0 || e.PID == SchedulerPID {
				return nil, fmt.Errorf("observe: trace: proof %q on pid %d tid %d, want row 0 of its own process", e.Name, e.PID, e.TID)
			}
			if proofs[e.PID] != nil {
				return nil, fmt.Errorf("observe: trace: process %d has two proof events", e.PID)
			}
			proofs[e.PID] = &TracedProof{PID: e.PID, Name: e.Name, Start: start, End: end}
		case CatStage:
			stages = append(stages, e)
		case CatGrant:
			if e.PID != SchedulerPID {
				return nil, fmt.Errorf("observe: trace: grant %q outside the scheduler process", e.Name)
			}
		default:
			return nil, fmt.Errorf("observe: trace: event %q has category %q", e.Name, e.Cat)
		}
	}
	for _, e := range stages {
		p := proofs[e.PID]
		if p == nil {
			return nil, fmt.Errorf("observe: trace: stage %q in process %d, which has no proof event", e.Name, e.PID)
		}
		if e.TID < 1 || !named[row{e.PID, e.TID}] {
			return nil, fmt.Errorf("observe: trace: stage %q of %q on row %d, want a named worker row", e.Name, p.Name, e.TID)
		}
		start, end, _ := span(e)
		if start < p.Start || end > p.End {
			return nil, fmt.Errorf("observe: trace: stage %q [%v, %v] is outside its proof %q [%v, %v]", e.Name, start, end, p.Name, p.Start, p.End)
		}
		p.Stages = append(p.Stages, e)
	}
	for r, evs := range onRow {
		sort.Slice(evs, func(i, j int) bool {
			a, _, _ := span(evs[i])
			b, _, _ := span(evs[j])
			return a < b
		})
		for i := 1; i < len(evs); i++ {
			_, prevEnd, _ := span(evs[i-1])
			start, _, _ := span(evs[i])
			if start < prevEnd {
				return nil, fmt.Errorf("observe: trace: on pid %d tid %d, %q starts at %v, before %q ends at %v", r.pid, r.tid, evs[i].Name, start, evs[i-1].Name, prevEnd)
			}
		}
	}
	out := make([]TracedProof, 0, len(proofs))
	for _, p := range proofs {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, nil
}

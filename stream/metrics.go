package stream

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/flows"
)

// StageMetrics sums one stage's spans over the stream.
type StageMetrics struct {
	Name string `json:"name"`
	Runs int    `json:"runs"`
	// BusyMS is the summed wall time of the stage's runs; WorkerMS the summed
	// wall time × workers granted.
	BusyMS   float64 `json:"busy_ms"`
	WorkerMS float64 `json:"worker_ms"`
	// Utilisation is WorkerMS over the stream's wall time × cores: the share of
	// the machine the stage kept busy.
	Utilisation float64 `json:"utilisation"`
}

// Metrics describe a stream so far.
type Metrics struct {
	WallMS   float64 `json:"wall_ms"`
	Cores    int     `json:"cores"`
	InFlight int     `json:"in_flight_limit"`
	Pending  int     `json:"pending_limit"`

	Accepted  int `json:"accepted"`  // jobs taken from the source
	Results   int `json:"results"`   // results handed downstream
	OK        int `json:"ok"`        // proofs made
	Malformed int `json:"malformed"` // ErrJob
	Refused   int `json:"refused"`   // ErrLimit, ErrBusy
	Abandoned int `json:"abandoned"` // ErrAbandoned
	Failed    int `json:"failed"`    // other proving errors

	// ProofsPerS counts proofs; CompressionsPerS the batch flow's instances and
	// SignaturesPerS the xmss-aggregate flow's (each over the stream's wall time).
	ProofsPerS       float64 `json:"proofs_per_s"`
	CompressionsPerS float64 `json:"compressions_per_s"`
	SignaturesPerS   float64 `json:"signatures_per_s,omitempty"`
	JobMeanMS        float64 `json:"job_mean_ms"`
	JobMaxMS         float64 `json:"job_max_ms"`

	// Queue depth: jobs accepted and not yet handed downstream (waiting, proving,
	// or done and waiting for their turn); its maximum and time-weighted mean.
	QueueDepth     int     `json:"queue_depth"`
	QueueDepthMax  int     `json:"queue_depth_max"`
	QueueDepthMean float64 `json:"queue_depth_mean"`
	// Proofs running at once, and jobs admitted and waiting for a proving slot
	// or memory budget.
	RunningMax int `json:"running_max"`
	WaitingMax int `json:"waiting_max"`
	// Budgeted bytes of the proofs running at once (Estimate) and the budget.
	BudgetPeakBytes int64 `json:"budget_peak_bytes"`
	BudgetBytes     int64 `json:"budget_bytes"`

	// Utilisation is all stages' worker time (the cores granted to them) over
	// wall time × cores; CPUUtilisation the process's CPU time (user + system,
	// every goroutine) over wall time × cores.
	Utilisation    float64        `json:"utilisation"`
	CPUUtilisation float64        `json:"cpu_utilisation"`
	Stages         []StageMetrics `json:"stages"`

	CacheHits    int64   `json:"cache_hits"`
	CacheMisses  int64   `json:"cache_misses"`
	CacheHitRate float64 `json:"cache_hit_rate"`
	BufferAllocs int64   `json:"buffer_allocations"`
	BufferReuses int64   `json:"buffer_reuses"`

	// Go heap allocations since the stream started, per proof made.
	AllocBytesPerProof float64 `json:"alloc_bytes_per_proof"`
	AllocsPerProof     float64 `json:"allocs_per_proof"`
	PeakRSSBytes       int64   `json:"peak_rss_bytes"`
}

// JSON returns the metrics as indented JSON.
func (m Metrics) JSON() []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

// WriteText prints the metrics for people.
func (m Metrics) WriteText(w io.Writer) {
	fmt.Fprintf(w, "stream: %d jobs in %.2f s: %d proved, %d malformed, %d refused, %d abandoned, %d failed\n",
		m.Accepted, m.WallMS/1e3, m.OK, m.Malformed, m.Refused, m.Abandoned, m.Failed)
	rates := fmt.Sprintf("%.0f compressions/s", m.CompressionsPerS)
	switch {
	case m.SignaturesPerS > 0 && m.CompressionsPerS == 0:
		rates = fmt.Sprintf("%.1f signatures/s", m.SignaturesPerS)
	case m.SignaturesPerS > 0:
		rates += fmt.Sprintf(", %.1f signatures/s", m.SignaturesPerS)
	}
	fmt.Fprintf(w, "  %.2f proofs/s, %s, job mean %.1f ms (max %.1f ms)\n",
		m.ProofsPerS, rates, m.JobMeanMS, m.JobMaxMS)
	fmt.Fprintf(w, "  queue depth max %d (mean %.2f), running at once max %d of %d, budget peak %s of %s\n",
		m.QueueDepthMax, m.QueueDepthMean, m.RunningMax, m.InFlight, mib(m.BudgetPeakBytes), budgetText(m.BudgetBytes))
	fmt.Fprintf(w, "  cores %d, granted to stages %.1f%%, CPU busy %.1f%%; shape cache %d/%d hits (%.1f%%); buffers %d allocated, %d reused\n",
		m.Cores, 100*m.Utilisation, 100*m.CPUUtilisation, m.CacheHits, m.CacheHits+m.CacheMisses, 100*m.CacheHitRate, m.BufferAllocs, m.BufferReuses)
	fmt.Fprintf(w, "  heap per proof %s in %.0f allocations; peak RSS %s\n", mib(int64(m.AllocBytesPerProof)), m.AllocsPerProof, mib(m.PeakRSSBytes))
	fmt.Fprintf(w, "  %-10s %6s %11s %11s %7s\n", "stage", "runs", "busy", "worker", "util")
	for _, s := range m.Stages {
		fmt.Fprintf(w, "  %-10s %6d %8.1f ms %8.1f ms %6.1f%%\n", s.Name, s.Runs, s.BusyMS, s.WorkerMS, 100*s.Utilisation)
	}
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func budgetText(b int64) string {
	if b <= 0 {
		return "no budget"
	}
	return mib(b)
}

// collector gathers metrics from the Prover's goroutines.
type collector struct {
	eng   Engine
	opt   Options
	start time.Time
	cpu0  time.Duration
	mem0  runtime.MemStats

	mu           sync.Mutex
	m            Metrics
	compressions int // instances of the batch flow proved
	signatures   int // instances of the xmss-aggregate flow proved
	jobMS        float64
	depth        int
	depthSince   time.Time
	depthArea    float64 // ∫ depth dt, in depth·seconds
	nRunning     int
	nWaiting     int
	budget       int64
	stages       map[string]*StageMetrics
	order        []string
	byFlow       map[string]*FlowCount // results per flow (Counts)
}

func newCollector(eng Engine, o Options) *collector {
	c := &collector{eng: eng, opt: o, start: time.Now(), stages: map[string]*StageMetrics{}, byFlow: map[string]*FlowCount{}}
	c.depthSince = c.start
	runtime.ReadMemStats(&c.mem0)
	c.cpu0 = rusage.Process()
	c.m.Cores, c.m.InFlight, c.m.Pending, c.m.BudgetBytes = o.Cores, o.InFlight, o.Pending, o.MemoryBudget
	return c
}

func (c *collector) setDepth(d int) {
	now := time.Now()
	c.depthArea += float64(c.depth) * now.Sub(c.depthSince).Seconds()
	c.depth, c.depthSince = d, now
	c.m.QueueDepthMax = max(c.m.QueueDepthMax, d)
}

func (c *collector) accepted() {
	c.mu.Lock()
	c.m.Accepted++
	c.setDepth(c.depth + 1)
	c.mu.Unlock()
}

func (c *collector) waiting(d int) {
	c.mu.Lock()
	c.nWaiting += d
	c.m.WaitingMax = max(c.m.WaitingMax, c.nWaiting)
	c.mu.Unlock()
}

func (c *collector) running(d int, bytes int64) {
	c.mu.Lock()
	c.nRunning += d
	c.budget += bytes
	c.m.RunningMax = max(c.m.RunningMax, c.nRunning)
	c.m.BudgetPeakBytes = max(c.m.BudgetPeakBytes, c.budget)
	c.mu.Unlock()
}

func (c *collector) proved(p flows.Proved, flow string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch flow {
	case flows.Name:
		c.compressions += n
	case aggregate.FlowName:
		c.signatures += n
	}
	for _, s := range p.Spans {
		st := c.stages[s.Name]
		if st == nil {
			st = &StageMetrics{Name: s.Name}
			c.stages[s.Name] = st
			c.order = append(c.order, s.Name)
		}
		st.Runs++
		ms := float64(s.Duration.Microseconds()) / 1e3
		st.BusyMS += ms
		st.WorkerMS += ms * float64(s.Workers)
	}
}

// emitted counts a result handed downstream; flow is the flow its job resolved to
// ("" when it was refused before that).
func (c *collector) emitted(r Result, flow string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.Results++
	c.setDepth(c.depth - 1)
	fc := c.byFlow[flow]
	if fc == nil {
		fc = &FlowCount{Flow: flow}
		c.byFlow[flow] = fc
	}
	if r.OK {
		fc.OK++
	} else {
		fc.Error++
	}
	switch {
	case r.OK:
		c.m.OK++
		c.jobMS += r.MS
		c.m.JobMaxMS = max(c.m.JobMaxMS, r.MS)
	case errors.Is(r.Err, ErrAbandoned):
		c.m.Abandoned++
	case errors.Is(r.Err, ErrLimit), errors.Is(r.Err, ErrBusy):
		c.m.Refused++
	case errors.Is(r.Err, ErrJob):
		c.m.Malformed++
	default:
		c.m.Failed++
	}
}

func (c *collector) snapshot() Metrics {
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	c.mu.Lock()
	c.setDepth(c.depth)
	m := c.m
	wall := time.Since(c.start)
	m.WallMS = float64(wall.Microseconds()) / 1e3
	m.QueueDepth = c.depth
	if s := wall.Seconds(); s > 0 {
		m.ProofsPerS = float64(m.OK) / s
		m.CompressionsPerS = float64(c.compressions) / s
		m.SignaturesPerS = float64(c.signatures) / s
		m.QueueDepthMean = c.depthArea / s
	}
	if m.OK > 0 {
		m.JobMeanMS = c.jobMS / float64(m.OK)
		m.AllocBytesPerProof = float64(mem.TotalAlloc-c.mem0.TotalAlloc) / float64(m.OK)
		m.AllocsPerProof = float64(mem.Mallocs-c.mem0.Mallocs) / float64(m.OK)
	}
	capacity := m.WallMS * float64(m.Cores)
	var worker float64
	for _, name := range c.order {
		s := *c.stages[name]
		if capacity > 0 {
			s.Utilisation = s.WorkerMS / capacity
		}
		worker += s.WorkerMS
		m.Stages = append(m.Stages, s)
	}
	c.mu.Unlock()
	if capacity > 0 {
		m.Utilisation = worker / capacity
		m.CPUUtilisation = float64((rusage.Process() - c.cpu0).Microseconds()) / 1e3 / capacity
	}
	if cs, ok := c.eng.(interface{ CacheStats() (int64, int64) }); ok {
		m.CacheHits, m.CacheMisses = cs.CacheStats()
		if t := m.CacheHits + m.CacheMisses; t > 0 {
			m.CacheHitRate = float64(m.CacheHits) / float64(t)
		}
	}
	if ps, ok := c.eng.(interface {
		PoolStats() (buffers.Stats, buffers.Stats)
	}); ok {
		k, e := ps.PoolStats()
		m.BufferAllocs, m.BufferReuses = k.Allocated+e.Allocated, k.Reused+e.Reused
	}
	m.PeakRSSBytes = rusage.PeakRSS()
	return m
}

package observe

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
)

// Engine is what Metrics reads from an engine when scraped; *flows.Engine is one.
type Engine interface {
	CacheStats() (hits, misses int64)
	PoolStats() (k, ext buffers.Stats)
}

// UnknownFlow is the flow label of jobs refused before their flow was known
// (unreadable, or naming no registered flow).
const UnknownFlow = "unknown"

// Metrics is the process's Prometheus registry: the leanpipe metrics below plus the
// Go and process collectors. Counters and gauges are read from the attached Provers
// and watched Engines at scrape time; histograms are observed from each proof's
// spans as it is made (Proved).
//
//	leanpipe_jobs_total{flow,result}           results handed on, result "ok" or "error"
//	leanpipe_jobs_in_flight                    proofs running
//	leanpipe_jobs_pending                      jobs accepted and not yet handed on
//	leanpipe_stage_seconds{flow,stage}         histogram of stage wall times
//	leanpipe_stage_workers{flow,stage}         histogram of the cores granted to a stage
//	leanpipe_proof_bytes{flow}                 histogram of encoded proof sizes
//	leanpipe_proof_seconds{flow}               histogram of job times (load + prove + encode)
//	leanpipe_cache_requests_total{cache,result} shape-cache lookups, result "hit" or "miss"
//	leanpipe_buffer_pool_bytes{pool}           bytes the buffer pools have allocated
//	leanpipe_buffer_requests_total{pool,result} buffer requests, result "reused" or "allocated"
type Metrics struct {
	reg          *prometheus.Registry
	stageSeconds *prometheus.HistogramVec
	stageWorkers *prometheus.HistogramVec
	proofBytes   *prometheus.HistogramVec
	proofSeconds *prometheus.HistogramVec

	mu      sync.Mutex
	provers []*stream.Prover
	engines []Engine
}

var _ stream.Observer = (*Metrics)(nil)

// NewMetrics returns a registry with the leanpipe metrics and the Go and process
// collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		stageSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "leanpipe_stage_seconds",
			Help:    "Wall time of one stage run of a proof, by flow and stage.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18), // 0.5 ms .. 65 s
		}, []string{"flow", "stage"}),
		stageWorkers: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "leanpipe_stage_workers",
			Help:    "Cores the scheduler granted to one stage run, by flow and stage.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11), // 1 .. 1024
		}, []string{"flow", "stage"}),
		proofBytes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "leanpipe_proof_bytes",
			Help:    "Size of one encoded proof in its format, by flow.",
			Buckets: prometheus.ExponentialBuckets(16<<10, 2, 12), // 16 KiB .. 32 MiB
		}, []string{"flow"}),
		proofSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "leanpipe_proof_seconds",
			Help:    "Time of one proved job (loading its input, proving, encoding), by flow.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 16), // 5 ms .. 164 s
		}, []string{"flow"}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.stageSeconds, m.stageWorkers, m.proofBytes, m.proofSeconds,
		liveCollector{m},
	)
	return m
}

// Registry is the registry, for serving it or registering more collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// WatchEngine adds an engine's cache and buffer-pool counters to the metrics.
func (m *Metrics) WatchEngine(e Engine) {
	m.mu.Lock()
	m.engines = append(m.engines, e)
	m.mu.Unlock()
}

// Attach adds a Prover's counters to the metrics (stream.Observer). A finished
// Prover stays attached, so the job counters never go down.
func (m *Metrics) Attach(p *stream.Prover) {
	m.mu.Lock()
	m.provers = append(m.provers, p)
	m.mu.Unlock()
}

// Proved observes one proof's stages, size and time (stream.Observer).
func (m *Metrics) Proved(r stream.Result, _ time.Time) {
	flow := r.Flow
	for _, s := range r.Proved.Spans {
		m.stageSeconds.WithLabelValues(flow, s.Name).Observe(s.Duration.Seconds())
		m.stageWorkers.WithLabelValues(flow, s.Name).Observe(float64(s.Workers))
	}
	m.proofBytes.WithLabelValues(flow).Observe(float64(r.Bytes))
	m.proofSeconds.WithLabelValues(flow).Observe(r.MS / 1e3)
}

var (
	jobsDesc = prometheus.NewDesc("leanpipe_jobs_total",
		"Job results handed on by the stream, by flow (\"unknown\" for jobs refused before their flow was known) and result (ok or error).",
		[]string{"flow", "result"}, nil)
	inFlightDesc = prometheus.NewDesc("leanpipe_jobs_in_flight",
		"Proofs running now.", nil, nil)
	pendingDesc = prometheus.NewDesc("leanpipe_jobs_pending",
		"Jobs accepted and not yet handed on: waiting for a proving slot or memory budget, proving, or done and waiting for their turn (what --pending bounds).", nil, nil)
	cacheDesc = prometheus.NewDesc("leanpipe_cache_requests_total",
		"Lookups in the engine's caches, by cache and result (hit or miss).", []string{"cache", "result"}, nil)
	poolBytesDesc = prometheus.NewDesc("leanpipe_buffer_pool_bytes",
		"Bytes of buffers the engine's pools have allocated, by pool (K words or E elements): held by running proofs or kept free for reuse.", []string{"pool"}, nil)
	poolReqDesc = prometheus.NewDesc("leanpipe_buffer_requests_total",
		"Buffers requested from the engine's pools, by pool and result (reused from the free lists, or allocated).", []string{"pool", "result"}, nil)
)

// liveCollector reads the Provers' and Engines' counters at scrape time.
type liveCollector struct{ m *Metrics }

func (c liveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobsDesc, inFlightDesc, pendingDesc, cacheDesc, poolBytesDesc, poolReqDesc} {
		ch <- d
	}
}

func (c liveCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	provers := append([]*stream.Prover(nil), c.m.provers...)
	engines := append([]Engine(nil), c.m.engines...)
	c.m.mu.Unlock()

	type okErr struct{ ok, err int64 }
	jobs := map[string]*okErr{}
	for _, f := range flows.Flows() { // every registered flow, from zero
		jobs[f.Name()] = &okErr{}
	}
	var running, pending int
	for _, p := range provers {
		n := p.Counts()
		running += n.Running
		pending += n.Pending
		for _, fc := range n.Jobs {
			name := fc.Flow
			if name == "" {
				name = UnknownFlow
			}
			j := jobs[name]
			if j == nil {
				j = &okErr{}
				jobs[name] = j
			}
			j.ok += fc.OK
			j.err += fc.Error
		}
	}
	for flow, j := range jobs {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.CounterValue, float64(j.ok), flow, "ok")
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.CounterValue, float64(j.err), flow, "error")
	}
	ch <- prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, float64(running))
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(pending))

	var hits, misses int64
	var k, e buffers.Stats
	for _, eng := range engines {
		h, m := eng.CacheStats()
		hits, misses = hits+h, misses+m
		ks, es := eng.PoolStats()
		k, e = addStats(k, ks), addStats(e, es)
	}
	ch <- prometheus.MustNewConstMetric(cacheDesc, prometheus.CounterValue, float64(hits), "shape", "hit")
	ch <- prometheus.MustNewConstMetric(cacheDesc, prometheus.CounterValue, float64(misses), "shape", "miss")
	for _, p := range []struct {
		name string
		s    buffers.Stats
	}{{"K", k}, {"E", e}} {
		ch <- prometheus.MustNewConstMetric(poolBytesDesc, prometheus.GaugeValue, float64(p.s.BytesAlloc), p.name)
		ch <- prometheus.MustNewConstMetric(poolReqDesc, prometheus.CounterValue, float64(p.s.Reused), p.name, "reused")
		ch <- prometheus.MustNewConstMetric(poolReqDesc, prometheus.CounterValue, float64(p.s.Allocated), p.name, "allocated")
	}
}

func addStats(a, b buffers.Stats) buffers.Stats {
	return buffers.Stats{
		Gets: a.Gets + b.Gets, Reused: a.Reused + b.Reused, Allocated: a.Allocated + b.Allocated,
		BytesAlloc: a.BytesAlloc + b.BytesAlloc, Returned: a.Returned + b.Returned,
	}
}

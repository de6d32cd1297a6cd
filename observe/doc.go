// Package observe makes a running prover visible to its operators: Prometheus
// metrics, health and readiness probes, Chrome trace-event files and on-demand
// profiling, all fed by the engine's spans and the stream's own counters.
//
// Metrics is a stream.Observer and a Prometheus registry: it reads the live counters
// of every stream.Prover attached to it (stream.Prover.Counts) and of the engines it
// watches (cache and buffer-pool counters) when scraped, and turns each proof's
// spans into histogram observations; it keeps no count of its own. ServeMetrics
// serves it on /metrics beside /healthz and /readyz. Its labels are flow, stage,
// cache and pool names only: no job ids, contents or file paths.
//
// Trace is a stream.Observer (and takes proofs made outside a stream with Add) that
// writes the spans as Chrome trace-event JSON, which Perfetto and Chromium's trace
// viewer open: one process per proof with a row for the proof and one row per core
// slot the scheduler granted (graph.Span.Cores), and a "scheduler" process whose
// rows show every grant of every proof, so overlapping proofs show on the cores.
//
// ServeDebug serves net/http/pprof on a loopback address.
package observe

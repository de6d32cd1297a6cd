package main

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/observe"
	"github.com/leanpipe/leanpipe/stream"
)

// traceFlag is --trace FILE: the spans of the proofs a command makes, written as
// Chrome trace-event JSON (observe.Trace) when the command ends. A nil or unset
// traceFlag records nothing.
type traceFlag struct {
	path string
	t    *observe.Trace
}

const traceHelp = "write the proofs' stages as Chrome trace-event JSON to FILE at exit (open it in Perfetto or chrome://tracing)"

// addTraceFlag registers --trace on cmd and checks, before the command runs, that
// FILE can be written.
func addTraceFlag(cmd *cobra.Command) *traceFlag {
	tf := &traceFlag{}
	cmd.Flags().StringVar(&tf.path, "trace", "", traceHelp)
	chainPreRun(cmd, tf.check)
	return tf
}

// chainPreRun runs check before cmd's own PreRunE, if any.
func chainPreRun(cmd *cobra.Command, check func() error) {
	next := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if err := check(); err != nil {
			return err
		}
		if next != nil {
			return next(c, args)
		}
		return nil
	}
}

func (tf *traceFlag) check() error {
	if tf.path == "" {
		return nil
	}
	if err := atomicfile.Check(tf.path); err != nil {
		return usage("--trace %s: %v", tf.path, err)
	}
	tf.t = observe.NewTrace()
	return nil
}

// observer is the trace as a stream observer (nil when off).
func (tf *traceFlag) observer() stream.Observer {
	if tf == nil || tf.t == nil {
		return nil
	}
	return tf.t
}

// add records a proof made by Engine.Prove: it lasts Wall from its first stage's
// start (Wall also covers the few steps before the first stage, so every stage ends
// inside it); without spans it is taken to have ended just now.
func (tf *traceFlag) add(name string, res flows.Proved) *traceFlag {
	if tf == nil || tf.t == nil {
		return tf
	}
	start := time.Now().Add(-res.Wall)
	for i, s := range res.Spans {
		if i == 0 || s.Start.Before(start) {
			start = s.Start
		}
	}
	tf.t.Add(name, start, start.Add(res.Wall), res.Spans)
	return tf
}

// write writes the trace file (nothing when off).
func (tf *traceFlag) write() error {
	if tf == nil || tf.t == nil {
		return nil
	}
	return tf.t.WriteFile(tf.path)
}

// observeFlags are serve's observability flags: --metrics-addr, --debug-addr and
// --trace.
type observeFlags struct {
	metricsAddr, debugAddr     string // as given
	metricsListen, debugListen string // resolved (after check)
	trace                      *traceFlag
}

func addObserveFlags(cmd *cobra.Command) *observeFlags {
	of := &observeFlags{}
	f := cmd.Flags()
	f.StringVar(&of.metricsAddr, "metrics-addr", "", "serve Prometheus /metrics, /healthz and /readyz on HOST:PORT (a bare PORT binds 127.0.0.1; default off)")
	f.StringVar(&of.debugAddr, "debug-addr", "", "serve net/http/pprof on a loopback HOST:PORT (a bare PORT binds 127.0.0.1; default off)")
	of.trace = addTraceFlag(cmd)
	chainPreRun(cmd, of.check)
	return of
}

func (of *observeFlags) check() error {
	var err error
	if of.metricsAddr != "" {
		if of.metricsListen, err = observe.ResolveAddr(of.metricsAddr, false); err != nil {
			return usage("--metrics-addr: %v", unwrapAddr(err))
		}
	}
	if of.debugAddr != "" {
		if of.debugListen, err = observe.ResolveAddr(of.debugAddr, true); err != nil {
			return usage("--debug-addr: %v", unwrapAddr(err))
		}
	}
	return nil
}

// unwrapAddr drops the "observe: bad address: " prefix for a flag's message.
func unwrapAddr(err error) error {
	if errors.Is(err, observe.ErrAddr) {
		msg := err.Error()
		prefix := observe.ErrAddr.Error() + ": "
		if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
			return errors.New(msg[len(prefix):])
		}
	}
	return err
}

// observing is what a serving command runs with: the servers started and the
// observers of its stream.
type observing struct {
	log           zerolog.Logger
	metrics       *observe.Metrics
	server, debug *observe.Server
	trace         *traceFlag
}

// start starts the endpoints asked for, watching engine e. A nil observeFlags (or
// one with nothing set) observes nothing.
func (of *observeFlags) start(log zerolog.Logger, e *flows.Engine) (*observing, error) {
	ob := &observing{log: log}
	if of == nil {
		return ob, nil
	}
	ob.trace = of.trace
	if of.metricsListen != "" {
		ob.metrics = observe.NewMetrics()
		ob.metrics.WatchEngine(e)
		s, err := observe.ServeMetrics(of.metricsListen, ob.metrics)
		if err != nil {
			return nil, usage("--metrics-addr %s: %v", of.metricsAddr, err)
		}
		ob.server = s
		log.Info().Str("metrics_addr", s.Addr()).Msg("serving /metrics, /healthz and /readyz")
	}
	if of.debugListen != "" {
		s, err := observe.ServeDebug(of.debugListen)
		if err != nil {
			ob.close()
			return nil, usage("--debug-addr %s: %v", of.debugAddr, err)
		}
		ob.debug = s
		log.Info().Str("debug_addr", s.Addr()).Msg("serving /debug/pprof/")
	}
	return ob, nil
}

// context returns ctx with the stream observers (metrics, trace) attached.
func (ob *observing) context(ctx context.Context) context.Context {
	var ms stream.Observer
	if ob.metrics != nil {
		ms = ob.metrics
	}
	if o := observe.Join(ms, ob.trace.observer()); o != nil {
		return stream.WithObserver(ctx, o)
	}
	return ctx
}

// ready sets what /readyz answers.
func (ob *observing) ready(r bool) {
	if ob.server != nil {
		ob.server.SetReady(r)
	}
}

// finish writes the trace file; the endpoints stay up until close.
func (ob *observing) finish() error {
	ob.ready(false)
	return ob.trace.write()
}

// close stops the endpoints.
func (ob *observing) close() {
	for _, s := range []*observe.Server{ob.server, ob.debug} {
		if s != nil {
			_ = s.Close()
		}
	}
}

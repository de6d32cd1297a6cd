package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/reugn/go-streams"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
)

func serveCmd() *cobra.Command {
	var (
		out, budget, metricsPath, watch  string
		flowName                         string
		workers, inFlight, pending, maxN int
		grace, poll                      time.Duration
		nf                               natsFlags
		name                             string
		of                               *observeFlags
	)
	cmd := &cobra.Command{
		Use:   "serve --out DIR",
		Short: "long-running: prove jobs read as JSON lines on stdin, write DIR/<id>.proof.bin, print one result line per job in job order",
		Long: `serve reads jobs as JSON lines on stdin, one object a line:
  {"id":"a","blocks":"x.blocks.bin"}      compressions of a blocks file (reference layout)
  {"id":"b","n":300,"seed":7}             N generated pinned compressions
  {"id":"c","flow":"NAME","input":"f"}    another registered flow's input file (or "n")
  {"id":"d","signatures":"s.json"}        XMSS signatures to aggregate (flow xmss-aggregate; each
                                          is verified first, an invalid one is an error naming it)
  {"id":"e","states":"ins.bin"}           Keccak-f[1600] input states, N × 200 bytes (flow
                                          keccak-batch; DIR/<id>.proof.bin.states gets the states)
  {"id":"m","children":["a.bin","b.bin"],"signatures":"s.json"}
                                          merge xmss-aggregate leaf proofs (each with its .json) and,
                                          optionally, raw signatures (proved first as the last leaf)
                                          into one proof (2 to 8 children in all; "log_inv_rate"
                                          defaults to 2; as prove --child, merged children are not
                                          supported yet)
with optional "flow" (default --flow), "format" (wire|raw), "formats" (["wire","raw"]: both forms
of one proof, the first as DIR/<id>.proof.bin, the other as DIR/<id>.proof.<form>.bin, named in
the result's "also"), "log_inv_rate" (1..4) and "unordered" (true: the result may leave before
earlier jobs'). It writes DIR/<id>.proof.bin and DIR/<id>.proof.bin.json
atomically and prints one result line per job, in job order:
  {"seq":0,"id":"a","ok":true,"proof":"DIR/a.proof.bin","n":…,"ms":…,…}
  {"seq":1,"id":"b","ok":false,"error":"…"}
Job ids are 1 to 128 of A-Z a-z 0-9 _ - (the same rule as submit's and the queue's); a job
whose id an earlier job of the stream had, running or finished, gets "ok":false naming the id.
A bad job never stops the stream. At the end of input it exits 0. On SIGINT/SIGTERM it stops
reading and lets running proofs finish for --grace (a second signal abandons them at once);
every job read gets its result line and no partial proof file is left. Exit status 1 when
jobs were abandoned or results could not be written.

With --nats URL it is instead a worker of the shared JetStream work queue (jobs published by
"leanpipe submit"): it pulls at most --in-flight unacked jobs, keeps each lease while proving,
stores each proof and its metadata in the leanpipe-proofs object store, publishes the result on
leanpipe.results.<id> and only then acks; --out is then optional (a local copy). It runs until
SIGINT/SIGTERM; abandoned jobs go back to the queue.

--metrics-addr serves Prometheus metrics on /metrics, /healthz (200 while the process runs)
and /readyz (200 while it takes jobs, 503 from the first SIGINT/SIGTERM on); --trace writes
the proofs' stages as a Chrome trace at exit; --debug-addr serves net/http/pprof on loopback.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" && nf.url == "" {
				return usage("--out is required (it is optional with --nats)")
			}
			if nf.url != "" {
				if watch != "" {
					return usage("--watch and --nats are two job sources: give one")
				}
				if err := nf.check(); err != nil {
					return err
				}
			}
			if inFlight < 1 || inFlight > 1024 {
				return usage("--in-flight: %d is out of range [1, 1024]", inFlight)
			}
			if pending < 0 || pending > 1<<16 {
				return usage("--pending: %d is out of range [0, %d]", pending, 1<<16)
			}
			if workers < 0 || workers > 1024 {
				return usage("--workers: %d is out of range [0, 1024]", workers)
			}
			if grace < 0 {
				return usage("--grace: %v is negative", grace)
			}
			if poll <= 0 {
				return usage("--poll: %v, want a positive interval", poll)
			}
			fl, err := lookupFlow(flowName)
			if err != nil {
				return err
			}
			if maxN < 1 || maxN > fl.MaxN() {
				return usage("--max-n: %d is out of range [1, %d] (the %s flow's limit)", maxN, fl.MaxN(), fl.Name())
			}
			mem, err := resolveBudget("--memory-budget", budget)
			if err != nil {
				return err
			}
			longRunning()
			if watch != "" {
				if st, err := os.Stat(watch); err != nil || !st.IsDir() {
					return usage("--watch: %s is not a directory", watch)
				}
			}
			if nf.url != "" {
				o := nf.options()
				o.Worker, o.InFlight, o.MemoryBudget, o.BudgetFrom, o.MaxN, o.Grace, o.Flow, o.Out = name, inFlight, mem.Bytes, mem.From, maxN, grace, flowName, out
				return serveNATS(cmd, o, workers, metricsPath, of)
			}
			return streamJobs(cmd, streamConfig{
				Out: out, Watch: watch, Poll: poll, Metrics: metricsPath, Workers: workers, Observe: of,
				Options: stream.Options{InFlight: inFlight, Pending: pending, MemoryBudget: mem.Bytes, BudgetFrom: mem.From, MaxN: maxN, Grace: grace, Flow: flowName},
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "directory for DIR/<id>.proof.bin and .proof.bin.json")
	f.IntVar(&workers, "workers", 0, "cores the engine grants (0 = all)")
	f.IntVar(&inFlight, "in-flight", 2, "proofs running at once on the engine")
	f.IntVar(&pending, "pending", 0, "jobs held between reading and printing their result (0 = 4 × --in-flight); reading stops when reached")
	f.StringVar(&budget, "memory-budget", "auto", budgetHelp)
	f.StringVar(&metricsPath, "metrics", "", "write the stream's metrics as JSON to FILE at exit")
	f.IntVar(&maxN, "max-n", flows.MaxBatch, "most instances per job; larger jobs are refused")
	f.StringVar(&flowName, "flow", flows.DefaultName, "the flow of jobs that name none (a job's \"flow\" picks its own; leanpipe flows lists them)")
	f.DurationVar(&grace, "grace", 30*time.Second, "on SIGINT/SIGTERM, how long running proofs may finish before they are abandoned")
	f.StringVar(&watch, "watch", "", "read jobs from DIR/*.job files (polled) instead of stdin")
	f.DurationVar(&poll, "poll", 200*time.Millisecond, "with --watch, the polling interval")
	nf.add(cmd)
	f.StringVar(&name, "name", "", "with --nats, this worker's name in results and metrics (default host-pid)")
	of = addObserveFlags(cmd)
	return cmd
}

// streamConfig is one streaming run: jobs from stdin (or a watched directory),
// proofs into Out, one result line per job on stdout, metrics on stderr and in
// Metrics (a JSON file) when set. `serve` builds it from flags; a stream source in
// a `run` config can build it from YAML.
type streamConfig struct {
	// Out is the proof directory; Watch, when set, a directory of job files read
	// instead of lines; Input, when set, a JSON-lines file read instead of stdin
	// (its relative blocks paths are relative to the file); Metrics a JSON file.
	Out, Watch, Input, Metrics string
	Poll                       time.Duration
	Workers                    int
	Options                    stream.Options
	// Observe are the observability flags (nil: none).
	Observe *observeFlags
}

// streamJobs runs a stream until its input ends or a signal stops it (SIGINT or
// SIGTERM: stop reading and give running proofs Options.Grace; a second signal
// abandons them).
func streamJobs(cmd *cobra.Command, sc streamConfig) error {
	log := newLogger(cmd)
	files, err := stream.NewProofFiles(sc.Out)
	if err != nil {
		return usage("--out %s: %v", sc.Out, err)
	}
	if sc.Metrics != "" {
		if err := atomicfile.Check(sc.Metrics); err != nil {
			return usage("--metrics %s: %v", sc.Metrics, err)
		}
	}
	e, err := flows.NewEngine(flows.EngineOptions{Cores: sc.Workers, InFlight: sc.Options.InFlight})
	if err != nil {
		return err
	}
	defer e.Close()
	ob, err := sc.Observe.start(log, e)
	if err != nil {
		return err
	}
	defer ob.close()

	ctx, cancel := context.WithCancel(ob.context(context.Background()))
	defer cancel()
	opts := sc.Options
	opts.Cores = e.Scheduler().Cores()
	opts.UniqueIDs = true                 // a repeated id would overwrite DIR/<id>.proof.bin
	opts.Merger = serveMerger(sc.Workers) // merge jobs ("children"; merge.go)
	p := stream.NewProver(ctx, e, opts)
	ob.ready(true)
	defer onShutdown(log, opts.Grace, "abandoning running proofs", func() { ob.ready(false); cancel() }, p.Abort)()

	var src streams.Source
	var srcErr func() error
	if sc.Watch != "" {
		d := stream.NewDirSource(ctx, sc.Watch, sc.Poll, false)
		src, srcErr = d, d.Err
	} else {
		in, base := cmd.InOrStdin(), ""
		if sc.Input != "" {
			f, err := os.Open(sc.Input)
			if err != nil {
				return usage("jobs: %v", err)
			}
			defer f.Close()
			in, base = f, filepath.Dir(sc.Input)
		}
		l := stream.NewLineSource(ctx, in, base)
		src, srcErr = l, l.Err
	}
	sink := stream.NewJSONLines(cmd.OutOrStdout())
	log.Info().Str("out", sc.Out).Int("cores", opts.Cores).Int("in_flight", opts.InFlight).Int64("memory_budget", opts.MemoryBudget).Str("memory_budget_from", opts.BudgetFrom).Msg("serving")
	m := stream.Run(src, p, files, sink)
	traceErr := ob.finish()
	m.WriteText(cmd.ErrOrStderr())
	if sc.Metrics != "" {
		if err := atomicfile.Write(sc.Metrics, m.JSON()); err != nil {
			return err
		}
	}
	if traceErr != nil {
		return traceErr
	}
	if err := srcErr(); err != nil {
		return err
	}
	if err := sink.Err(); err != nil {
		return err
	}
	if files.Failed() > 0 {
		return fmt.Errorf("serve: %d proof files could not be written", files.Failed())
	}
	if m.Abandoned > 0 {
		return fmt.Errorf("serve: %d accepted jobs abandoned at shutdown", m.Abandoned)
	}
	return nil
}

// onShutdown makes SIGINT/SIGTERM stop the work in two steps: the first signal calls
// stop (not ready, no new jobs; running proofs get the grace) and then logs
// "shutting down", a second calls abort (running proofs are abandoned). The returned
// function stops listening.
func onShutdown(log zerolog.Logger, grace time.Duration, abandoned string, stop, abort func()) (release func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		// Logged once stop has run, so that whoever reads the log (an operator, a
		// test) knows /readyz answers 503 from this line on.
		stop()
		log.Warn().Str("signal", s.String()).Dur("grace_ms", grace).Msg("shutting down: not ready, no new jobs; running proofs may finish (signal again to abandon them)")
		if s, ok = <-sigs; ok {
			log.Warn().Str("signal", s.String()).Msg(abandoned)
			abort()
		}
	}()
	return func() { signal.Stop(sigs) }
}

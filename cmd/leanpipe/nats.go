package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/queue"
	"github.com/leanpipe/leanpipe/stream"
)

// natsFlags are the connection and queue flags serve --nats and submit share.
type natsFlags struct {
	url, creds, tlsCA string
	ackWait           time.Duration
	maxDeliver        int
}

func (n *natsFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&n.url, "nats", "", "NATS server URL(s), comma-separated: work through the JetStream queue")
	f.StringVar(&n.creds, "creds", "", "NATS credentials file (never logged)")
	f.StringVar(&n.tlsCA, "tls-ca", "", "CA certificate file for the NATS server's TLS certificate")
	f.DurationVar(&n.ackWait, "ack-wait", 30*time.Second, "lease of a pulled job; workers renew it while proving (give submit and workers the same value)")
	f.IntVar(&n.maxDeliver, "max-deliver", 5, "deliveries a job may be proved before it goes to the dead-letter subject")
}

func (n *natsFlags) check() error {
	switch {
	case n.ackWait < time.Second:
		return usage("--ack-wait: %v, want at least 1s", n.ackWait)
	case n.maxDeliver < 1 || n.maxDeliver > 100:
		return usage("--max-deliver: %d is out of range [1, 100]", n.maxDeliver)
	}
	return checkFiles(map[string]string{"--creds": n.creds, "--tls-ca": n.tlsCA})
}

// checkFiles checks that each set path (by the flag or config key naming it) is a
// regular file.
func checkFiles(paths map[string]string) error {
	for name, p := range paths {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return usage("%s %s: not a readable file", name, p)
		}
	}
	return nil
}

func (n *natsFlags) options() queue.Options {
	return queue.Options{URL: n.url, Creds: n.creds, TLSCA: n.tlsCA, AckWait: n.ackWait, MaxDeliver: n.maxDeliver}
}

// makeDir creates dir (and its parents) when it is missing, as serve --out does, and
// checks that it is a writable directory.
func makeDir(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return atomicfile.CheckDir(dir)
}

// serveNATS is serve --nats, and run with a `stream.source: nats` config: a worker
// of the shared JetStream queue until a signal stops it (the first lets running
// proofs finish for the grace, a second abandons them; their jobs are handed back to
// the queue). Its errors are prefixed with the command's name.
func serveNATS(cmd *cobra.Command, o queue.Options, workers int, metricsPath string, of *observeFlags) error {
	longRunning()
	log := newLogger(cmd)
	if o.Out != "" {
		if err := makeDir(o.Out); err != nil {
			return usage("--out %s: %v", o.Out, err)
		}
	}
	if metricsPath != "" {
		if err := atomicfile.Check(metricsPath); err != nil {
			return usage("--metrics %s: %v", metricsPath, err)
		}
	}
	o.RetryConnect = true // a worker may start before its server
	nc, js, err := queue.Connect(o)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.Name(), err)
	}
	defer nc.Close()
	if !nc.IsConnected() {
		log.Warn().Msg("the NATS server is not reachable yet: waiting for it")
	}
	e, err := flows.NewEngine(flows.EngineOptions{Cores: workers, InFlight: o.InFlight})
	if err != nil {
		return err
	}
	defer e.Close()
	ob, err := of.start(log, e)
	if err != nil {
		return err
	}
	defer ob.close()
	o.Cores = e.Scheduler().Cores()
	o.Logf = func(format string, args ...any) { log.Warn().Msgf(format, args...) }
	if o.Merger == nil {
		o.Merger = serveMerger(workers) // merge jobs of the bucket's proofs (nats_tree.go)
	}
	w := queue.NewWorker(js, e, o)
	if ob.metrics != nil {
		if err := ob.metrics.Registry().Register(queueCollector{w}); err != nil {
			return err
		}
	}

	ctx, cancel := context.WithCancel(ob.context(context.Background()))
	defer cancel()
	ob.ready(true)
	defer onShutdown(log, o.Grace, "abandoning running proofs; their jobs go back to the queue", func() { ob.ready(false); cancel() }, w.Abort)()
	log.Info().Str("worker", o.Worker).Int("cores", o.Cores).Int("in_flight", o.InFlight).Int64("memory_budget", o.MemoryBudget).Str("memory_budget_from", o.BudgetFrom).Dur("ack_wait_ms", o.AckWait).Msg("serving the NATS queue")
	m, err := w.Run(ctx)
	if terr := ob.finish(); terr != nil && err == nil {
		err = terr
	}
	m.WriteText(cmd.ErrOrStderr())
	if metricsPath != "" {
		if werr := atomicfile.Write(metricsPath, m.JSON()); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w", cmd.Name(), err)
	}
	return nil
}

func submitCmd() *cobra.Command {
	var (
		n               natsFlags
		fetch, flowName string
		noWait          bool
		maxN            int
		timeout         time.Duration
		tf              treeFlags
	)
	cmd := &cobra.Command{
		Use:   "submit --nats URL JOBS.jsonl | submit --nats URL --tree FILE --leaf L",
		Short: "publish jobs to the JetStream queue, wait for their results and print one result line per job",
		Long: `submit publishes the jobs of a JSON-lines file (serve's job form; ids are 1 to 128
of A-Z a-z 0-9 _ -, as for serve, and each is given once: otherwise nothing is published and
the exit status is 2) to the shared JetStream work queue (subjects leanpipe.jobs.<flow>), creating
the streams, the workers' consumer and the proof bucket when missing, waits for every job's
result (unless --no-wait) and prints exactly one result line per job on stdout: serve's JSON
plus "worker", "deliveries" and "object", the proof's object in the leanpipe-proofs bucket
("proof", a local file, only with --fetch). --fetch DIR (created if missing) downloads each proof as
DIR/<id>.proof.bin with its .json sidecar (and DIR/<id>.proof.<form>.bin for a job whose
"formats" asks for both forms) and verifies it against the statement of the job's own input,
never the worker's word: submit reads each input file before publishing, records its SHA-256
in the job ("input_sha256"; a worker refuses a file whose contents changed) and the statement
it proves (flow, n, rate, form and the flow's data: message, epoch and keys for
xmss-aggregate); a fetched proof of any other statement is refused (exit 1, naming the job and
the field). Proofs are stored by the input's contents, not its path. Input files named by
jobs are opened by the workers too: relative paths are resolved against the jobs file's
directory and sent absolute, so the workers must read them at that path. A merge job
{"id","children":["<id>.proof.bin",…]} merges 2 to 8 xmss-aggregate leaf proofs of the
bucket, named by their objects, into one proof.

--tree FILE --leaf L proves one signatures set (the input --signatures takes) as a tree:
FILE is cut in order into leaves of L signers (2 to 128 leaves), written as
FILE.leaves/<id>-leaf-<i>.json (the workers read them at that path), the leaf jobs
<id>-leaf-<i> are queued, and once all are done the merge job <id> of their proofs (more
than 8 leaves: no-reveal merges of balanced groups of up to 8 leaves, <id>-group-<g>, a
power of two of them, then each level's merges of pairs of those, <id>-d<depth>-<g>,
level by level, then <id>);
with --fetch the one merged proof is downloaded and verified
against FILE's message, epoch and keys in order. --id names the tree (default: FILE's name).
Exit status 0 when every job is ok, 1 otherwise, 2 for bad input.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("tree") || cmd.Flags().Changed("leaf") {
				if len(args) != 0 {
					return usage("--tree takes no jobs file")
				}
				if n.url == "" {
					return usage("--nats is required")
				}
				if err := n.check(); err != nil {
					return err
				}
				if noWait {
					return usage("--tree waits for its leaves before queuing the merge: drop --no-wait")
				}
				if timeout < 0 {
					return usage("--timeout: %v is negative", timeout)
				}
				return submitTree(cmd, n, tf, fetch, timeout)
			}
			if len(args) != 1 {
				return usage("give a jobs file, or --tree FILE --leaf L")
			}
			if n.url == "" {
				return usage("--nats is required")
			}
			if err := n.check(); err != nil {
				return err
			}
			if timeout < 0 {
				return usage("--timeout: %v is negative", timeout)
			}
			fl, err := lookupFlow(flowName)
			if err != nil {
				return err
			}
			if maxN < 1 || maxN > fl.MaxN() {
				return usage("--max-n: %d is out of range [1, %d] (the %s flow's limit)", maxN, fl.MaxN(), fl.Name())
			}
			if fetch != "" {
				if noWait {
					return usage("--fetch needs the results: drop --no-wait")
				}
				if err := makeDir(fetch); err != nil {
					return usage("--fetch %s: %v", fetch, err)
				}
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usage("jobs: %v", err)
			}
			defer f.Close()
			ctx := context.Background()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			jobs, err := queue.ReadJobs(ctx, f, filepath.Dir(args[0]))
			if err != nil {
				return usage("%s: %v", args[0], err)
			}
			if err := checkJobIDs(jobs); err != nil {
				return usage("%s: %v; nothing published", args[0], err)
			}
			o := n.options()
			o.Flow, o.MaxN, o.NoWait, o.Fetch = flowName, maxN, noWait, fetch
			nc, js, err := queue.Connect(o)
			if err != nil {
				return fmt.Errorf("submit: %w", err)
			}
			defer nc.Close()
			results, err := queue.Submit(ctx, js, jobs, o)
			out := cmd.OutOrStdout()
			bad := 0
			for _, r := range results {
				out.Write(append(r.JSON(), '\n'))
				if !r.OK {
					bad++
				}
			}
			if err != nil {
				return fmt.Errorf("submit: %w", err)
			}
			if bad > 0 {
				return fmt.Errorf("submit: %d of %d jobs failed", bad, len(results))
			}
			return nil
		},
	}
	n.add(cmd)
	f := cmd.Flags()
	f.StringVar(&fetch, "fetch", "", "download and verify each proof into DIR")
	f.BoolVar(&noWait, "no-wait", false, "return once every job is published")
	f.IntVar(&maxN, "max-n", flows.MaxBatch, "most instances per job; larger jobs are refused before publishing")
	f.StringVar(&flowName, "flow", flows.DefaultName, "the flow of jobs that name none")
	f.DurationVar(&timeout, "timeout", 0, "give up waiting after this long (0 = wait for every result)")
	tf.add(cmd)
	return cmd
}

// queueCollector exports a worker's queue counters (queue.Metrics beyond the
// stream's) on /metrics; each scrape reads them once.
type queueCollector struct{ w *queue.Worker }

var queueDescs = []struct {
	desc *prometheus.Desc
	val  func(m queue.Metrics) float64
}{
	{prometheus.NewDesc("leanpipe_queue_pulled_total", "Deliveries pulled from the jobs consumer.", nil, nil), func(m queue.Metrics) float64 { return float64(m.Pulled) }},
	{prometheus.NewDesc("leanpipe_queue_redeliveries_total", "Pulled deliveries that were not a job's first.", nil, nil), func(m queue.Metrics) float64 { return float64(m.Redeliveries) }},
	{prometheus.NewDesc("leanpipe_queue_from_store_total", "Jobs answered from the proof store without proving.", nil, nil), func(m queue.Metrics) float64 { return float64(m.FromStore) }},
	{prometheus.NewDesc("leanpipe_queue_dead_letters_total", "Jobs sent to the dead-letter subject.", nil, nil), func(m queue.Metrics) float64 { return float64(m.DeadLetters) }},
	{prometheus.NewDesc("leanpipe_queue_results_published_total", "Result messages published.", nil, nil), func(m queue.Metrics) float64 { return float64(m.Published) }},
	{prometheus.NewDesc("leanpipe_queue_acked_total", "Jobs acked after their result.", nil, nil), func(m queue.Metrics) float64 { return float64(m.Acked) }},
	{prometheus.NewDesc("leanpipe_queue_terminated_total", "Jobs terminated after an error result.", nil, nil), func(m queue.Metrics) float64 { return float64(m.Terminated) }},
	{prometheus.NewDesc("leanpipe_queue_nacked_total", "Jobs handed back to the queue.", nil, nil), func(m queue.Metrics) float64 { return float64(m.Nacked) }},
	{prometheus.NewDesc("leanpipe_queue_store_bytes_total", "Bytes put into the proof store (proofs and statements).", nil, nil), func(m queue.Metrics) float64 { return float64(m.StoreBytes) }},
}

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range queueDescs {
		ch <- d.desc
	}
}

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.w.Metrics()
	for _, d := range queueDescs {
		ch <- prometheus.MustNewConstMetric(d.desc, prometheus.CounterValue, d.val(m))
	}
}

// checkJobIDs refuses, before anything is published, jobs whose id is missing or
// breaks the id rule (stream.CheckID) and ids given twice, listing the first few.
func checkJobIDs(jobs []stream.Envelope[stream.Job]) error {
	var bad []string
	seen := map[string]bool{}
	for _, env := range jobs {
		var ie *stream.IDError
		switch {
		case errors.As(env.Err, &ie):
			bad = append(bad, env.Err.Error())
		case env.Err == nil && seen[env.Val.ID]:
			bad = append(bad, fmt.Sprintf("job %s: the id is given twice", env.Val.ID))
		case env.Err == nil:
			seen[env.Val.ID] = true
		}
	}
	if len(bad) > 0 {
		return errors.New(boundedList(bad, 5, "; "))
	}
	return nil
}

// boundedList joins the first max items and says how many more there are: the
// "…and N more" of every long list of errors.
func boundedList(items []string, max int, sep string) string {
	if len(items) <= max {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s%s…and %d more", strings.Join(items[:max], sep), sep, len(items)-max)
}

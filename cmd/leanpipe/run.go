package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"os"
	"path/filepath"
	"time"

	"github.com/leanpipe/leanpipe/config"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/spf13/cobra"
)

// leafSummary is one leaf of a run's JSON summary.
type leafSummary struct {
	Leaf       int          `json:"leaf"`
	Proof      string       `json:"proof"`
	N          int          `json:"n"`
	ProofBytes int          `json:"proof_bytes"`
	ProveMS    float64      `json:"prove_ms"`
	VerifyMS   float64      `json:"verify_ms"`
	Stages     []stageTimes `json:"stages"`
}

type stageTimes struct {
	Name     string  `json:"name"`
	MS       float64 `json:"ms"`
	Workers  int     `json:"workers"`
	BytesIn  int64   `json:"bytes_in"`
	BytesOut int64   `json:"bytes_out"`
	Hits     int64   `json:"cache_hits"`
	Misses   int64   `json:"cache_misses"`
}

type runSummary struct {
	Config config.Run `json:"config"`
	// MemoryBudget is the budget the run was held to: its setting ("auto", or the
	// bytes given), the bytes and where they came from.
	MemoryBudget      budgetSummary `json:"memory_budget"`
	Leaves            []leafSummary `json:"leaves"`
	WallMS            float64       `json:"wall_ms"`
	CompressionsPerS  float64       `json:"compressions_per_s,omitempty"`
	SignaturesPerS    float64       `json:"signatures_per_s,omitempty"`   // xmss-aggregate instead of compressions_per_s
	PermutationsPerS  float64       `json:"permutations_per_s,omitempty"` // keccak-batch instead of compressions_per_s
	ProofsPerS        float64       `json:"proofs_per_s"`
	TotalProofBytes   int           `json:"total_proof_bytes"`
	PeakRSSBytes      int64         `json:"peak_rss_bytes"`
	BufferAllocations int64         `json:"buffer_allocations"`
	BufferReuses      int64         `json:"buffer_reuses"`
	// Merged is a tree run's merged proof (run_tree.go).
	Merged *mergedSummary `json:"merged,omitempty"`
}

func stagesOf(spans []graph.Span) []stageTimes {
	out := make([]stageTimes, 0, len(spans))
	for _, s := range spans {
		out = append(out, stageTimes{s.Name, millis(s.Duration), s.Workers, s.BytesIn, s.BytesOut, s.Hits, s.Misses})
	}
	return out
}

// leafName is the file name of leaf i's proof.
func leafName(i int) string { return fmt.Sprintf("leaf-%04d.proof.bin", i) }

// saveLeaf encodes leaf i's proof in the run's format, verifies the bytes, writes them
// with their PROOF.json under the run's output and returns the leaf's summary (n its
// instance count).
func saveLeaf(cfg config.Run, fl flows.Flow, i, n int, res flows.Proved) (leafSummary, error) {
	meta := flows.NewMetaFor(fl, res.Statement, cfg.Format)
	data := flows.EncodeProof(res.Proof, cfg.Format)
	vstart := time.Now()
	if _, err := flows.VerifyBytes(data, meta); err != nil {
		return leafSummary{}, fmt.Errorf("leaf %d: the proof does not verify: %w", i, err)
	}
	vdur := time.Since(vstart)
	path := filepath.Join(cfg.Output, leafName(i))
	if err := flows.WriteProofBytes(path, data, meta); err != nil {
		return leafSummary{}, err
	}
	return leafSummary{Leaf: i, Proof: path, N: n, ProofBytes: len(data),
		ProveMS: millis(res.Wall), VerifyMS: millis(vdur), Stages: stagesOf(res.Spans)}, nil
}

func runCmd() *cobra.Command {
	var budget string
	var trace *traceFlag
	cmd := &cobra.Command{
		Use:   "run CONFIG.yaml",
		Short: "prove what a config describes, verify each proof, write proofs and a JSON summary",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log := newLogger(cmd)
			cfg, err := config.Load(args[0])
			if err != nil {
				return usageError{err}
			}
			mem := budgetOf("memory_budget", cfg.MemoryBudget)
			if cmd.Flags().Changed("memory-budget") {
				if mem, err = resolveBudget("--memory-budget", budget); err != nil {
					return err
				}
			}
			if cfg.Stream != nil {
				return runStream(cmd, args[0], cfg, mem, trace)
			}
			if cfg.Tree != nil {
				return runTree(cmd, args[0], cfg, mem, trace)
			}
			fl, err := lookupFlow(cfg.Flow)
			if err != nil {
				return err
			}
			var fixed flows.Input
			if cfg.Input != "" {
				in := cfg.Input
				if !filepath.IsAbs(in) {
					in = filepath.Join(filepath.Dir(args[0]), in)
				}
				if fixed, err = readInput(fl, "input", in); err != nil {
					return err
				}
				if err := fl.Check(fixed.Len(), cfg.LogInvRate); err != nil {
					return usage("input %s: %v", in, err)
				}
			}
			n := cfg.Batch
			if fixed != nil {
				n = fixed.Len()
			}
			if err := mem.check("leaf", fl, n, cfg.LogInvRate); err != nil {
				return err
			}
			files := []string{"summary.json"}
			for i := range cfg.Leaves {
				files = append(files, leafName(i), leafName(i)+".json")
			}
			if err := prepareOutDir("output", cfg.Output, files...); err != nil {
				return err
			}
			e, err := flows.NewEngine(flows.EngineOptions{Cores: cfg.Workers})
			if err != nil {
				return err
			}
			defer e.Close()
			log.Info().Str("config", args[0]).Str("flow", fl.Name()).Int("leaves", cfg.Leaves).Int("batch", cfg.Batch).
				Int("cores", e.Scheduler().Cores()).Str("output", cfg.Output).Msg("run")

			bar := newProgress(cmd.ErrOrStderr(), "proving leaves", cfg.Leaves)
			defer bar.finish()
			ctx := bar.stages(context.Background())
			sum := runSummary{Config: cfg, MemoryBudget: mem.summary()}
			start := time.Now()
			compressions := 0
			var lastSpans []graph.Span
			for i := 0; i < cfg.Leaves; i++ {
				in := fixed
				if in == nil {
					if in, err = fl.Generate(cfg.Batch, cfg.Seed+uint64(i)); err != nil {
						return usage("batch: %v", err)
					}
				}
				res, err := e.Prove(ctx, flows.Request{Flow: fl, Input: in, LogInvRate: cfg.LogInvRate})
				if err != nil {
					return fmt.Errorf("leaf %d: %w", i, err)
				}
				ls, err := saveLeaf(cfg, fl, i, in.Len(), res)
				if err != nil {
					return err
				}
				compressions += benchCount(in)
				sum.TotalProofBytes += ls.ProofBytes
				sum.Leaves = append(sum.Leaves, ls)
				lastSpans = res.Spans
				trace.add(fmt.Sprintf("leaf %d", i), res)
				log.Debug().Int("leaf", i).Dur("prove_ms", res.Wall).Float64("verify_ms", ls.VerifyMS).Str("proof", ls.Proof).Msg("leaf proved and verified")
				bar.add(1)
			}
			bar.finish()
			wall := time.Since(start)
			sum.WallMS = millis(wall)
			rate := float64(compressions) / wall.Seconds()
			sum.setRate(fl, rate)
			sum.ProofsPerS = float64(cfg.Leaves) / wall.Seconds()
			sum.PeakRSSBytes = rusage.PeakRSS()
			k, ext := e.PoolStats()
			sum.BufferAllocations, sum.BufferReuses = k.Allocated+ext.Allocated, k.Reused+ext.Reused
			sb, _ := json.MarshalIndent(sum, "", "  ")
			summaryPath := filepath.Join(cfg.Output, "summary.json")
			if err := atomicfile.Write(summaryPath, append(sb, '\n')); err != nil {
				return err
			}
			if err := trace.write(); err != nil {
				return err
			}
			noun := instances(fl)
			printSpans(cmd.OutOrStdout(), fmt.Sprintf("last leaf: %d %s", sum.Leaves[len(sum.Leaves)-1].N, noun), lastSpans)
			fmt.Fprintf(cmd.OutOrStdout(), "%d leaves, %d %s in %.2f s: %.0f %s/s, %.2f proofs/s; all verified; summary %s\n",
				cfg.Leaves, compressions, noun, wall.Seconds(), rate, noun, sum.ProofsPerS, summaryPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&budget, "memory-budget", "auto", budgetHelp+" (overrides the config's memory_budget)")
	trace = addTraceFlag(cmd)
	return cmd
}

// runStream runs a config's stream source like `leanpipe serve`, verifying every proof,
// with the stream's metrics written to OUTPUT/metrics.json.
func runStream(cmd *cobra.Command, cfgPath string, cfg config.Run, mem memBudget, trace *traceFlag) error {
	longRunning()
	s := cfg.Stream
	if s.MemoryBudget != config.AutoBudget && !cmd.Flags().Changed("memory-budget") {
		mem = budgetOf("stream.memory_budget", s.MemoryBudget)
	}
	// Paths in the config are relative to it.
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(cfgPath), p)
	}
	if s.Source == config.SourceNATS {
		return runNATS(cmd, cfg, rel, mem, trace)
	}
	path := rel(s.Path)
	sc := streamConfig{
		Out: cfg.Output, Poll: s.Poll, Metrics: filepath.Join(cfg.Output, "metrics.json"), Workers: cfg.Workers,
		Options: stream.Options{InFlight: s.InFlight, Pending: s.Pending, MemoryBudget: mem.Bytes, BudgetFrom: mem.From, MaxN: s.MaxN, Flow: cfg.Flow, Grace: s.Grace, Verify: true},
		Observe: &observeFlags{trace: trace},
	}
	switch s.Source {
	case "dir":
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			return usage("stream.path: %s is not a directory", path)
		}
		sc.Watch = path
	default:
		if _, err := os.Stat(path); err != nil {
			return usage("stream.path: %v", err)
		}
		sc.Input = path
	}
	if err := prepareOutDir("output", cfg.Output, "metrics.json"); err != nil {
		return err
	}
	return streamJobs(cmd, sc)
}

// runNATS runs a `stream.source: nats` config as serve --nats runs: a worker of the
// shared JetStream queue until SIGINT/SIGTERM, verifying every proof, with a local
// copy of each in OUTPUT and the worker's metrics (the queue's counts included)
// written to OUTPUT/metrics.json at exit.
func runNATS(cmd *cobra.Command, cfg config.Run, rel func(string) string, mem memBudget, trace *traceFlag) error {
	s := cfg.Stream
	n := natsFlags{url: s.URL, creds: rel(s.Creds), tlsCA: rel(s.TLSCA), ackWait: s.AckWait, maxDeliver: s.MaxDeliver}
	// The config checked the values; the files are checked here, named by their keys.
	if err := checkFiles(map[string]string{"stream.creds": n.creds, "stream.tls_ca": n.tlsCA}); err != nil {
		return err
	}
	if err := prepareOutDir("output", cfg.Output, "metrics.json"); err != nil {
		return err
	}
	o := n.options()
	o.Worker, o.InFlight, o.MemoryBudget, o.BudgetFrom, o.MaxN, o.Grace, o.Flow, o.Out, o.Verify =
		s.Name, s.InFlight, mem.Bytes, mem.From, s.MaxN, s.Grace, cfg.Flow, cfg.Output, true
	return serveNATS(cmd, o, cfg.Workers, filepath.Join(cfg.Output, "metrics.json"), &observeFlags{trace: trace})
}

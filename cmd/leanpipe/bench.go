package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/internal/cachedir"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/keccak"
	"github.com/leanpipe/leanpipe/recursion"
	"github.com/spf13/cobra"
)

// benchRow is one measured point. N is its instance count; LogN is set when the
// point was given as --log-n. The throughput is compressions_per_s for the batch flow
// (and other flows), signatures_per_s for xmss-aggregate. Kernels is the level each
// kernel family ran at in the process that measured the point (family → level).
// Baseline is set when bench was given --baseline and the file has this point.
type benchRow struct {
	Flow       string             `json:"flow,omitempty"`
	N          int                `json:"n"`
	LogN       *int               `json:"log_n,omitempty"`
	Workers    int                `json:"workers"`
	LogInvRate int                `json:"log_inv_rate,omitempty"`
	Repeat     int                `json:"repeat"`
	StageMS    map[string]float64 `json:"stage_ms_median"`
	// StageCPUMS is the process's CPU time (user + system) over each stage, median
	// over the measured proofs: StageCPUMS/StageMS is the cores the stage kept busy.
	StageCPUMS map[string]float64 `json:"stage_cpu_ms_median,omitempty"`
	ProveMS    float64            `json:"prove_ms_median"`
	VerifyMS   float64            `json:"verify_ms_median"`
	// VerifyOneShotMS is `leanpipe verify` of the point's last proof in a fresh
	// process with an empty cache directory (its whole wall time, start-up included),
	// median over --repeat runs.
	VerifyOneShotMS  float64           `json:"verify_oneshot_ms_median,omitempty"`
	CompressionsPerS float64           `json:"compressions_per_s,omitempty"`
	SignaturesPerS   float64           `json:"signatures_per_s,omitempty"`
	PermutationsPerS float64           `json:"permutations_per_s,omitempty"`
	ProofBytes       int               `json:"proof_bytes"`
	PeakRSSBytes     int64             `json:"peak_rss_bytes"`
	Kernels          map[string]string `json:"kernels,omitempty"`
	// StageRSS is each stage's peak resident memory over the measured proofs, and
	// ColdStageRSS over the warm-up proof, the point's first (--stage-rss).
	StageRSS     map[string]int64 `json:"stage_peak_rss_bytes,omitempty"`
	ColdStageRSS map[string]int64 `json:"cold_stage_peak_rss_bytes,omitempty"`
	Baseline     *benchRatios     `json:"baseline,omitempty"`
	// Merge is K for a row of bench --merge K (a K→1 merge of leaves of LeafSigs
	// signers at LeafLogInvRate; N is K × LeafSigs), 0 otherwise.
	Merge          int `json:"merge,omitempty"`
	LeafSigs       int `json:"leaf_sigs,omitempty"`
	LeafLogInvRate int `json:"leaf_log_inv_rate,omitempty"`
	// Nestable marks a --merge row of a no-reveal merge (--nestable).
	Nestable bool `json:"nestable,omitempty"`
}

// benchRatios compares a row with its baseline row: every ratio is new/old (below 1
// is faster or smaller), present only where the baseline's value is positive.
type benchRatios struct {
	File       string             `json:"file"`
	StageRatio map[string]float64 `json:"stage_ratio"`
	Prove      float64            `json:"prove_ratio,omitempty"`
	Verify     float64            `json:"verify_ratio,omitempty"`
	PeakRSS    float64            `json:"peak_rss_ratio,omitempty"`
}

// benchStages are the Flock flows' stages in protocol order (a flow's other stages
// follow them, by name).
var benchStages = []string{"plan", "witness", "commit", "zerocheck", "lincheck", "ringswitch", "open"}

// stageFamilies are the kernel families each stage runs: the level shown beside a
// stage is these families' levels.
var stageFamilies = map[string][]string{
	"witness":    {"blake2s", "circuit"},
	"commit":     {"ntt", "blake2s"},
	"zerocheck":  {"zerocheck"},
	"lincheck":   {"reduce"},
	"ringswitch": {"reduce"},
	"open":       {"open", "ntt", "field"},
}

// kernelMap is every registered family's level in use, family → level.
func kernelMap() map[string]string {
	m := map[string]string{}
	for _, f := range cpu.Families() {
		m[f.Name()] = f.Level().String()
	}
	return m
}

// stageKernels is the kernel column of stage name in a row measured with kernels k:
// "family=level" for each of the stage's families ("?" for a family k does not
// name), "-" for a stage that runs no kernel family.
func stageKernels(name string, k map[string]string) string {
	fams := stageFamilies[name]
	if len(fams) == 0 {
		return "-"
	}
	parts := make([]string, len(fams))
	for i, f := range fams {
		l, ok := k[f]
		if !ok {
			l = "?"
		}
		parts[i] = f + "=" + l
	}
	return strings.Join(parts, " ")
}

// benchPoint is one size to measure: n instances, given as 2^logN (--log-n) or as
// a count (--sigs).
type benchPoint struct {
	n, logN int
	byLog   bool
}

// flag is the child's command-line form of the point.
func (p benchPoint) flag() []string {
	if p.byLog {
		return []string{"--log-n", strconv.Itoa(p.logN)}
	}
	return []string{"--sigs", strconv.Itoa(p.n)}
}

func (p benchPoint) String() string {
	if p.byLog {
		return fmt.Sprintf("2^%d", p.logN)
	}
	return strconv.Itoa(p.n)
}

func parseInts(flag, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < lo || v > hi {
			return nil, usage("--%s: %q is not an integer in [%d, %d]", flag, f, lo, hi)
		}
		out = append(out, v)
	}
	return out, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func benchCmd() *cobra.Command {
	var (
		logNs, sigs, workersList string
		flowName, baselineFile   string
		fromFile, keepProof      string
		budget                   string
		repeat, rate             int
		mergeK, leafRate         int
		asJSON, inProcess        bool
		withRSS, nestable        bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "the standard benchmark: per-stage times, compressions/s (signatures/s) and peak RSS per size and worker count",
		Long: `bench proves each size at each worker count (one warm-up, then --repeat measured
proofs, each point in a child process of its own so that its peak RSS is its own; the
process is a long-running one, as serve is: at two or more workers the warm-up plans each
circuit's walk segments, which a one-shot prove never does) and prints the median
per-stage times with the kernel level each stage ran at, the throughput, the verify
time (warm, in the proving process, and one-shot: leanpipe verify of the point's last
proof in a fresh process with an empty cache directory, --repeat times; not with
--in-process), the proof size and the peak RSS. The cores column is
each stage's CPU time over its wall time (the process's; one proof runs at a time):
at 2 workers, a stage near 2.00 that is not twice as fast as at 1 is bound by
something the cores share (memory bandwidth), one well below 2.00 waits on a serial
part or on the machine. The column is capped at the worker count: the process's CPU time
also counts the Go runtime's own threads (the collector), and a short stage such as plan
can show more CPU than its workers could spend.

Sizes are --log-n (2^k instances; the batch flow's, compressions) or, for the
xmss-aggregate flow, --sigs (signature counts; --sigs implies --flow xmss-aggregate).
Signers are generated before any timing (and cached on disk, $LEANPIPE_CACHE_DIR or the
user cache directory), so signing is not measured.

Every point's memory estimate is checked against --memory-budget before any point
runs (the points run one at a time, so each is checked alone).

--baseline FILE reads an earlier bench --json output and prints, for every point it
has (same flow, size and worker count), each stage's time and the ratio new/old, the
total's, the verify time's and the peak RSS's; points missing on either side, and
points measured at another log_inv_rate, are listed. With --json the ratios are in each
row's "baseline" and the listing goes to stderr.

--merge K times one K→1 merge of xmss-aggregate leaves (2 ≤ K ≤ 8): per --sigs S (one
leaf's size, default 200) the K leaves are cut from one generated set and proved at
--leaf-log-inv-rate before any timing; each measured merge includes the native checks of
its children, and the merged file is verified after it. The merge's --log-inv-rate
defaults to 2. A row gives prove and verify medians, the merged file's bytes and the
peak RSS, and in --json "merge": K, "leaf_sigs" and "leaf_log_inv_rate" beside the usual
fields (n is the merged proof's key count, K × S).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var base *baseline
			if baselineFile != "" {
				var err error
				if base, err = readBaseline(baselineFile); err != nil {
					return err
				}
			}
			if fromFile != "" {
				for _, f := range []string{"flow", "log-n", "sigs", "workers", "repeat", "log-inv-rate", "in-process", "memory-budget", "stage-rss", "merge", "leaf-log-inv-rate", "nestable"} {
					if cmd.Flags().Changed(f) {
						return usage("--from prints an earlier run's rows: --%s does not apply", f)
					}
				}
				from, err := readBenchRows("--from", fromFile)
				if err != nil {
					return err
				}
				return printBench(cmd, from, base, asJSON)
			}
			var mb mergeBench
			if cmd.Flags().Changed("merge") {
				if mergeK < 2 || mergeK > recursion.MaxChildren {
					return usage("--merge: %d, want 2..%d children (a larger set merges as a tree: prove --child … --nestable)", mergeK, recursion.MaxChildren)
				}
				if cmd.Flags().Changed("log-n") {
					return usage("--merge sizes leaves by --sigs, not --log-n")
				}
				if cmd.Flags().Changed("stage-rss") {
					return usage("--stage-rss does not apply to --merge (a merge has no stage spans)")
				}
				if leafRate < 1 || leafRate > 4 {
					return usage("--leaf-log-inv-rate: %d is out of range [1, 4]", leafRate)
				}
				if !cmd.Flags().Changed("sigs") {
					sigs = defaultMergeSigs
				}
				if !cmd.Flags().Changed("log-inv-rate") {
					rate = recursion.DefaultRate(mergeK)
				}
				mb = mergeBench{k: mergeK, leafRate: leafRate, nestable: nestable}
			} else if cmd.Flags().Changed("leaf-log-inv-rate") {
				return usage("--leaf-log-inv-rate goes with --merge")
			} else if nestable {
				return usage("--nestable goes with --merge")
			}
			if cmd.Flags().Changed("sigs") || mb.k > 0 {
				if cmd.Flags().Changed("flow") && flowName != aggregate.FlowName {
					return usage("--sigs sizes the %s flow; give --log-n for %s", aggregate.FlowName, flowName)
				}
				if cmd.Flags().Changed("log-n") {
					return usage("give --log-n or --sigs, not both")
				}
				flowName = aggregate.FlowName
			}
			fl, err := lookupFlow(flowName)
			if err != nil {
				return err
			}
			var sizes []benchPoint
			if fl.Name() == aggregate.FlowName && !cmd.Flags().Changed("log-n") {
				counts, err := parseInts("sigs", sigs, 1, fl.MaxN())
				if err != nil {
					return err
				}
				if mb.k > 0 {
					for _, c := range counts {
						if mb.k*c > fl.MaxN() {
							return usage("--merge %d --sigs %d: %d signers, at most %d", mb.k, c, mb.k*c, fl.MaxN())
						}
					}
				}
				for _, n := range counts {
					sizes = append(sizes, benchPoint{n: n})
				}
			} else {
				logs, err := parseInts("log-n", logNs, 0, bits.Len(uint(fl.MaxN()))-1)
				if err != nil {
					return err
				}
				for _, l := range logs {
					sizes = append(sizes, benchPoint{n: 1 << l, logN: l, byLog: true})
				}
			}
			workers, err := parseInts("workers", workersList, 1, 1024)
			if err != nil {
				return err
			}
			if repeat < 1 {
				return usage("--repeat: want at least 1")
			}
			if err := fl.Check(1, rate); err != nil {
				return usage("--log-inv-rate: %v", err)
			}
			budgetOK, err := resolveBudget("--memory-budget", budget)
			if err != nil {
				return err
			}
			for _, p := range sizes {
				if err := budgetOK.check("bench "+p.String(), fl, generatedInstances(fl, p.n), rate); err != nil {
					return err
				}
			}
			if !inProcess && fl.Name() == aggregate.FlowName {
				// Signers are made before any child runs, largest first: every point
				// is then served from the signer cache, and no child spends its time
				// or memory signing.
				for _, p := range slices.SortedFunc(slices.Values(sizes), func(a, b benchPoint) int { return b.n - a.n }) {
					if mb.k > 0 {
						if _, err := mergeSigners(mb.k, p.n); err != nil {
							return usage("bench --merge %d --sigs %s: %v", mb.k, p, err)
						}
						continue
					}
					if _, err := fl.Generate(p.n, 1); err != nil {
						return usage("bench %s: %v", p, err)
					}
				}
			}
			// With a child process per point, the point's last proof is verified
			// one-shot, in fresh processes, once the child has exited.
			keepDir, err := os.MkdirTemp("", "leanpipe-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(keepDir)
			var rows []benchRow
			for _, p := range sizes {
				for _, w := range workers {
					keep := keepProof
					if keep == "" {
						keep = filepath.Join(keepDir, "proof.bin")
					}
					var row benchRow
					switch {
					case inProcess && mb.k > 0:
						prev := runtime.GOMAXPROCS(w)
						row, err = benchMergeOne(mb, p.n, w, repeat, rate, keep)
						runtime.GOMAXPROCS(prev)
					case inProcess:
						prev := runtime.GOMAXPROCS(w)
						row, err = benchOne(fl, p, w, repeat, rate, withRSS, keep)
						runtime.GOMAXPROCS(prev)
					default:
						row, err = benchChild(fl.Name(), p, w, repeat, rate, withRSS, append(mb.flags(), "--keep-proof", keep)...)
					}
					if err == nil && !inProcess {
						row.VerifyOneShotMS, err = oneShotVerify(keep, repeat)
					}
					if err != nil {
						return err
					}
					rows = append(rows, row)
					if !asJSON {
						// Each point is printed as soon as it is measured.
						printBenchRow(cmd.OutOrStdout(), row, base)
					}
				}
			}
			if asJSON {
				return printBench(cmd, rows, base, true)
			}
			if base != nil {
				base.report(cmd.OutOrStdout(), rows)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&flowName, "flow", flows.DefaultName, "the proof flow (leanpipe flows lists them)")
	f.StringVar(&logNs, "log-n", "12,14,16", "comma-separated log2 batch sizes")
	f.StringVar(&sigs, "sigs", "64,200,1024", "comma-separated signature counts (the "+aggregate.FlowName+" flow's sizes; implies --flow "+aggregate.FlowName+")")
	f.StringVar(&workersList, "workers", "1,2", "comma-separated worker counts (GOMAXPROCS and engine cores)")
	f.IntVar(&repeat, "repeat", 3, "measured proofs per point, after one warm-up")
	f.IntVar(&rate, "log-inv-rate", 1, "WHIR level-0 log inverse rate")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&inProcess, "in-process", false, "measure every point in this process (peak RSS is then cumulative) instead of one child process per point")
	f.StringVar(&fromFile, "from", "", "print an earlier bench --json output's rows instead of measuring (with --baseline: compare two saved runs)")
	f.StringVar(&baselineFile, "baseline", "", "an earlier bench --json output: print each matching point's per-stage ratios new/old")
	f.StringVar(&budget, "memory-budget", "auto", budgetHelp+"; checked for each point before any runs")
	f.IntVar(&mergeK, "merge", 0, "time one K→1 merge of K leaves of --sigs signers each (default --sigs 200, --log-inv-rate 2)")
	f.IntVar(&leafRate, "leaf-log-inv-rate", 2, "with --merge, the leaves' log inverse rate")
	f.BoolVar(&nestable, "nestable", false, "with --merge, time a no-reveal merge (prove --child … --nestable: its proof can be merged again)")
	f.StringVar(&keepProof, "keep-proof", "", "write the point's last proof (and PROOF.json) to FILE: a child process's, which its parent verifies one-shot")
	_ = f.MarkHidden("keep-proof")
	f.BoolVar(&withRSS, "stage-rss", false, "also report each stage's peak resident memory over the measured proofs (sampled every millisecond and at every stage start; Linux)")
	return cmd
}

// printBench prints rows, as a table or as JSON, each compared with its point in
// base (nil: no baseline), then how the rows met the baseline (on stderr with JSON,
// whose stdout stays one array of rows).
func printBench(cmd *cobra.Command, rows []benchRow, base *baseline, asJSON bool) error {
	out := cmd.OutOrStdout()
	if asJSON {
		for i := range rows {
			rows[i].Baseline = nil
			if old := base.match(rows[i]); old != nil {
				rows[i].Baseline = compareRows(base.file, rows[i], *old)
			}
		}
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(out, string(b))
	} else {
		for _, r := range rows {
			printBenchRow(out, r, base)
		}
	}
	if base != nil {
		w := out
		if asJSON {
			w = cmd.ErrOrStderr()
		}
		base.report(w, rows)
	}
	return nil
}

// printBenchRow prints one row's table, against its point in base if any.
func printBenchRow(out io.Writer, r benchRow, base *baseline) {
	noun := "instances"
	if fl, err := flows.Lookup(r.flowName()); err == nil {
		noun = instances(fl)
	}
	size := strconv.Itoa(r.N)
	if r.LogN != nil {
		size = fmt.Sprintf("2^%d", *r.LogN)
	}
	if r.Merge > 0 {
		writeMergeRow(out, r, base.match(r))
		return
	}
	writeBenchRow(out, size+" "+noun, noun, r, base.match(r))
}

// writeBenchRow prints one point: its summary line, then a line per stage with its
// median time, its share of the proof, the kernel levels it ran at and, against a
// baseline row old, the old time and the ratio new/old.
func writeBenchRow(out io.Writer, what, noun string, row benchRow, old *benchRow) {
	fmt.Fprintf(out, "%s, %d worker(s): prove %.1f ms (median of %d), verify %.1f ms%s, %.1f %s/s, proof %d B (%.1f KiB), peak RSS %.0f MiB\n",
		what, row.Workers, row.ProveMS, row.Repeat, row.VerifyMS, row.oneShot(), row.perS(), noun, row.ProofBytes, float64(row.ProofBytes)/1024, float64(row.PeakRSSBytes)/(1<<20))
	// The peak RSS column is there when the row has stage peaks (--stage-rss).
	rssCol := func(name string) string {
		if row.StageRSS == nil {
			return ""
		}
		if name == "" {
			return fmt.Sprintf(" %8s %8s", "cold MiB", "rss MiB")
		}
		var out string
		for _, m := range []map[string]int64{row.ColdStageRSS, row.StageRSS} {
			if v, ok := m[name]; ok {
				out += fmt.Sprintf(" %8.0f", float64(v)/(1<<20))
			} else {
				out += fmt.Sprintf(" %8s", "")
			}
		}
		return out
	}
	// The cores column (CPU time over wall time) is there when the row has stage
	// CPU times.
	coresCol := func(name string) string {
		if row.StageCPUMS == nil {
			return ""
		}
		if name == "" {
			return fmt.Sprintf(" %6s", "cores")
		}
		if c, ok := row.StageCPUMS[name]; ok && row.StageMS[name] > 0 {
			return fmt.Sprintf(" %6.2f", stageCores(c, row.StageMS[name], row.Workers))
		}
		return fmt.Sprintf(" %6s", "")
	}
	if old != nil {
		fmt.Fprintf(out, "    %-10s %9s %6s%s%s %12s %8s  %s\n", "stage", "ms", "share", coresCol(""), rssCol(""), "baseline ms", "new/old", "kernels")
	} else {
		fmt.Fprintf(out, "    %-10s %9s %6s%s%s  %s\n", "stage", "ms", "share", coresCol(""), rssCol(""), "kernels")
	}
	line := func(name string, ms, oldMS float64, share, kernels string) {
		var l string
		if old == nil {
			l = fmt.Sprintf("    %-10s %9.2f %6s%s%s  %s", name, ms, share, coresCol(name), rssCol(name), kernels)
		} else {
			l = fmt.Sprintf("    %-10s %9.2f %6s%s%s %12s %8s  %s", name, ms, share, coresCol(name), rssCol(name), fmtMS(oldMS), fmtRatio(ms, oldMS), kernels)
		}
		fmt.Fprintln(out, strings.TrimRight(l, " "))
	}
	for _, name := range rowStages(row, old) {
		ms := row.StageMS[name]
		k := stageKernels(name, row.Kernels)
		var oldMS float64
		if old != nil {
			oldMS = old.StageMS[name]
			if ok := stageKernels(name, old.Kernels); old.Kernels != nil && ok != k {
				k += " (baseline " + ok + ")"
			}
		}
		share := ""
		if row.ProveMS > 0 {
			share = fmt.Sprintf("%.1f%%", 100*ms/row.ProveMS)
		}
		line(name, ms, oldMS, share, k)
	}
	var oldProve, oldVerify float64
	if old != nil {
		oldProve, oldVerify = old.ProveMS, old.VerifyMS
	}
	line("total", row.ProveMS, oldProve, "", "")
	line("verify", row.VerifyMS, oldVerify, "", "")
	if old != nil {
		fmt.Fprintf(out, "    %-10s %9.0f %6s%s%s %12.0f %8s\n", "peak MiB", float64(row.PeakRSSBytes)/(1<<20), "", coresCol("-"), rssCol("-"),
			float64(old.PeakRSSBytes)/(1<<20), fmtRatio(float64(row.PeakRSSBytes), float64(old.PeakRSSBytes)))
	}
}

// rowStages lists the stages of row (and of old, if any): the standard ones in
// protocol order, then any others by name.
func rowStages(row benchRow, old *benchRow) []string {
	names := slices.Clone(benchStages)
	var extra []string
	add := func(m map[string]float64) {
		for k := range m {
			if !slices.Contains(names, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	add(row.StageMS)
	if old != nil {
		add(old.StageMS)
	}
	slices.Sort(extra)
	return append(names, extra...)
}

func fmtMS(ms float64) string {
	if ms <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", ms)
}

func fmtRatio(v, old float64) string {
	if old <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v/old)
}

// perS is the row's throughput, in its flow's instances per second.
func (r benchRow) perS() float64 {
	return max(r.CompressionsPerS, r.SignaturesPerS, r.PermutationsPerS)
}

// benchKey identifies a point across runs: the flow, the instance count and the
// worker count.
type benchKey struct {
	flow       string
	n, workers int
	merge      int  // bench --merge's K (0: a leaf proof)
	nestable   bool // a no-reveal merge
}

func (k benchKey) String() string {
	size := strconv.Itoa(k.n)
	if k.n&(k.n-1) == 0 && k.flow != aggregate.FlowName {
		size = fmt.Sprintf("2^%d", bits.TrailingZeros(uint(k.n)))
	}
	if k.merge > 0 {
		kind := ""
		if k.nestable {
			kind = " no-reveal"
		}
		return fmt.Sprintf("%s%s merge %d→1 of %d keys, %d worker(s)", k.flow, kind, k.merge, k.n, k.workers)
	}
	return fmt.Sprintf("%s %s, %d worker(s)", k.flow, size, k.workers)
}

// key is the row's point. A row written before rows named their flow and rate is
// the batch flow's (xmss-aggregate's when it has signatures_per_s) at rate 1.
func (r benchRow) key() benchKey {
	return benchKey{flow: r.flowName(), n: r.N, workers: r.Workers, merge: r.Merge, nestable: r.Nestable}
}

func (r benchRow) flowName() string {
	switch {
	case r.Flow != "":
		return r.Flow
	case r.SignaturesPerS > 0:
		return aggregate.FlowName
	}
	return flows.DefaultName
}

func (r benchRow) rate() int { return max(r.LogInvRate, 1) }

// baseline is a --baseline file's rows by point.
type baseline struct {
	file  string
	rows  map[benchKey]benchRow
	order []benchKey
}

// readBaseline reads an earlier bench --json output: a JSON array of rows, each
// with a positive n, workers and prove_ms_median. Anything else, or two rows of one
// point, is a usage error naming the file.
func readBaseline(path string) (*baseline, error) {
	rows, err := readBenchRows("--baseline", path)
	if err != nil {
		return nil, err
	}
	b := &baseline{file: path, rows: map[benchKey]benchRow{}}
	for _, r := range rows {
		b.rows[r.key()] = r
		b.order = append(b.order, r.key())
	}
	return b, nil
}

// readBenchRows reads a bench --json output given as flag: a JSON array of rows,
// each with a positive n, workers and prove_ms_median, no two of one point.
// Anything else is a usage error naming the file.
func readBenchRows(flag, path string) ([]benchRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usage("%s: %v", flag, err)
	}
	var rows []benchRow
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, usage("%s %s: not a bench --json output (a JSON array of rows): %v", flag, path, err)
	}
	if rows == nil {
		return nil, usage("%s %s: not a bench --json output (a JSON array of rows)", flag, path)
	}
	seen := map[benchKey]bool{}
	for i, r := range rows {
		if r.N < 1 || r.Workers < 1 || r.ProveMS <= 0 {
			return nil, usage("%s %s: row %d is not a bench row (want n, workers and prove_ms_median, all positive)", flag, path, i)
		}
		if seen[r.key()] {
			return nil, usage("%s %s: two rows for %s", flag, path, r.key())
		}
		seen[r.key()] = true
	}
	return rows, nil
}

// match returns the baseline's row of row's point at row's rate, or nil (always
// nil for a nil baseline).
func (b *baseline) match(row benchRow) *benchRow {
	if b == nil {
		return nil
	}
	old, ok := b.rows[row.key()]
	if !ok || old.rate() != row.rate() {
		return nil
	}
	return &old
}

// compareRows is row's ratios against old.
func compareRows(file string, row, old benchRow) *benchRatios {
	ratio := func(v, o float64) float64 {
		if o <= 0 {
			return 0
		}
		return v / o
	}
	r := &benchRatios{File: file, StageRatio: map[string]float64{},
		Prove: ratio(row.ProveMS, old.ProveMS), Verify: ratio(row.VerifyMS, old.VerifyMS),
		PeakRSS: ratio(float64(row.PeakRSSBytes), float64(old.PeakRSSBytes))}
	for name, ms := range row.StageMS {
		if o := old.StageMS[name]; o > 0 {
			r.StageRatio[name] = ms / o
		}
	}
	return r
}

// report lists how the measured rows met the baseline: the points compared, those it
// lacks, those measured at another rate, and its points not measured.
func (b *baseline) report(w io.Writer, rows []benchRow) {
	seen := map[benchKey]bool{}
	var compared int
	var missing, mismatched []string
	for _, r := range rows {
		k := r.key()
		seen[k] = true
		old, ok := b.rows[k]
		switch {
		case !ok:
			missing = append(missing, k.String())
		case old.rate() != r.rate():
			mismatched = append(mismatched, fmt.Sprintf("%s: log_inv_rate %d here, %d in the baseline", k, r.rate(), old.rate()))
		default:
			compared++
		}
	}
	var unmeasured []string
	for _, k := range b.order {
		if !seen[k] {
			unmeasured = append(unmeasured, k.String())
		}
	}
	fmt.Fprintf(w, "baseline %s: %d of %d point(s) compared (ratios new/old)\n", b.file, compared, len(rows))
	for _, l := range []struct {
		what string
		ks   []string
	}{{"not in the baseline", missing}, {"mismatched, not compared", mismatched}, {"in the baseline only", unmeasured}} {
		for _, s := range l.ks {
			fmt.Fprintf(w, "    %s: %s\n", l.what, s)
		}
	}
}

// benchChild measures one point in a fresh child process, so that its peak RSS is its own.
func benchChild(flowName string, p benchPoint, workers, repeat, rate int, withRSS bool, extra ...string) (benchRow, error) {
	exe, err := os.Executable()
	if err != nil {
		return benchRow{}, err
	}
	// The parent checked the point against the budget; the child does not again.
	args := append([]string{"bench", "--flow", flowName, "--in-process", "--json", "--memory-budget", "0"}, p.flag()...)
	args = append(args, "--workers", strconv.Itoa(workers), "--repeat", strconv.Itoa(repeat), "--log-inv-rate", strconv.Itoa(rate))
	if withRSS {
		args = append(args, "--stage-rss")
	}
	args = append(args, extra...)
	c := exec.Command(exe, args...)
	c.Stderr = os.Stderr
	out, err := c.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ProcessState != nil && !ee.Exited() {
			err = fmt.Errorf("%w (killed: out of memory? its estimate was checked against --memory-budget)", err)
		}
		return benchRow{}, fmt.Errorf("bench child %s/%d workers: %w", p, workers, err)
	}
	var rows []benchRow
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) != 1 {
		return benchRow{}, fmt.Errorf("bench child %s/%d workers: bad output: %v", p, workers, err)
	}
	return rows[0], nil
}

// benchOne measures one point in this process. The input is made (or read from its
// cache) before any timing.
func benchOne(fl flows.Flow, p benchPoint, workers, repeat, rate int, withRSS bool, keep string) (benchRow, error) {
	defer longRunning()()
	in, err := fl.Generate(p.n, 1)
	if err != nil {
		return benchRow{}, usage("bench %s: %v", p, err)
	}
	e, err := flows.NewEngine(flows.EngineOptions{Cores: workers})
	if err != nil {
		return benchRow{}, err
	}
	defer e.Close()
	row := benchRow{Flow: fl.Name(), N: p.n, Workers: workers, LogInvRate: rate, Repeat: repeat, StageMS: map[string]float64{}, Kernels: kernelMap()}
	if p.byLog {
		row.LogN = &p.logN
	}
	stage, stageCPUs := map[string][]float64{}, map[string][]float64{}
	var prove, verify []float64
	cpu := &stageCPU{}
	var rss *stageRSS
	defer func() {
		if rss != nil {
			rss.close()
		}
	}()
	for i := 0; i <= repeat; i++ {
		ctx := context.Background()
		if i == 0 && withRSS {
			rss = newStageRSS()
		}
		cpu.reset()
		ctx = graph.WithStageStart(ctx, func(name string) {
			cpu.switchTo(name)
			if rss != nil {
				rss.switchTo(name)
			}
		})
		res, err := e.Prove(ctx, flows.Request{Flow: fl, Input: in, LogInvRate: rate})
		cpu.switchTo("")
		if rss != nil {
			rss.proofDone()
		}
		if err != nil {
			return row, err
		}
		if i == 0 {
			if rss != nil {
				row.ColdStageRSS = rss.take()
			}
			continue // warm-up: caches and pools
		}
		prove = append(prove, millis(res.Wall))
		for _, s := range res.Spans {
			stage[s.Name] = append(stage[s.Name], millis(s.Duration))
		}
		for name, d := range cpu.took {
			stageCPUs[name] = append(stageCPUs[name], millis(d))
		}
		wire := res.Proof.MarshalWire()
		row.ProofBytes = len(wire)
		meta := flows.NewMetaFor(fl, res.Statement, flows.FormatWire)
		start := time.Now()
		if _, err := flows.VerifyBytes(wire, meta); err != nil {
			return row, fmt.Errorf("bench proof rejected: %w", err)
		}
		verify = append(verify, millis(time.Since(start)))
		if i == repeat {
			if err := flows.WriteProofBytes(keep, wire, meta); err != nil {
				return row, err
			}
		}
	}
	for k, v := range stage {
		row.StageMS[k] = median(v)
	}
	if rusage.Process() > 0 {
		row.StageCPUMS = map[string]float64{}
		for k, v := range stageCPUs {
			row.StageCPUMS[k] = median(v)
		}
	}
	row.ProveMS, row.VerifyMS = median(prove), median(verify)
	switch perS := float64(benchCount(in)) / (row.ProveMS / 1e3); fl.Name() {
	case aggregate.FlowName:
		row.SignaturesPerS = perS
	case keccak.FlowName:
		row.PermutationsPerS = perS
	default:
		row.CompressionsPerS = perS
	}
	row.PeakRSSBytes = rusage.PeakRSS()
	if rss != nil {
		if peaks := rss.close(); len(peaks) > 0 {
			row.StageRSS = peaks
		}
		rss = nil
		// The kernel records its high-water mark lazily (when resident memory
		// shrinks by some paths), so a sampled stage peak can exceed it by a few
		// pages: the process's peak is at least every sample.
		for _, m := range []map[string]int64{row.StageRSS, row.ColdStageRSS} {
			for _, v := range m {
				row.PeakRSSBytes = max(row.PeakRSSBytes, v)
			}
		}
	}
	return row, nil
}

// stageCores is a stage's cores figure: its CPU time over its wall time, at most the
// worker count (the process's CPU time also counts the runtime's own threads, which
// a short stage would otherwise show as more cores than it had).
func stageCores(cpuMS, wallMS float64, workers int) float64 {
	c := cpuMS / wallMS
	if workers > 0 {
		c = min(c, float64(workers))
	}
	return c
}

// oneShot is the row's one-shot verify time for its summary line ("" when not measured).
func (r benchRow) oneShot() string {
	if r.VerifyOneShotMS <= 0 {
		return ""
	}
	return fmt.Sprintf(" (one-shot %.0f ms)", r.VerifyOneShotMS)
}

// oneShotVerify runs `leanpipe verify path` n times, each in a fresh process with an
// empty cache directory, and returns the median wall time in milliseconds.
func oneShotVerify(path string, n int) (float64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	var times []float64
	for range max(n, 1) {
		dir, err := os.MkdirTemp("", "leanpipe-oneshot-")
		if err != nil {
			return 0, err
		}
		c := exec.Command(exe, "verify", path)
		c.Env = append(os.Environ(), cachedir.Env+"="+dir)
		start := time.Now()
		out, err := c.CombinedOutput()
		took := time.Since(start)
		os.RemoveAll(dir)
		if err != nil {
			return 0, fmt.Errorf("bench: one-shot verify of %s: %w\n%s", path, err, out)
		}
		times = append(times, millis(took))
	}
	return median(times), nil
}

// millis is d in milliseconds, to the microsecond, as bench's and run's rows hold
// times.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/spf13/cobra"
)

// benchRow is one measured point. N is its instance count; LogN is set when the
// point was given as --log-n. The throughput is compressions_per_s for the batch flow
// (and other flows), signatures_per_s for xmss-aggregate.
type benchRow struct {
	N                int                `json:"n"`
	LogN             *int               `json:"log_n,omitempty"`
	Workers          int                `json:"workers"`
	Repeat           int                `json:"repeat"`
	StageMS          map[string]float64 `json:"stage_ms_median"`
	ProveMS          float64            `json:"prove_ms_median"`
	VerifyMS         float64            `json:"verify_ms_median"`
	CompressionsPerS float64            `json:"compressions_per_s,omitempty"`
	SignaturesPerS   float64            `json:"signatures_per_s,omitempty"`
	ProofBytes       int                `json:"proof_bytes"`
	PeakRSSBytes     int64              `json:"peak_rss_bytes"`
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
		flowName                 string
		repeat, rate             int
		asJSON, inProcess        bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "the standard benchmark: per-stage times, compressions/s (signatures/s) and peak RSS per size and worker count",
		Long: `bench proves each size at each worker count (one warm-up, then --repeat measured
proofs, each point in a child process of its own so that its peak RSS is its own) and
prints the median per-stage times, the throughput, the verify time, the proof size and
the peak RSS.

Sizes are --log-n (2^k instances; the batch flow's, compressions) or, for the
xmss-aggregate flow, --sigs (signature counts; --sigs implies --flow xmss-aggregate).
Signers are generated before any timing (and cached on disk, $LEANPIPE_CACHE_DIR or the
user cache directory), so signing is not measured.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("sigs") {
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
			if !inProcess && fl.Name() == aggregate.FlowName {
				// Signers are made before any child runs, largest first: every point
				// is then served from the signer cache, and no child spends its time
				// or memory signing.
				for _, p := range slices.SortedFunc(slices.Values(sizes), func(a, b benchPoint) int { return b.n - a.n }) {
					if _, err := fl.Generate(p.n, 1); err != nil {
						return usage("bench %s: %v", p, err)
					}
				}
			}
			var rows []benchRow
			out := cmd.OutOrStdout()
			noun := instances(fl)
			for _, p := range sizes {
				for _, w := range workers {
					var row benchRow
					if inProcess {
						prev := runtime.GOMAXPROCS(w)
						row, err = benchOne(fl, p, w, repeat, rate)
						runtime.GOMAXPROCS(prev)
					} else {
						row, err = benchChild(fl.Name(), p, w, repeat, rate)
					}
					if err != nil {
						return err
					}
					rows = append(rows, row)
					if !asJSON {
						fmt.Fprintf(out, "%s %s, %d worker(s): prove %.1f ms (median of %d), verify %.1f ms, %.1f %s/s, proof %d B (%.1f KiB), peak RSS %.0f MiB\n",
							p, noun, w, row.ProveMS, repeat, row.VerifyMS, row.perS(), noun, row.ProofBytes, float64(row.ProofBytes)/1024, float64(row.PeakRSSBytes)/(1<<20))
						for _, name := range []string{"plan", "witness", "commit", "zerocheck", "lincheck", "ringswitch", "open"} {
							fmt.Fprintf(out, "    %-10s %9.2f ms %5.1f%%\n", name, row.StageMS[name], 100*row.StageMS[name]/row.ProveMS)
						}
						fmt.Fprintf(out, "    %-10s %9.2f ms\n    %-10s %9.2f ms\n", "total", row.ProveMS, "verify", row.VerifyMS)
					}
				}
			}
			if asJSON {
				b, _ := json.MarshalIndent(rows, "", "  ")
				fmt.Fprintln(out, string(b))
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
	return cmd
}

// perS is the row's throughput, in its flow's instances per second.
func (r benchRow) perS() float64 { return max(r.CompressionsPerS, r.SignaturesPerS) }

// benchChild measures one point in a fresh child process, so that its peak RSS is its own.
func benchChild(flowName string, p benchPoint, workers, repeat, rate int) (benchRow, error) {
	exe, err := os.Executable()
	if err != nil {
		return benchRow{}, err
	}
	args := append([]string{"bench", "--flow", flowName, "--in-process", "--json"}, p.flag()...)
	c := exec.Command(exe, append(args, "--workers", strconv.Itoa(workers), "--repeat", strconv.Itoa(repeat), "--log-inv-rate", strconv.Itoa(rate))...)
	c.Stderr = os.Stderr
	out, err := c.Output()
	if err != nil {
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
func benchOne(fl flows.Flow, p benchPoint, workers, repeat, rate int) (benchRow, error) {
	in, err := fl.Generate(p.n, 1)
	if err != nil {
		return benchRow{}, usage("bench %s: %v", p, err)
	}
	e, err := flows.NewEngine(flows.EngineOptions{Cores: workers})
	if err != nil {
		return benchRow{}, err
	}
	defer e.Close()
	row := benchRow{N: p.n, Workers: workers, Repeat: repeat, StageMS: map[string]float64{}}
	if p.byLog {
		row.LogN = &p.logN
	}
	stage := map[string][]float64{}
	var prove, verify []float64
	for i := 0; i <= repeat; i++ {
		res, err := e.Prove(context.Background(), flows.Request{Flow: fl, Input: in, LogInvRate: rate})
		if err != nil {
			return row, err
		}
		if i == 0 {
			continue // warm-up: caches and pools
		}
		prove = append(prove, float64(res.Wall.Microseconds())/1e3)
		for _, s := range res.Spans {
			stage[s.Name] = append(stage[s.Name], float64(s.Duration.Microseconds())/1e3)
		}
		wire := res.Proof.MarshalWire()
		row.ProofBytes = len(wire)
		start := time.Now()
		if _, err := flows.VerifyBytes(wire, flows.NewMetaFor(fl, res.Statement, flows.FormatWire)); err != nil {
			return row, fmt.Errorf("bench proof rejected: %w", err)
		}
		verify = append(verify, float64(time.Since(start).Microseconds())/1e3)
	}
	for k, v := range stage {
		row.StageMS[k] = median(v)
	}
	row.ProveMS, row.VerifyMS = median(prove), median(verify)
	if perS := float64(in.Len()) / (row.ProveMS / 1e3); fl.Name() == aggregate.FlowName {
		row.SignaturesPerS = perS
	} else {
		row.CompressionsPerS = perS
	}
	row.PeakRSSBytes = rusage.PeakRSS()
	return row, nil
}

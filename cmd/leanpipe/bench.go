package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"math/bits"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/spf13/cobra"
)

type benchRow struct {
	LogN             int                `json:"log_n"`
	Workers          int                `json:"workers"`
	Repeat           int                `json:"repeat"`
	StageMS          map[string]float64 `json:"stage_ms_median"`
	ProveMS          float64            `json:"prove_ms_median"`
	VerifyMS         float64            `json:"verify_ms_median"`
	CompressionsPerS float64            `json:"compressions_per_s"`
	ProofBytes       int                `json:"proof_bytes"`
	PeakRSSBytes     int64              `json:"peak_rss_bytes"`
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
		logNs, workersList string
		flowName           string
		repeat, rate       int
		asJSON, inProcess  bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "the standard benchmark: per-stage times, compressions/s and peak RSS per size and worker count",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl, err := lookupFlow(flowName)
			if err != nil {
				return err
			}
			sizes, err := parseInts("log-n", logNs, 0, bits.Len(uint(fl.MaxN()))-1)
			if err != nil {
				return err
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
			var rows []benchRow
			out := cmd.OutOrStdout()
			for _, logN := range sizes {
				for _, w := range workers {
					var row benchRow
					if inProcess {
						prev := runtime.GOMAXPROCS(w)
						row, err = benchOne(fl, logN, w, repeat, rate)
						runtime.GOMAXPROCS(prev)
					} else {
						row, err = benchChild(fl.Name(), logN, w, repeat, rate)
					}
					if err != nil {
						return err
					}
					rows = append(rows, row)
					if !asJSON {
						fmt.Fprintf(out, "2^%d compressions, %d worker(s): prove %.1f ms (median of %d), verify %.1f ms, %.0f compressions/s, proof %d B, peak RSS %.0f MiB\n",
							logN, w, row.ProveMS, repeat, row.VerifyMS, row.CompressionsPerS, row.ProofBytes, float64(row.PeakRSSBytes)/(1<<20))
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
	f.StringVar(&workersList, "workers", "1,2", "comma-separated worker counts (GOMAXPROCS and engine cores)")
	f.IntVar(&repeat, "repeat", 3, "measured proofs per point, after one warm-up")
	f.IntVar(&rate, "log-inv-rate", 1, "WHIR level-0 log inverse rate")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&inProcess, "in-process", false, "measure every point in this process (peak RSS is then cumulative) instead of one child process per point")
	return cmd
}

// benchChild measures one point in a fresh child process, so that its peak RSS is its own.
func benchChild(flowName string, logN, workers, repeat, rate int) (benchRow, error) {
	exe, err := os.Executable()
	if err != nil {
		return benchRow{}, err
	}
	c := exec.Command(exe, "bench", "--flow", flowName, "--in-process", "--json", "--log-n", strconv.Itoa(logN),
		"--workers", strconv.Itoa(workers), "--repeat", strconv.Itoa(repeat), "--log-inv-rate", strconv.Itoa(rate))
	c.Stderr = os.Stderr
	out, err := c.Output()
	if err != nil {
		return benchRow{}, fmt.Errorf("bench child 2^%d/%d workers: %w", logN, workers, err)
	}
	var rows []benchRow
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) != 1 {
		return benchRow{}, fmt.Errorf("bench child 2^%d/%d workers: bad output: %v", logN, workers, err)
	}
	return rows[0], nil
}

func benchOne(fl flows.Flow, logN, workers, repeat, rate int) (benchRow, error) {
	in, err := fl.Generate(1<<logN, 1)
	if err != nil {
		return benchRow{}, usage("--log-n %d: %v", logN, err)
	}
	e, err := flows.NewEngine(flows.EngineOptions{Cores: workers})
	if err != nil {
		return benchRow{}, err
	}
	defer e.Close()
	row := benchRow{LogN: logN, Workers: workers, Repeat: repeat, StageMS: map[string]float64{}}
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
	row.CompressionsPerS = float64(in.Len()) / (row.ProveMS / 1e3)
	row.PeakRSSBytes = rusage.PeakRSS()
	return row, nil
}

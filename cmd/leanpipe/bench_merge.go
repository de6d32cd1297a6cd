package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/recursion"
)

// bench --merge K --sigs S: K leaves of S signers each (one generated set on one
// message and epoch, cut in order) are proved before any timing; then one K→1 merge
// (recursion.Merge, its native child checks included) is timed per worker count,
// one warm-up and --repeat measured merges, and the merged file verified
// (recursion.VerifyMerged) after each. A row's n is the merged proof's key count
// (K × S), "merge" is K, "leaf_sigs" S and "leaf_log_inv_rate" the leaves' rate.

// mergeStages are a merge's stages in order (recursion.MergeProfile): the children's
// native verification, the block circuits' compilation (a process's first merges
// only: zero once warm; the revealing merge's), the no-reveal merge's layout and the
// segments it fills for its tape, then the segmented proof's stages and the batch of
// the carried claims.
var mergeStages = []string{"children", "compile", "layout", "fill", "witness", "commit", "zerocheck", "lincheck", "ringswitch", "linear", "open", "batch"}

// defaultMergeSigs is --sigs with --merge: one leaf's size.
const defaultMergeSigs = "200"

// mergeBench is the --merge settings of one bench run.
type mergeBench struct {
	k, leafRate int
	nestable    bool // a no-reveal merge (recursion.MergeNR)
}

// flags are the child process's --merge flags.
func (mb mergeBench) flags() []string {
	if mb.k == 0 {
		return nil
	}
	out := []string{"--merge", strconv.Itoa(mb.k), "--leaf-log-inv-rate", strconv.Itoa(mb.leafRate)}
	if mb.nestable {
		out = append(out, "--nestable")
	}
	return out
}

// mergeSigners is the one signer set a merge point's leaves are cut from.
func mergeSigners(k, s int) (*aggregate.Input, error) {
	return aggregate.Generate(k*s, 1, aggregate.DefaultCache())
}

// benchMergeOne measures one merge point in this process.
func benchMergeOne(mb mergeBench, s, workers, repeat, rate int, keep string) (benchRow, error) {
	defer longRunning()()
	in, err := mergeSigners(mb.k, s)
	if err != nil {
		return benchRow{}, usage("bench --merge %d --sigs %d: %v", mb.k, s, err)
	}
	ctx := context.Background()
	kids := make([]recursion.MergeChild, mb.k)
	for i := range kids {
		leaf := &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[i*s : (i+1)*s]}
		fin, err := aggregate.Flow.FromValue(leaf)
		if err != nil {
			return benchRow{}, err
		}
		p, err := flows.Prove(ctx, flows.Request{Flow: aggregate.Flow, Input: fin, LogInvRate: mb.leafRate}, flows.ProveOptions{Workers: workers})
		if err != nil {
			return benchRow{}, fmt.Errorf("bench --merge: leaf %d: %w", i, err)
		}
		kids[i] = recursion.MergeChild{Proof: p.Proof, Statement: p.Statement}
	}
	row := benchRow{Flow: aggregate.FlowName, N: mb.k * s, Workers: workers, LogInvRate: rate, Repeat: repeat,
		StageMS: map[string]float64{}, Kernels: kernelMap(), Merge: mb.k, LeafSigs: s, LeafLogInvRate: mb.leafRate, Nestable: mb.nestable}
	if mb.nestable {
		return benchMergeNR(row, kids, workers, repeat, rate, keep)
	}
	var prove, verify []float64
	stages := map[string][]float64{}
	for i := 0; i <= repeat; i++ {
		start := time.Now()
		m, err := recursion.Merge(kids, rate, par.New(ctx, workers))
		took := time.Since(start)
		if err != nil {
			return row, fmt.Errorf("bench --merge: %w", err)
		}
		if i == 0 {
			continue // warm-up: the shared blocks and pools
		}
		prove = append(prove, millis(took))
		addMergeStages(stages, m.Profile, false)
		data := m.ProofBytes()
		row.ProofBytes = len(data)
		start = time.Now()
		if err := recursion.VerifyMerged(data, m.Statement()); err != nil {
			return row, fmt.Errorf("bench merged proof rejected: %w", err)
		}
		verify = append(verify, millis(time.Since(start)))
		if i == repeat {
			if err := keepMerged(keep, data, m.Statement(), rate, recursion.MergeLabel); err != nil {
				return row, err
			}
		}
	}
	row.ProveMS, row.VerifyMS = median(prove), median(verify)
	for name, v := range stages {
		row.StageMS[name] = median(v)
	}
	row.PeakRSSBytes = rusage.PeakRSS()
	return row, nil
}

// addMergeStages appends a merge's stage times (ms) to stages: the revealing merge's
// children, compile, segments and batch; with nestable the no-reveal merge's children,
// layout, fill, segments and batch.
func addMergeStages(stages map[string][]float64, p recursion.MergeProfile, nestable bool) {
	add := func(name string, d time.Duration) { stages[name] = append(stages[name], millis(d)) }
	add("children", p.Children)
	if nestable {
		add("layout", p.Layout)
		add("fill", p.Fill)
	} else {
		add("compile", p.Compile)
	}
	for _, st := range p.Segments.Stages() {
		add(st.Name, st.Took)
	}
	add("batch", p.Batch)
}

// benchMergeNR is benchMergeOne's no-reveal merge: prove (MergeNR, native child checks
// included) and verify the file (VerifyMergedNR), with its stages (addMergeStages).
func benchMergeNR(row benchRow, kids []recursion.MergeChild, workers, repeat, rate int, keep string) (benchRow, error) {
	var prove, verify []float64
	stages := map[string][]float64{}
	for i := 0; i <= repeat; i++ {
		m, err := recursion.MergeNR(kids, rate, par.New(context.Background(), workers))
		if err != nil {
			return row, fmt.Errorf("bench --merge --nestable: %w", err)
		}
		if i == 0 {
			continue // warm-up: the shared blocks, schedules and pools
		}
		prove = append(prove, millis(m.Took))
		addMergeStages(stages, m.Profile, true)
		data := m.ProofBytes()
		row.ProofBytes = len(data)
		start := time.Now()
		if err := recursion.VerifyMergedNR(data, m.Statement()); err != nil {
			return row, fmt.Errorf("bench merged proof rejected: %w", err)
		}
		verify = append(verify, millis(time.Since(start)))
		if i == repeat {
			if err := keepMerged(keep, data, m.Statement(), rate, recursion.MergeLabelNR); err != nil {
				return row, err
			}
		}
	}
	row.ProveMS, row.VerifyMS = median(prove), median(verify)
	for name, v := range stages {
		row.StageMS[name] = median(v)
	}
	row.PeakRSSBytes = rusage.PeakRSS()
	return row, nil
}

// writeMergeRow prints a merge row.
func writeMergeRow(out io.Writer, r benchRow, old *benchRow) {
	kind := "merge"
	if r.Nestable {
		kind = "no-reveal merge"
	}
	fmt.Fprintf(out, "%s %d×%d signatures (leaves at rate %d) → 1 at rate %d, %d worker(s): prove %.1f ms (median of %d, native child checks included), verify %.1f ms%s, proof %d B (%.1f KiB), peak RSS %.0f MiB\n",
		kind, r.Merge, r.LeafSigs, r.LeafLogInvRate, r.LogInvRate, r.Workers, r.ProveMS, r.Repeat, r.VerifyMS, r.oneShot(), r.ProofBytes, float64(r.ProofBytes)/1024, float64(r.PeakRSSBytes)/(1<<20))
	fmt.Fprintf(out, "    stages (ms, median):")
	for _, name := range mergeStages {
		if v, ok := r.StageMS[name]; ok {
			fmt.Fprintf(out, " %s %.1f", name, v)
		}
	}
	fmt.Fprintln(out)
	if old != nil {
		fmt.Fprintf(out, "    baseline: prove %.1f ms (new/old %s), verify %.1f ms (new/old %s), peak RSS new/old %s\n",
			old.ProveMS, fmtRatio(r.ProveMS, old.ProveMS), old.VerifyMS, fmtRatio(r.VerifyMS, old.VerifyMS), fmtRatio(float64(r.PeakRSSBytes), float64(old.PeakRSSBytes)))
	}
}

// keepMerged writes a merged proof and its PROOF.json to path, as prove --child does.
func keepMerged(path string, data []byte, st recursion.MergeStatement, rate int, label string) error {
	meta, err := mergedMeta(st, rate, label)
	if err != nil {
		return err
	}
	return flows.WriteProofBytes(path, data, meta)
}

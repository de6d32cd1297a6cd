package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/config"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/queue"
	"github.com/leanpipe/leanpipe/recursion"
)

// A run with `tree: {leaf: N}`: one signature set (the config's input, or one
// generated set of `signers` from the seed) is cut in order into leaves of N signers
// (the last may hold fewer), the leaves are proved through the engine (two at a
// time) and verified, and merged into ONE proof of all the signatures, which is
// verified too: up to recursion.MaxChildren leaves by one revealing merge
// (recursion.Merge); more by a no-reveal tree (treePlan, queue.TreeGroups): the leaves
// in balanced groups of at most MaxChildren (recursion.MergeNR), a power of two of
// them, each level above merging the one below in pairs (recursion.MergeNRChildren),
// up to one root of depth at most recursion.MaxDepthNR. A larger set is refused before
// any work.

// mergedName is a tree run's merged proof file.
const mergedName = "merged.proof.bin"

// treePlan is the no-reveal tree over k leaves (k > MaxChildren, queue.TreeGroups: the
// same tree a fleet builds), each level's group sizes from the leaves' merges to the
// root, and the rate of each level's merges (rate 0: the defaults; a level of leaf
// merges at recursion.DefaultRate of the merges its parent takes, as a depth-2 tree's
// groups always were; merges of merged proofs at recursion.DefaultRateOf).
func treePlan(k, rate int) (groups [][]int, rates []int) {
	groups = queue.TreeGroups(k)
	rates = make([]int, len(groups))
	for lv := range groups {
		switch {
		case rate != 0:
			rates[lv] = rate
		case lv == 0:
			rates[lv] = recursion.DefaultRate(groups[1][0]) // the first parent's fan-in; the others differ by one at most
		default:
			rates[lv] = recursion.DefaultRateOf(groups[lv][0], true)
		}
	}
	return groups, rates
}

// mergedSummary is a tree run's merged proof in its JSON summary.
type mergedSummary struct {
	Proof      string  `json:"proof"`
	N          int     `json:"n"`
	Children   int     `json:"children"`
	Depth      int     `json:"depth"`
	LogInvRate int     `json:"log_inv_rate"`
	ProofBytes int     `json:"proof_bytes"`
	MergeMS    float64 `json:"merge_ms"`
	VerifyMS   float64 `json:"verify_ms"`
}

// treeLeaves cuts n signers into leaves of size (the last may be smaller) and
// refuses a cut that one merge cannot take.
func treeLeaves(n, size int) ([][2]int, error) {
	k := (n + size - 1) / size
	switch {
	case k < 2:
		return nil, usage("tree: %d signers in leaves of %d make one leaf: nothing to merge (give a smaller tree.leaf)", n, size)
	case k > queue.MaxTreeLeaves():
		return nil, usage("tree: %d signers in leaves of %d make %d leaves; a run merges at most %d (%d groups of up to %d leaves, merged in pairs to depth %d): give a larger tree.leaf or fewer signers",
			n, size, k, queue.MaxTreeLeaves(), queue.MaxTreeLeaves()/recursion.MaxChildren, recursion.MaxChildren, recursion.MaxDepthNR)
	}
	out := make([][2]int, k)
	for i := range out {
		out[i] = [2]int{i * size, min(n, (i+1)*size)}
	}
	return out, nil
}

func runTree(cmd *cobra.Command, cfgPath string, cfg config.Run, mem memBudget, trace *traceFlag) error {
	log := newLogger(cmd)
	fl := aggregate.Flow
	var set *aggregate.Input
	if cfg.Input != "" {
		path := cfg.Input
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(cfgPath), path)
		}
		in, err := readSignatures("input", path)
		if err != nil {
			return err
		}
		set = in
	} else {
		if _, err := treeLeaves(cfg.Batch, cfg.Tree.Leaf); err != nil { // refused before signing
			return err
		}
		in, err := aggregate.Generate(cfg.Batch, cfg.Seed, aggregate.DefaultCache())
		if err != nil {
			return usage("signers: %v", err)
		}
		set = in
	}
	cuts, err := treeLeaves(set.Len(), cfg.Tree.Leaf)
	if err != nil {
		return err
	}
	if err := mem.check("leaf", fl, cfg.Tree.Leaf, cfg.LogInvRate); err != nil {
		return err
	}
	// Past one merge, the tree's merges above the leaves' groups take merged proofs.
	if err := mem.checkMerge(len(cuts) > recursion.MaxChildren); err != nil {
		return err
	}
	if _, err := aggregate.Flow.FromValue(set); err != nil {
		return usage("signers: %v", err) // repeated keys
	}
	if err := checkSignatures(set); err != nil {
		return err
	}
	files := []string{"summary.json", mergedName, mergedName + ".json"}
	for i := range cuts {
		files = append(files, leafName(i), leafName(i)+".json")
	}
	if err := prepareOutDir("output", cfg.Output, files...); err != nil {
		return err
	}
	e, err := flows.NewEngine(flows.EngineOptions{Cores: cfg.Workers, InFlight: 2})
	if err != nil {
		return err
	}
	defer e.Close()
	log.Info().Str("config", cfgPath).Int("signers", set.Len()).Int("leaves", len(cuts)).Int("leaf", cfg.Tree.Leaf).
		Int("cores", e.Scheduler().Cores()).Str("output", cfg.Output).Msg("run tree")

	bar := newProgress(cmd.ErrOrStderr(), "proving leaves", len(cuts))
	defer bar.finish()
	ctx := bar.stages(context.Background())
	start := time.Now()
	// The leaves go to the engine at once; it runs two at a time.
	results := make([]flows.Proved, len(cuts))
	errs := make([]error, len(cuts))
	var wg sync.WaitGroup
	for i, c := range cuts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			leaf := &aggregate.Input{Message: set.Message, Epoch: set.Epoch, Signers: set.Signers[c[0]:c[1]]}
			results[i], errs[i] = e.Prove(ctx, flows.Request{Flow: fl, Input: leaf, LogInvRate: cfg.LogInvRate})
			bar.add(1)
		}()
	}
	wg.Wait()
	bar.finish()
	sum := runSummary{Config: cfg, MemoryBudget: mem.summary()}
	kids := make([]recursion.MergeChild, len(cuts))
	for i, res := range results {
		if errs[i] != nil {
			return fmt.Errorf("leaf %d: %w", i, errs[i])
		}
		ls, err := saveLeaf(cfg, fl, i, res.Statement.N, res)
		if err != nil {
			return err
		}
		sum.TotalProofBytes += ls.ProofBytes
		sum.Leaves = append(sum.Leaves, ls)
		trace.add(fmt.Sprintf("leaf %d", i), res)
		kids[i] = recursion.MergeChild{Proof: res.Proof, Statement: res.Statement}
	}

	cores := e.Scheduler().Cores()
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "merging %d leaves\n", len(kids))
	mstart := time.Now()
	data, meta, err := mergeTree(kids, cfg.Tree.LogInvRate, par.New(context.Background(), cores))
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	mdur := time.Since(mstart)
	ms, err := recursion.StatementOfNR(meta.Proves())
	if err != nil {
		return err
	}
	vstart := time.Now()
	if _, err := flows.VerifyBytes(data, meta); err != nil {
		return fmt.Errorf("merge: the merged proof does not verify: %w", err)
	}
	vdur := time.Since(vstart)
	mergedPath := filepath.Join(cfg.Output, mergedName)
	if err := flows.WriteProofBytes(mergedPath, data, meta); err != nil {
		return err
	}
	wall := time.Since(start)
	sum.Merged = &mergedSummary{Proof: mergedPath, N: len(ms.Keys), Children: len(ms.Children), Depth: ms.Depth, LogInvRate: meta.LogInvRate, ProofBytes: len(data),
		MergeMS: millis(mdur), VerifyMS: millis(vdur)}
	sum.WallMS = millis(wall)
	sum.setRate(fl, float64(set.Len())/wall.Seconds())
	sum.ProofsPerS = float64(len(cuts)+1) / wall.Seconds()
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
	fmt.Fprintf(cmd.OutOrStdout(), "%d leaves of up to %d signatures proved and merged into one proof of all %d signatures (depth %d, %d bytes, merge %.2f s) in %.2f s; all verified; proof %s; summary %s\n",
		len(cuts), cfg.Tree.Leaf, len(ms.Keys), ms.Depth, len(data), mdur.Seconds(), wall.Seconds(), mergedPath, summaryPath)
	return nil
}

// mergeTree merges leaves into one proof at rate (0: the defaults, see treePlan): one
// revealing merge up to recursion.MaxChildren leaves, else the no-reveal tree of
// treePlan, level by level (each level's merges in order, on the workers).
func mergeTree(kids []recursion.MergeChild, rate int, workers par.Workers) ([]byte, flows.Meta, error) {
	if len(kids) <= recursion.MaxChildren {
		if rate == 0 {
			rate = recursion.DefaultRate(len(kids))
		}
		m, err := recursion.Merge(kids, rate, workers)
		if err != nil {
			return nil, flows.Meta{}, err
		}
		meta, err := mergedMeta(m.Statement(), m.LogInvRate, recursion.MergeLabel)
		return m.ProofBytes(), meta, err
	}
	groups, rates := treePlan(len(kids), rate)
	var level []*recursion.MergedNR
	for lv, sizes := range groups {
		next := make([]*recursion.MergedNR, len(sizes))
		lo := 0
		for g, size := range sizes {
			var m *recursion.MergedNR
			var err error
			if lv == 0 {
				m, err = recursion.MergeNR(kids[lo:lo+size], rates[lv], workers)
			} else {
				nr := make([]recursion.NRChild, size)
				for i := range nr {
					nr[i].Merged = level[lo+i]
				}
				m, err = recursion.MergeNRChildren(nr, rates[lv], workers)
			}
			if err != nil {
				if lv == 0 {
					return nil, flows.Meta{}, fmt.Errorf("group %d (leaves %d to %d): %w", g, lo, lo+size-1, err)
				}
				return nil, flows.Meta{}, fmt.Errorf("depth %d, merge %d (of merged proofs %d to %d below): %w", lv+1, g, lo, lo+size-1, err)
			}
			next[g] = m
			lo += size
		}
		level = next
	}
	root := level[0]
	meta, err := mergedMeta(root.Statement(), root.LogInvRate, recursion.MergeLabelNR)
	return root.ProofBytes(), meta, err
}

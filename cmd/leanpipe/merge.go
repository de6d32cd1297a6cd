package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/sysmem"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/recursion"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/leanpipe/leanpipe/xmss"
)

// Merged xmss-aggregate proofs (package recursion, docs/recursion.md): `prove --child`
// merges 2 to 8 proofs on one message and epoch (plus raw signatures proved first as
// one more leaf) into one proof of all their keys; `verify` recognises the merged file
// by its magic. A merged proof's PROOF.json has a leaf's fields (flow xmss-aggregate,
// n = all the keys, log_inv_rate, format wire, message, epoch, public_keys) with the
// merge's label and, beside them, "depth" and "children". Two forms: a merge of leaves
// is by default the revealing one (recursion.Merge, LPMERGE1), which cannot be merged
// again; `--nestable`, or any child that is a no-reveal merged proof, makes a no-reveal
// merge (recursion.MergeNRChildren, LPMERGN7), which merges again to any depth.

// errRevealing is the refusal of a revealing merged proof as a child.
const errRevealing = "a depth-1 merge in the revealing form, which cannot be merged again: merge its leaves with --nestable (no-reveal merged proofs merge to any depth)"

// mergedMeta is a merged proof's PROOF.json (label: the merge's form).
func mergedMeta(ms recursion.MergeStatement, rate int, label string) (flows.Meta, error) {
	st, err := json.Marshal(ms)
	if err != nil {
		return flows.Meta{}, err
	}
	return flows.Meta{Flow: aggregate.FlowName, N: len(ms.Keys), LogInvRate: rate, Label: label, Format: flows.FormatWire, Statement: st}, nil
}

// childFile is one --child: a leaf proof, its metadata and its statement.
type childFile struct {
	path string
	data []byte
	meta flows.Meta
	ag   aggregate.Aggregate
	rc   recursion.MergeChild
	// nr is the child when it is a no-reveal merged proof (rc unset).
	nr *recursion.MergedNR
}

// readChild reads a leaf proof and the PROOF.json beside it (usage errors naming the
// file: unreadable, a merged proof, another flow, malformed metadata or proof).
func readChild(path string) (*childFile, error) { return readChildAs("--child", path) }

// readChildAs is readChild naming the file as what ("--child", or "child" in a job).
func readChildAs(what, path string) (*childFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usage("%s: %v", what, err)
	}
	if recursion.IsMergedProof(data) {
		return nil, usage("%s %s is a merged proof: %s", what, path, errRevealing)
	}
	mb, err := os.ReadFile(path + ".json")
	if err != nil {
		return nil, usage("%s %s: no statement beside it (%v); prove writes PROOF and PROOF.json", what, path, err)
	}
	if err := flows.CheckJSONKeys(mb); err != nil {
		return nil, usage("%s %s.json: %v", what, path, err)
	}
	var meta flows.Meta
	if err := json.Unmarshal(mb, &meta); err != nil {
		return nil, usage("%s %s.json: %v", what, path, err)
	}
	if meta.Flow != aggregate.FlowName {
		return nil, usage("%s %s is a %q proof: only %s proofs merge", what, path, meta.Flow, aggregate.FlowName)
	}
	if meta.Label == recursion.MergeLabel {
		return nil, usage("%s %s is a merged proof: %s", what, path, errRevealing)
	}
	if err := flows.CheckMeta(meta); err != nil {
		return nil, usage("%s %s.json: %v", what, path, err)
	}
	if recursion.IsMergedNRProof(data) || meta.Label == recursion.MergeLabelNR {
		if !recursion.IsMergedNRProof(data) || meta.Label != recursion.MergeLabelNR {
			return nil, usage("%s %s: the file and %s.json disagree on being a no-reveal merged proof", what, path, path)
		}
		ms, err := recursion.StatementOfNR(meta.Proves())
		if err != nil {
			return nil, usage("%s %s.json: %v", what, path, err)
		}
		m, err := recursion.ParseMergedNR(data, ms)
		if err != nil {
			return nil, usage("%s %s: %v", what, path, err)
		}
		return &childFile{path: path, data: data, meta: meta, ag: aggregate.Aggregate{Message: ms.Message, Epoch: ms.Epoch, PublicKeys: ms.Keys}, nr: m}, nil
	}
	p, err := flows.DecodeProof(data, meta.Format)
	if err != nil {
		return nil, usage("%s %s: not a %s proof in %s form: %v", what, path, aggregate.FlowName, meta.Format, err)
	}
	ag, err := aggregate.StatementOf(meta.Proves())
	if err != nil {
		return nil, usage("%s %s.json: %v", what, path, err)
	}
	return &childFile{path: path, data: data, meta: meta, ag: ag, rc: recursion.MergeChild{Proof: p, Statement: meta.Proves()}}, nil
}

// checkSiblings refuses, before any work, children (and raw signers, named by
// sigsName) that sign another message or epoch than the first child, or share a key.
func checkSiblings(children []*childFile, sigs *aggregate.Input, sigsName, childFlag, sigsFlag string) error {
	first := children[0]
	owner := map[xmss.PublicKey]string{}
	take := func(name string, msg xmss.Message, epoch uint32, keys []xmss.PublicKey) error {
		if msg != first.ag.Message || epoch != first.ag.Epoch {
			return usage("%s signs message %x at epoch %d, but %s %s signs message %x at epoch %d: a merge takes one message and epoch",
				name, msg, epoch, childFlag, first.path, first.ag.Message, first.ag.Epoch)
		}
		for i, pk := range keys {
			if o, ok := owner[pk]; ok {
				return usage("%s: public key %d (%s) is also in %s: merged children must have disjoint keys", name, i, pk, o)
			}
			owner[pk] = name
		}
		return nil
	}
	for _, c := range children {
		if err := take(childFlag+" "+c.path, c.ag.Message, c.ag.Epoch, c.ag.PublicKeys); err != nil {
			return err
		}
	}
	if sigs != nil {
		return take(sigsFlag+" "+sigsName, sigs.Message, sigs.Epoch, sigs.PublicKeys())
	}
	return nil
}

// mergeJob is one merge as prove, run and serve describe it.
type mergeJob struct {
	children []*childFile
	sigs     *aggregate.Input // raw signers proved as the last child (nil: none)
	sigsName string
	rate     int // the merged proof's
	workers  int // 0 = all cores
	// nestable makes a no-reveal merge even of leaves only (its proof can be merged
	// again); a no-reveal merged child makes one anyway.
	nestable bool
	// inJob names the inputs as a serve job's fields ("child", "signatures")
	// rather than prove's flags.
	inJob bool
}

// flags are the names of the job's inputs in its errors.
func (j mergeJob) flags() (child, sigs string) {
	if j.inJob {
		return "child", "signatures"
	}
	return "--child", "--signatures"
}

// mergeResult is a merged proof and what it took.
type mergeResult struct {
	stmt  recursion.MergeStatement
	rate  int
	data  []byte
	meta  flows.Meta
	leaf  time.Duration // proving the raw signers' leaf
	merge time.Duration // recursion.Merge, its native child checks included
}

// checkMergeCount refuses a merge of other than 2 to recursion.MaxChildren children.
func checkMergeCount(children int, sigs bool) error {
	total := children
	if sigs {
		total++
	}
	switch {
	case children == 0:
		return usage("a merge needs --child proofs")
	case total < 2:
		return usage("a merge takes 2 to %d children (the raw signatures count as one): got %d", recursion.MaxChildren, total)
	case total > recursion.MaxChildren:
		return usage("a merge takes at most %d children (the raw signatures count as one), got %d: more needs a tree (merge groups of them with --nestable, then merge those)", recursion.MaxChildren, total)
	}
	return nil
}

// defaultRate sets the job's rate, if unset (0), to recursion.DefaultRateOf its
// children (the raw signers counting as one): 3 when one is a merged proof.
func (j *mergeJob) defaultRate() {
	if j.rate != 0 {
		return
	}
	k, merged := len(j.children), false
	if j.sigsName != "" {
		k++
	}
	for _, c := range j.children {
		merged = merged || c.nr != nil
	}
	j.rate = recursion.DefaultRateOf(k, merged)
}

// run proves the raw signers as a leaf at the first child's rate, and merges; Merge
// checks every child natively first (an invalid one is a usage error naming it).
func (j mergeJob) run(ctx context.Context) (*mergeResult, error) {
	if err := checkMergeCount(len(j.children), j.sigs != nil); err != nil {
		return nil, err
	}
	childFlag, sigsFlag := j.flags()
	if err := checkSiblings(j.children, j.sigs, j.sigsName, childFlag, sigsFlag); err != nil {
		return nil, err
	}
	if j.sigs != nil {
		if err := checkSignatures(j.sigs); err != nil {
			return nil, err
		}
	}
	cores := j.workers
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	if j.sigs != nil {
		// The raw signers' leaf is proved before Merge verifies the children: they
		// are verified here first (side by side), so a bad one is named before any work.
		errs := make([]error, len(j.children))
		var wg sync.WaitGroup
		for i, c := range j.children {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = flows.VerifyBytes(c.data, c.meta)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return nil, usage("%s %s does not verify: %v", childFlag, j.children[i].path, err)
			}
		}
	}
	res := &mergeResult{}
	nested := j.nestable
	kids := make([]recursion.MergeChild, 0, len(j.children)+1)
	for _, c := range j.children {
		kids = append(kids, c.rc)
		nested = nested || c.nr != nil
	}
	if j.sigs != nil {
		start := time.Now()
		fin, err := aggregate.Flow.FromValue(j.sigs)
		if err != nil {
			return nil, usage("%s %s: %v", sigsFlag, j.sigsName, err)
		}
		rate := j.children[0].meta.LogInvRate
		p, err := flows.Prove(ctx, flows.Request{Flow: aggregate.Flow, Input: fin, LogInvRate: rate}, flows.ProveOptions{Workers: cores})
		if err != nil {
			return nil, fmt.Errorf("%s %s: proving the leaf: %w", sigsFlag, j.sigsName, err)
		}
		res.leaf = time.Since(start)
		kids = append(kids, recursion.MergeChild{Proof: p.Proof, Statement: p.Statement})
	}
	start := time.Now()
	var m interface {
		ProofBytes() []byte
		Statement() recursion.MergeStatement
	}
	var err error
	label := recursion.MergeLabel
	if nested {
		label = recursion.MergeLabelNR
		nr := make([]recursion.NRChild, len(kids))
		for i := range kids {
			if i < len(j.children) && j.children[i].nr != nil {
				nr[i].Merged = j.children[i].nr
			} else {
				nr[i].Leaf = &kids[i]
			}
		}
		m, err = recursion.MergeNRChildren(nr, j.rate, par.New(ctx, cores))
	} else {
		m, err = recursion.Merge(kids, j.rate, par.New(ctx, cores))
	}
	res.merge = time.Since(start)
	if err != nil {
		// Merge verifies every child before any work: one that does not verify is
		// named by its file.
		var ce *recursion.ChildError
		if errors.As(err, &ce) && ce.Index < len(j.children) {
			return nil, usage("%s %s does not verify: %v", childFlag, j.children[ce.Index].path, ce.Cause)
		}
		if errors.Is(err, recursion.ErrMergeInput) {
			return nil, usage("%v (%s)", err, j.legend())
		}
		return nil, err
	}
	res.stmt, res.rate, res.data = m.Statement(), j.rate, m.ProofBytes()
	if res.meta, err = mergedMeta(res.stmt, j.rate, label); err != nil {
		return nil, err
	}
	return res, nil
}

// legend names the children by their index in Merge's errors.
func (j mergeJob) legend() string {
	var parts []string
	for i, c := range j.children {
		parts = append(parts, fmt.Sprintf("child %d is %s", i, c.path))
	}
	if j.sigs != nil {
		_, sigsFlag := j.flags()
		parts = append(parts, fmt.Sprintf("child %d is %s %s", len(j.children), sigsFlag, j.sigsName))
	}
	return strings.Join(parts, ", ")
}

// proveMerge is `prove --child …`.
func proveMerge(cmd *cobra.Command, paths []string, sigsPath, out, format string, rate, workers int, nestable bool) error {
	for _, name := range []string{"input", "blocks", "states", "n", "seed"} {
		if cmd.Flags().Changed(name) {
			return usage("--%s does not go with --child: a merge takes --child proofs and optionally --signatures FILE", name)
		}
	}
	if cmd.Flags().Changed("trace") {
		return usage("--trace does not apply to a merge (it records no stage spans)")
	}
	if fl, _ := cmd.Flags().GetString("flow"); cmd.Flags().Changed("flow") && fl != aggregate.FlowName {
		return usage("--child merges %s proofs; --flow %s has no merge", aggregate.FlowName, fl)
	}
	if cmd.Flags().Changed("format") && format != flows.FormatWire {
		return usage("--format %s: a merged proof has one form (wire)", format)
	}
	if out == "" {
		return usage("--out is required")
	}
	if !cmd.Flags().Changed("log-inv-rate") {
		rate = 0 // recursion.DefaultRateOf, once the children are read
	} else if rate < 1 || rate > 4 {
		return usage("--log-inv-rate: %d is out of range [1, 4]", rate)
	}
	if workers < 0 || workers > 1024 {
		return usage("--workers: %d is out of range [0, 1024]", workers)
	}
	if err := checkMergeCount(len(paths), sigsPath != ""); err != nil {
		return err
	}
	if err := checkOutFile("--out", out); err != nil {
		return err
	}
	budget, _ := cmd.Flags().GetString("memory-budget")
	mem, err := resolveBudget("--memory-budget", budget)
	if err != nil {
		return err
	}
	nested := false
	for _, p := range paths {
		nested = nested || nestedChild(p)
	}
	if err := mem.checkMerge(nested); err != nil {
		return err
	}
	j := mergeJob{rate: rate, workers: workers, sigsName: sigsPath, nestable: nestable}
	for _, p := range paths {
		c, err := readChild(p)
		if err != nil {
			return err
		}
		j.children = append(j.children, c)
	}
	j.defaultRate()
	if sigsPath != "" {
		in, err := readSignatures("--signatures", sigsPath)
		if err != nil {
			return err
		}
		if err := mem.check("prove", aggregate.Flow, in.Len(), j.children[0].meta.LogInvRate); err != nil {
			return err
		}
		j.sigs = in
	}
	log := newLogger(cmd)
	log.Info().Int("children", len(paths)).Bool("signatures", sigsPath != "").Int("log_inv_rate", j.rate).Msg("merging")
	res, err := j.run(context.Background())
	if err != nil {
		return err
	}
	if err := flows.WriteProofBytes(out, res.data, res.meta); err != nil {
		return err
	}
	printMerged(cmd.OutOrStdout(), res)
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s.json\n", out, out)
	return nil
}

// printMerged summarises a merge.
func printMerged(w io.Writer, res *mergeResult) {
	m := res.stmt
	fmt.Fprintf(w, "merged %d children (%s) into one proof of %d keys at log_inv_rate %d, depth %d: %d bytes",
		len(m.Children), childSizes(m.Children), len(m.Keys), res.rate, m.Depth, len(res.data))
	if res.leaf > 0 {
		fmt.Fprintf(w, "; raw signatures' leaf %.2f s", res.leaf.Seconds())
	}
	fmt.Fprintf(w, "; merge %.2f s (native child checks included)\n", res.merge.Seconds())
}

// childSizes lists children as "n keys at rate r, …".
func childSizes(cs []recursion.ChildInfo) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%d keys at rate %d", c.N, c.LogInvRate)
	}
	return strings.Join(parts, ", ")
}

// verifyMergedFile is `verify PROOF` for a merged proof: PROOF.json is required (it
// records the children); prints accepted or rejected, what was checked, and the keys.
func verifyMergedFile(cmd *cobra.Command, path string, data []byte, showKeys bool) error {
	for _, name := range []string{"statement", "raw-out", "format"} {
		if cmd.Flags().Changed(name) {
			return usage("--%s does not apply to a merged proof: it is checked against its %s.json, which records its children, and has one form", name, path)
		}
	}
	if fl, _ := cmd.Flags().GetString("flow"); cmd.Flags().Changed("flow") && fl != aggregate.FlowName {
		return usage("--flow %s: %s is a merged %s proof", fl, path, aggregate.FlowName)
	}
	mb, err := os.ReadFile(path + ".json")
	if err != nil {
		return usage("%s is a merged proof and has no %s.json beside it (%v): its statement records the children it merges", path, path, err)
	}
	meta, err := readMeta(cmd.OutOrStdout(), path, mb)
	if err != nil {
		return err
	}
	if _, ok := flows.ProofKindOfMeta(meta); !ok {
		return usage("%s is a merged proof, but %s.json describes a %s proof labelled %q (want label %q)", path, path, meta.Flow, meta.Label, recursion.MergeLabel)
	}
	if cmd.Flags().Changed("n") {
		if n, _ := cmd.Flags().GetInt("n"); n != meta.N {
			return usage("--n %d disagrees with %s.json (n = %d)", n, path, meta.N)
		}
	}
	if cmd.Flags().Changed("log-inv-rate") {
		if r, _ := cmd.Flags().GetInt("log-inv-rate"); r != meta.LogInvRate {
			return usage("--log-inv-rate %d disagrees with %s.json (%d)", r, path, meta.LogInvRate)
		}
	}
	read := recursion.StatementOf
	if meta.Label == recursion.MergeLabelNR {
		read = recursion.StatementOfNR
	}
	ms, err := read(meta.Proves())
	if err != nil {
		return usage("%s.json: %v", path, err)
	}
	_, _, verr := flows.VerifyBytesForm(data, meta)
	checked := fmt.Sprintf("checked: flow %s, %d signatures by the listed public keys on message %x at epoch %d, merged from %d children (%s), log_inv_rate %d, merged proof (depth %d)",
		aggregate.FlowName, len(ms.Keys), ms.Message, ms.Epoch, len(ms.Children), childSizes(ms.Children), meta.LogInvRate, ms.Depth)
	out := cmd.OutOrStdout()
	if verr != nil {
		fmt.Fprintf(out, "rejected: the proof does not match this statement (%v)\n%s\n", verr, checked)
		printAggregateKeys(out, aggregate.Aggregate{Message: ms.Message, Epoch: ms.Epoch, PublicKeys: ms.Keys}, showKeys)
		return errRejected
	}
	fmt.Fprintf(out, "accepted\n%s\n", checked)
	printAggregateKeys(out, aggregate.Aggregate{Message: ms.Message, Epoch: ms.Epoch, PublicKeys: ms.Keys}, showKeys)
	return nil
}

// printAggregateKeys is printKeys for a statement already read.
func printAggregateKeys(w io.Writer, ag aggregate.Aggregate, all bool) {
	fmt.Fprintf(w, "keys: %d, keys sha256:%x\n", len(ag.PublicKeys), keysDigest(ag))
	if all {
		for i, pk := range ag.PublicKeys {
			fmt.Fprintf(w, "key %d: %s\n", i, pk)
		}
	}
}

// checkMerge refuses a merge whose estimate (mergeEstimate, or mergeEstimateNested
// for a merge of merged proofs) is over the budget, before any work.
func (b memBudget) checkMerge(nested bool) error {
	est := int64(mergeEstimate)
	if nested {
		est = mergeEstimateNested
	}
	if b.Bytes != 0 && b.Bytes < est {
		return usage("a merge is budgeted at %s, over the memory budget of %s; --memory-budget sets it (0 lifts it)", sysmem.Format(est), b)
	}
	return nil
}

// mergeEstimate is the memory a merge of leaves is budgeted for: the bound on
// a 2→1 step's peak (bench --merge 2 --sigs 200 measured 2.3–2.8 GiB, and 3.3–3.6 GiB
// with --nestable).
const mergeEstimate = 4 << 30

// mergeEstimateNested is the memory a merge with a no-reveal merged child is budgeted
// for: such a merge verifies a merged proof in its circuit, on a 2^25-word stack at its
// rate 3 (measured peaks: 11.8 GB and 13.6 GB in TestMergeNRTree8's trees of 2- and
// 200-signer leaves, 16.1 GB for a whole 17-leaf tree run).
const mergeEstimateNested = 16 << 30

// mergeJobEstimate budgets a merge job by its children's files: mergeEstimateNested
// when one is a no-reveal merged proof (read by its magic; a child that cannot be
// read is budgeted as a leaf, and the merge refuses it later naming it), else
// mergeEstimate.
func mergeJobEstimate(job *stream.Job) int64 {
	for _, p := range job.Children {
		if nestedChild(p) {
			return mergeEstimateNested
		}
	}
	return mergeEstimate
}

// nestedChild reports whether the file at path starts as a no-reveal merged proof.
func nestedChild(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	return recursion.IsMergedNRProof(head[:n])
}

// serveMerger makes serve's merge jobs ({"id", "children": [...], "signatures"?})
// with workers cores (0: all): each child read and checked as prove --child does,
// errors naming the file.
func serveMerger(workers int) *stream.Merger {
	return &stream.Merger{Estimate: mergeEstimate, EstimateJob: mergeJobEstimate, Merge: func(ctx context.Context, job *stream.Job) (flows.Meta, []byte, error) {
		j := mergeJob{rate: job.LogInvRate, workers: workers, sigsName: job.Signatures, inJob: true, nestable: job.Nestable}
		for _, p := range job.Children {
			c, err := readChildAs("child", p)
			if err != nil {
				return flows.Meta{}, nil, err
			}
			j.children = append(j.children, c)
		}
		j.defaultRate()
		if job.Signatures != "" {
			in, err := readSignatures("signatures", job.Signatures)
			if err != nil {
				return flows.Meta{}, nil, err
			}
			j.sigs = in
		}
		res, err := j.run(ctx)
		if err != nil {
			return flows.Meta{}, nil, err
		}
		return res.meta, res.data, nil
	}}
}

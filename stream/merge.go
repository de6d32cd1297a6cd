package stream

import (
	"context"
	"fmt"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/sysmem"
)

// Merge jobs: {"id", "children": [proof paths], "signatures": path?} merges
// xmss-aggregate leaf proofs (each with its PROOF.json beside it), plus raw
// signatures proved as one more leaf, into one proof. The stream does not know how
// to merge: a caller that takes such jobs sets Options.Merger (leanpipe serve sets
// the recursion package's merge); without one a merge job gets an error result. A
// merge job's "log_inv_rate" is the merged proof's (default 2); its form is wire.

// Merger merges the merge jobs of a stream.
type Merger struct {
	// Estimate is the memory one merge is budgeted for, in bytes; EstimateJob, when
	// set, budgets each job instead (its children are readable: a merge of merged
	// proofs needs several times a merge of leaves).
	Estimate    int64
	EstimateJob func(job *Job) int64
	// Merge makes a job's merged proof: its metadata (PROOF.json) and file bytes.
	// Errors name the child at fault.
	Merge func(ctx context.Context, job *Job) (flows.Meta, []byte, error)
}

// MaxMergeChildren is the most children (raw signatures counting as one) of one
// merge job.
const MaxMergeChildren = 8

func (j *Job) isMerge() bool { return j.Children != nil }

// checkMerge is check for a merge job.
func (j *Job) checkMerge() error {
	if j.Flow != "" && j.Flow != aggregate.FlowName {
		return fmt.Errorf("%w: job %s: \"children\" are %s proofs; flow %q has no merge", ErrJob, j.ID, aggregate.FlowName, j.Flow)
	}
	j.Flow, j.flow = aggregate.FlowName, aggregate.Flow
	if j.Input != "" || j.Blocks != "" || j.States != "" || j.N != 0 || j.Seed != nil || j.Value != nil || j.InputSHA256 != "" {
		return fmt.Errorf("%w: job %s: a merge job takes \"children\" and optionally \"signatures\", no other input", ErrJob, j.ID)
	}
	k := len(j.Children)
	if j.Signatures != "" {
		k++
	}
	switch {
	case len(j.Children) == 0 || k < 2:
		return fmt.Errorf("%w: job %s: a merge takes 2 to %d children (the signatures count as one), got %d", ErrJob, j.ID, MaxMergeChildren, k)
	case k > MaxMergeChildren:
		return fmt.Errorf("%w: job %s: a merge takes at most %d children (the signatures count as one), got %d: more needs a tree: merge groups of them with \"nestable\", then merge those", ErrJob, j.ID, MaxMergeChildren, k)
	}
	for i, c := range j.Children {
		if c == "" {
			return fmt.Errorf("%w: job %s: children[%d] is empty", ErrJob, j.ID, i)
		}
	}
	if (j.Format != "" && j.Format != flows.FormatWire) || len(j.Formats) > 1 || (len(j.Formats) == 1 && j.Formats[0] != flows.FormatWire) {
		return fmt.Errorf("%w: job %s: a merged proof has one form (wire)", ErrJob, j.ID)
	}
	j.Format, j.Formats = flows.FormatWire, nil
	// log_inv_rate 0 leaves the rate to the merger (recursion.DefaultRate of the
	// child count).
	if j.LogInvRate < 0 || j.LogInvRate > 4 {
		return fmt.Errorf("%w: job %s: log_inv_rate %d, want 1..4", ErrJob, j.ID, j.LogInvRate)
	}
	return nil
}

// admitMerge is admit for a merge job: a stream without a Merger refuses it, a
// merge over the whole budget is refused, and otherwise it is admitted as any job.
func (p *Prover) admitMerge(job *Job) (int64, bool, error) {
	if p.opt.Merger == nil {
		return 0, false, fmt.Errorf("%w: job %s: this stream does not take merge jobs (\"children\")", ErrJob, job.ID)
	}
	cost := p.opt.Merger.Estimate
	if p.opt.Merger.EstimateJob != nil {
		cost = p.opt.Merger.EstimateJob(job)
	}
	if p.budget != nil && cost > p.opt.MemoryBudget {
		return 0, false, fmt.Errorf("%w: job %s: a merge needs an estimated %s, over the memory budget of %s", ErrLimit, job.ID, sysmem.Format(cost), sysmem.Format(p.opt.MemoryBudget))
	}
	return p.reserve(job, cost)
}

// proveMerge is prove for an admitted merge job.
func (p *Prover) proveMerge(seq uint64, job Job, start time.Time) Result {
	meta, data, err := p.opt.Merger.Merge(p.work, &job)
	if err != nil {
		if p.work.Err() != nil {
			err = fmt.Errorf("%w: job %s: %v", ErrAbandoned, job.ID, err)
		} else {
			err = fmt.Errorf("stream: job %s: %w", job.ID, err)
		}
		return failed(seq, job.ID, err)
	}
	if p.opt.Verify {
		if _, err := flows.VerifyBytes(data, meta); err != nil {
			return failed(seq, job.ID, fmt.Errorf("stream: job %s: the merged proof does not verify: %w", job.ID, err))
		}
	}
	return Result{
		Seq: seq, ID: job.ID, OK: true, Flow: aggregate.FlowName, N: meta.N, Bytes: len(data), Form: flows.FormatWire,
		MS: float64(time.Since(start).Microseconds()) / 1e3, Meta: meta, Data: data,
	}
}

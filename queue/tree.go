package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/recursion"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/nats-io/nats.go/jetstream"
)

// Tree is one signature set proved over the queue as one proof of every signer, in
// Set's order: leaves of Leaf signers cut from Set in order (the last may hold fewer),
// then one merge job of all the leaves (depth 1) or, for more leaves than one merge
// takes, the no-reveal tree of TreeGroups: merge jobs of balanced groups of at most
// recursion.MaxChildren leaves (<ID>-group-<g>, a power of two of them), each level
// above merging the one below in pairs (<ID>-d<depth>-<g>), and the root <ID>.
type Tree struct {
	// ID is the merge job's id; leaf i is the job <ID>-leaf-<i>.
	ID string
	// Set is the signature set; Leaf the signers per leaf.
	Set  *aggregate.Input
	Leaf int
	// Dir is where the leaves' signatures files are written (<ID>-leaf-<i>.json):
	// the workers open them, so they must read Dir at that same path.
	Dir string
	// LeafRate and MergeRate are the leaves' and the merged proofs' log inverse
	// rates (0: the jobs' defaults, 1 and the merger's choice, recursion.DefaultRate
	// of the leaf count; a merge of merged proofs recursion.DefaultRateOf them).
	LeafRate, MergeRate int
}

// rootRate is the rate of a merge of k merged proofs: MergeRate, or
// recursion.DefaultRateOf them.
func (t Tree) rootRate(k int) int {
	if t.MergeRate != 0 {
		return t.MergeRate
	}
	return recursion.DefaultRateOf(k, true)
}

// MaxTreeGroups is the children of a tree's merges of merged proofs: each verifies
// every merged child in its circuit (docs/recursion.md §6.8), so a merge of two stays
// at a 2^25-word stack (about 12–14 GB at its rate 3), where three measured 20 GB and
// four need a 2^26 stack, more than a 24 GB machine holds.
const MaxTreeGroups = 2

// MaxTreeLeaves is the most leaves a tree takes: 2^(recursion.MaxDepthNR-1) groups of
// at most recursion.MaxChildren leaves.
func MaxTreeLeaves() int { return recursion.MaxChildren << (recursion.MaxDepthNR - 1) }

// TreeGroups is the no-reveal tree over k leaves (recursion.MaxChildren < k ≤
// MaxTreeLeaves), level by level from the leaves' merges to the root: each level's
// group sizes in order. The leaves go in balanced groups of at most
// recursion.MaxChildren (two or more each), as many as the least power of two that
// takes them, so that every level above merges pairs of proofs of one depth, down to
// the root's one pair.
func TreeGroups(k int) [][]int {
	g := 1
	for g*recursion.MaxChildren < k {
		g *= 2
	}
	sizes := make([]int, g)
	lo := 0
	for i := range sizes {
		hi := lo + (k-lo)/(g-i)
		sizes[i] = hi - lo
		lo = hi
	}
	groups := [][]int{sizes}
	for ; g > 1; g /= 2 {
		pairs := make([]int, g/2)
		for i := range pairs {
			pairs[i] = MaxTreeGroups
		}
		groups = append(groups, pairs)
	}
	return groups
}

// TreeLeaves is the number of leaves of n signers in leaves of leaf, refused when a
// tree cannot take them: fewer than 2, or more than MaxTreeLeaves. Its errors wrap
// stream.ErrJob.
func TreeLeaves(n, leaf int) (int, error) {
	if leaf < 1 {
		return 0, fmt.Errorf("%w: tree: leaves of %d signers, want at least 1", stream.ErrJob, leaf)
	}
	k := (n + leaf - 1) / leaf
	switch {
	case k < 2:
		return 0, fmt.Errorf("%w: tree: %d signers in leaves of %d make one leaf: nothing to merge (give a smaller leaf)", stream.ErrJob, n, leaf)
	case k > MaxTreeLeaves():
		return 0, fmt.Errorf("%w: tree: %d signers in leaves of %d make %d leaves; a tree takes at most %d (%d groups of up to %d leaves, merged in pairs to depth %d): give a larger leaf or fewer signers",
			stream.ErrJob, n, leaf, k, MaxTreeLeaves(), MaxTreeLeaves()/recursion.MaxChildren, recursion.MaxChildren, recursion.MaxDepthNR)
	}
	return k, nil
}

// LeafID is the job id of a tree's leaf i.
func LeafID(id string, i int) string { return fmt.Sprintf("%s-leaf-%d", id, i) }

// GroupID is the job id of a tree's merge g of leaves (below the root).
func GroupID(id string, g int) string { return fmt.Sprintf("%s-group-%d", id, g) }

// LevelID is the job id of a tree's merge g at depth d below the root: GroupID at
// depth 1, <id>-d<d>-<g> above.
func LevelID(id string, d, g int) string {
	if d == 1 {
		return GroupID(id, g)
	}
	return fmt.Sprintf("%s-d%d-%d", id, d, g)
}

// SubmitTree proves a Tree over the queue: it writes the leaves' signatures files,
// submits the leaf jobs and waits for them (Submit, without fetching), then, once
// every leaf is done, submits the merge job of their proof objects and waits for it
// (for a tree of depth 2, the groups' no-reveal merge jobs first, then the merge of
// their proofs; the groups' results follow the leaves' in the returned list);
// with Options.Fetch the merged proof is downloaded to Fetch/<ID>.proof.bin and
// verified against the whole set's statement (its message, epoch and every key in
// order). It returns the leaves' results (in order) and the merge's; a failed leaf
// leaves the merge unsubmitted, with an error result saying so. Options.NoWait is
// not allowed.
func SubmitTree(ctx context.Context, js jetstream.JetStream, t Tree, o Options) (leaves []Result, root Result, err error) {
	if o.NoWait {
		return nil, Result{}, errors.New("queue: a tree waits for its leaves before its merge: NoWait does not apply")
	}
	if err := CheckID(t.ID); err != nil {
		return nil, Result{}, err
	}
	if t.Set == nil {
		return nil, Result{}, fmt.Errorf("%w: tree %s: no signature set", stream.ErrJob, t.ID)
	}
	k, err := TreeLeaves(t.Set.Len(), t.Leaf)
	if err != nil {
		return nil, Result{}, err
	}
	if err := CheckID(LeafID(t.ID, k-1)); err != nil {
		return nil, Result{}, fmt.Errorf("%w: tree %s: its leaves' ids (%s) are too long", stream.ErrJob, t.ID, LeafID(t.ID, k-1))
	}
	if err := os.MkdirAll(t.Dir, 0o755); err != nil {
		return nil, Result{}, fmt.Errorf("queue: tree %s: leaves directory: %w", t.ID, err)
	}
	jobs := make([]stream.Envelope[stream.Job], k)
	names := make([]string, k)
	for i := range k {
		lo, hi := i*t.Leaf, min(t.Set.Len(), (i+1)*t.Leaf)
		part := &aggregate.Input{Message: t.Set.Message, Epoch: t.Set.Epoch, Signers: t.Set.Signers[lo:hi]}
		data, err := part.MarshalJSON()
		if err != nil {
			return nil, Result{}, fmt.Errorf("queue: tree %s: leaf %d: %w", t.ID, i, err)
		}
		id := LeafID(t.ID, i)
		path, err := filepath.Abs(filepath.Join(t.Dir, id+".json"))
		if err != nil {
			return nil, Result{}, fmt.Errorf("queue: tree %s: %w", t.ID, err)
		}
		if err := atomicfile.Write(path, data); err != nil {
			return nil, Result{}, fmt.Errorf("queue: tree %s: leaf %d: %w", t.ID, i, err)
		}
		jobs[i] = stream.Envelope[stream.Job]{Seq: uint64(i), Val: stream.Job{ID: id, Flow: aggregate.FlowName, Signatures: path, LogInvRate: t.LeafRate}}
		names[i] = ProofName(id)
	}

	leaves, err = Submit(ctx, js, jobs, noFetch(o))
	if err != nil && len(leaves) == 0 {
		return nil, Result{}, err
	}
	var failed []string
	for _, r := range leaves {
		if !r.OK {
			failed = append(failed, r.ID)
		}
	}
	if len(failed) > 0 || err != nil {
		root = failedResult(uint64(k), t.ID, fmt.Errorf("queue: tree %s: the merge was not submitted: %d of %d leaves failed (%s)", t.ID, len(failed), k, boundedIDs(failed)))
		return leaves, root, err
	}

	ro := o
	ro.tree = &mergeWant{message: t.Set.Message, epoch: t.Set.Epoch, keys: t.Set.PublicKeys(), children: k}
	if k <= recursion.MaxChildren {
		merge := stream.Envelope[stream.Job]{Seq: uint64(k), Val: stream.Job{ID: t.ID, Flow: aggregate.FlowName, Children: names, LogInvRate: t.MergeRate}}
		rs, err := Submit(ctx, js, []stream.Envelope[stream.Job]{merge}, ro)
		if len(rs) == 1 {
			root = rs[0]
		}
		return leaves, root, err
	}
	// A no-reveal tree: each level's merges once the level below is done, then the
	// root of the last level's proofs.
	groups := TreeGroups(k)
	for d, sizes := range groups[:len(groups)-1] {
		if err := CheckID(LevelID(t.ID, d+1, len(sizes)-1)); err != nil {
			return leaves, Result{}, fmt.Errorf("%w: tree %s: its merges' ids are too long", stream.ErrJob, t.ID)
		}
	}
	seq := uint64(k)
	for d, sizes := range groups[:len(groups)-1] {
		gjobs := make([]stream.Envelope[stream.Job], len(sizes))
		gnames := make([]string, len(sizes))
		lo := 0
		for g, size := range sizes {
			id := LevelID(t.ID, d+1, g)
			rate := t.MergeRate
			if d > 0 {
				rate = t.rootRate(size)
			}
			gjobs[g] = stream.Envelope[stream.Job]{Seq: seq, Val: stream.Job{ID: id, Flow: aggregate.FlowName, Children: names[lo : lo+size], LogInvRate: rate, Nestable: true}}
			gnames[g] = ProofName(id)
			seq++
			lo += size
		}
		gs, err := Submit(ctx, js, gjobs, noFetch(o))
		leaves = append(leaves, gs...)
		if err != nil && len(gs) == 0 {
			return leaves, Result{}, err
		}
		for _, r := range gs {
			if !r.OK {
				failed = append(failed, r.ID)
			}
		}
		if len(failed) > 0 || err != nil {
			what := "the root merge was not submitted"
			if d+2 < len(groups) {
				what = fmt.Sprintf("the merges at depth %d and above were not submitted", d+2)
			}
			root = failedResult(seq, t.ID, fmt.Errorf("queue: tree %s: %s: %d of %d merges at depth %d failed (%s)", t.ID, what, len(failed), len(sizes), d+1, boundedIDs(failed)))
			return leaves, root, err
		}
		names = gnames
	}
	ro.tree.children, ro.tree.nested = len(names), true
	merge := stream.Envelope[stream.Job]{Seq: seq, Val: stream.Job{ID: t.ID, Flow: aggregate.FlowName, Children: names, LogInvRate: t.rootRate(len(names))}}
	rs, err := Submit(ctx, js, []stream.Envelope[stream.Job]{merge}, ro)
	if len(rs) == 1 {
		root = rs[0]
	}
	return leaves, root, err
}

// noFetch is o without fetching: a tree fetches its root only.
func noFetch(o Options) Options {
	o.Fetch = ""
	return o
}

// boundedIDs lists at most 8 ids.
func boundedIDs(ids []string) string {
	if len(ids) <= 8 {
		return fmt.Sprint(ids)
	}
	return fmt.Sprintf("%v …and %d more", ids[:8], len(ids)-8)
}

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
// takes, no-reveal merge jobs of balanced groups of at most recursion.MaxChildren
// leaves (<ID>-group-<g>) and one merge of the groups' proofs (depth 2).
type Tree struct {
	// ID is the merge job's id; leaf i is the job <ID>-leaf-<i>.
	ID string
	// Set is the signature set; Leaf the signers per leaf.
	Set  *aggregate.Input
	Leaf int
	// Dir is where the leaves' signatures files are written (<ID>-leaf-<i>.json):
	// the workers open them, so they must read Dir at that same path.
	Dir string
	// LeafRate and MergeRate are the leaves' and the merged proof's log inverse
	// rates (0: the jobs' defaults, 1 and the merger's choice, recursion.DefaultRate
	// of the leaf count; a depth-2 root's recursion.DefaultRateOf its merged groups).
	LeafRate, MergeRate int
}

// rootRate is a depth-2 tree's root's rate: MergeRate, or recursion.DefaultRateOf its
// groups, which are merged proofs.
func (t Tree) rootRate(groups int) int {
	if t.MergeRate != 0 {
		return t.MergeRate
	}
	return recursion.DefaultRateOf(groups, true)
}

// MaxTreeGroups bounds a depth-2 tree's groups: its root verifies every group's merged
// proof in its circuit (docs/recursion.md §6.8).
const MaxTreeGroups = 4

// TreeLeaves is the number of leaves of n signers in leaves of leaf, refused when a
// tree cannot take them: fewer than 2, or more than MaxTreeGroups ×
// recursion.MaxChildren. Its errors wrap stream.ErrJob.
func TreeLeaves(n, leaf int) (int, error) {
	if leaf < 1 {
		return 0, fmt.Errorf("%w: tree: leaves of %d signers, want at least 1", stream.ErrJob, leaf)
	}
	k := (n + leaf - 1) / leaf
	switch {
	case k < 2:
		return 0, fmt.Errorf("%w: tree: %d signers in leaves of %d make one leaf: nothing to merge (give a smaller leaf)", stream.ErrJob, n, leaf)
	case k > MaxTreeGroups*recursion.MaxChildren:
		return 0, fmt.Errorf("%w: tree: %d signers in leaves of %d make %d leaves; a tree takes at most %d (%d groups of %d, depth 2): give a larger leaf or fewer signers",
			stream.ErrJob, n, leaf, k, MaxTreeGroups*recursion.MaxChildren, MaxTreeGroups, recursion.MaxChildren)
	}
	return k, nil
}

// LeafID is the job id of a tree's leaf i.
func LeafID(id string, i int) string { return fmt.Sprintf("%s-leaf-%d", id, i) }

// GroupID is the job id of a depth-2 tree's group merge g.
func GroupID(id string, g int) string { return fmt.Sprintf("%s-group-%d", id, g) }

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
	if k > recursion.MaxChildren {
		// Depth 2: the groups' no-reveal merges, then the root of their proofs.
		groups := (k + recursion.MaxChildren - 1) / recursion.MaxChildren
		if err := CheckID(GroupID(t.ID, groups-1)); err != nil {
			return leaves, Result{}, fmt.Errorf("%w: tree %s: its groups' ids are too long", stream.ErrJob, t.ID)
		}
		gjobs := make([]stream.Envelope[stream.Job], groups)
		gnames := make([]string, groups)
		lo := 0
		for g := range groups {
			hi := lo + (k-lo)/(groups-g) // balanced: every group takes 2 or more
			id := GroupID(t.ID, g)
			gjobs[g] = stream.Envelope[stream.Job]{Seq: uint64(k + g), Val: stream.Job{ID: id, Flow: aggregate.FlowName, Children: names[lo:hi], LogInvRate: t.MergeRate, Nestable: true}}
			gnames[g] = ProofName(id)
			lo = hi
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
			root = failedResult(uint64(k+groups), t.ID, fmt.Errorf("queue: tree %s: the root merge was not submitted: %d of %d groups failed (%s)", t.ID, len(failed), groups, boundedIDs(failed)))
			return leaves, root, err
		}
		ro.tree.children, ro.tree.nested = groups, true
		merge := stream.Envelope[stream.Job]{Seq: uint64(k + groups), Val: stream.Job{ID: t.ID, Flow: aggregate.FlowName, Children: gnames, LogInvRate: t.rootRate(groups)}}
		rs, err := Submit(ctx, js, []stream.Envelope[stream.Job]{merge}, ro)
		if len(rs) == 1 {
			root = rs[0]
		}
		return leaves, root, err
	}
	merge := stream.Envelope[stream.Job]{Seq: uint64(k), Val: stream.Job{ID: t.ID, Flow: aggregate.FlowName, Children: names, LogInvRate: t.MergeRate}}
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

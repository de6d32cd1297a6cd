package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/queue"
	"github.com/leanpipe/leanpipe/stream"
)

// A tree over the NATS fleet: `submit --nats URL --tree FILE --leaf L` cuts one
// signatures set into leaves, queues the leaf jobs, then the merge job of their
// proof objects once every leaf is done (queue.SubmitTree), and fetches the one
// merged proof. `serve --nats` workers take the merge jobs with serveMerger, the
// merge serve uses (merge.go), on the children they download from the bucket.

// treeFlags are submit's --tree flags.
type treeFlags struct {
	file, id            string
	leaf                int
	leafRate, mergeRate int
}

func (t *treeFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&t.file, "tree", "", "prove this signatures set as leaves of --leaf signers merged into one proof")
	f.IntVar(&t.leaf, "leaf", 0, "with --tree, signers per leaf (2 to 8 leaves)")
	f.StringVar(&t.id, "id", "", "with --tree, the merge job's id (default: the file's name); leaf i is <id>-leaf-<i>")
	f.IntVar(&t.leafRate, "leaf-rate", 1, "with --tree, the leaves' log inverse rate (1..4)")
	f.IntVar(&t.mergeRate, "merge-rate", 0, "with --tree, the merged proof's log inverse rate (1..4; default: 2 up to four leaves, else 3; a depth-2 root of merged groups 3)")
}

var notIDChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// treeID is the default tree id: the file's name without its extension, with every
// run of other characters than A-Z a-z 0-9 _ - made one "-".
func treeID(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	id := strings.Trim(notIDChars.ReplaceAllString(base, "-"), "-")
	if len(id) > 100 {
		id = id[:100]
	}
	if id == "" {
		id = "tree"
	}
	return id
}

// submitTree is `submit --tree FILE --leaf L`: one result line per leaf, then the
// merge's; exit status 0 when all are ok.
func submitTree(cmd *cobra.Command, n natsFlags, tf treeFlags, fetch string, timeout time.Duration) error {
	switch {
	case tf.file == "":
		return usage("--leaf needs --tree FILE")
	case tf.leaf < 1:
		return usage("--tree needs --leaf L (signers per leaf, at least 1)")
	case tf.leafRate < 1 || tf.leafRate > 4:
		return usage("--leaf-rate: %d is out of range [1, 4]", tf.leafRate)
	case tf.mergeRate < 0 || tf.mergeRate > 4:
		return usage("--merge-rate: %d is out of range [1, 4]", tf.mergeRate)
	}
	for _, name := range []string{"flow", "max-n"} {
		if cmd.Flags().Changed(name) {
			return usage("--%s does not apply to --tree (its jobs are %s leaves and their merge)", name, aggregate.FlowName)
		}
	}
	id := tf.id
	if id == "" {
		id = treeID(tf.file)
	}
	if err := queue.CheckID(id); err != nil {
		return usage("--id: %v", err)
	}
	set, err := readSignatures("--tree", tf.file)
	if err != nil {
		return err
	}
	if _, err := queue.TreeLeaves(set.Len(), tf.leaf); err != nil {
		return usage("--tree %s: %v", tf.file, strings.TrimPrefix(err.Error(), stream.ErrJob.Error()+": "))
	}
	if _, err := aggregate.Flow.FromValue(set); err != nil {
		return usage("--tree %s: %v", tf.file, err) // repeated keys
	}
	if fetch != "" {
		if err := makeDir(fetch); err != nil {
			return usage("--fetch %s: %v", fetch, err)
		}
	}
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	o := n.options()
	o.Fetch = fetch
	nc, js, err := queue.Connect(o)
	if err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	defer nc.Close()
	t := queue.Tree{ID: id, Set: set, Leaf: tf.leaf, Dir: tf.file + ".leaves", LeafRate: tf.leafRate, MergeRate: tf.mergeRate}
	log := newLogger(cmd)
	log.Info().Str("tree", id).Int("signers", set.Len()).Int("leaf", tf.leaf).Str("leaves_dir", t.Dir).Msg("submitting a tree")
	leaves, root, err := queue.SubmitTree(ctx, js, t, o)
	if errors.Is(err, stream.ErrJob) && len(leaves) == 0 {
		return usage("--tree %s: %v", tf.file, err)
	}
	out := cmd.OutOrStdout()
	bad := 0
	for _, r := range append(leaves, root) {
		if r.ID == "" {
			continue
		}
		out.Write(append(r.JSON(), '\n'))
		if !r.OK {
			bad++
		}
	}
	if err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	if bad > 0 {
		return fmt.Errorf("submit: tree %s: %d of %d jobs failed", id, bad, len(leaves)+1)
	}
	return nil
}

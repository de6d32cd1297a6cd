package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/recursion"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/leanpipe/leanpipe/xmss"
	"github.com/nats-io/nats.go/jetstream"
)

// Merge jobs on the queue: {"id", "children": ["<id>.proof.bin", …], "log_inv_rate"?}
// merges 2 to 8 xmss-aggregate leaf proofs of the proofs bucket, named by their
// objects (a result's "object"), into one proof. A worker downloads each child and
// its statement from the bucket, hands them to its Options.Merger as files (which
// verifies every child natively before any work), and stores the merged proof and
// its PROOF.json under the job's id like a leaf's. The job's key (the proof object's
// HeaderJob) is the digest of the children's contents, so a redelivered merge is
// answered from the store only when it merged these very children. Raw signatures
// ("signatures") are not taken in a queued merge: prove them as one more leaf job
// and give its object as a child.

// MaxChildBytes bounds one child object (proof or statement) a worker downloads.
const MaxChildBytes = 64 << 20

// storedChild is one child of a merge job as read from the bucket.
type storedChild struct {
	name       string // its object, <id>.proof.bin
	data, meta []byte // the proof and its statement
}

// isMergeJob reports whether a job merges children.
func isMergeJob(j *stream.Job) bool { return j.Children != nil }

// checkMergeJob checks what a queued merge job may give beyond stream's checks:
// children that are proof objects (<id>.proof.bin), each once, and no raw signatures.
// A job without a rate gets the merge's default for its child count.
func checkMergeJob(j *stream.Job) error {
	if j.LogInvRate == 0 {
		j.LogInvRate = recursion.DefaultRate(len(j.Children))
	}
	if j.Signatures != "" {
		return fmt.Errorf("%w: job %s: a queued merge job takes \"children\" only: prove the raw signatures as one more leaf job and give its object as a child", stream.ErrJob, j.ID)
	}
	seen := map[string]bool{}
	for i, name := range j.Children {
		id, ok := strings.CutSuffix(name, stream.ProofSuffix)
		if !ok || CheckID(id) != nil {
			return fmt.Errorf("%w: job %s: children[%d] %q is not a proof object of the %s bucket: give <id>%s, a leaf job's \"object\"", stream.ErrJob, j.ID, i, name, Bucket, stream.ProofSuffix)
		}
		if seen[name] {
			return fmt.Errorf("%w: job %s: child %s is given twice", stream.ErrJob, j.ID, name)
		}
		seen[name] = true
	}
	return nil
}

// errChildMissing marks a child object that is not in the bucket.
var errChildMissing = errors.New("not in the proofs bucket")

// loadChildren downloads a merge job's children and their statements, retrying
// within window while the server is away. A missing or oversized child is an
// ErrJob error naming it.
func loadChildren(ctx context.Context, store jetstream.ObjectStore, j *stream.Job, window time.Duration) ([]storedChild, error) {
	kids := make([]storedChild, len(j.Children))
	for i, name := range j.Children {
		kids[i].name = name
		for _, obj := range []struct {
			name string
			dst  *[]byte
		}{{name + ".json", &kids[i].meta}, {name, &kids[i].data}} {
			var info *jetstream.ObjectInfo
			err := retry(ctx, func(ctx context.Context) error {
				var err error
				if info, err = store.GetInfo(ctx, obj.name); err != nil {
					return err
				}
				if info.Size > MaxChildBytes {
					return nil
				}
				*obj.dst, err = store.GetBytes(ctx, obj.name)
				return err
			}, window)
			switch {
			case errors.Is(err, jetstream.ErrObjectNotFound):
				return nil, fmt.Errorf("%w: job %s: child %s: %s is %v (prove its leaf first)", stream.ErrJob, j.ID, name, obj.name, errChildMissing)
			case err != nil:
				return nil, fmt.Errorf("queue: job %s: child %s: reading %s: %w", j.ID, name, obj.name, err)
			case info.Size > MaxChildBytes:
				return nil, fmt.Errorf("%w: job %s: child %s: %s is %d bytes, at most %d", stream.ErrLimit, j.ID, name, obj.name, info.Size, MaxChildBytes)
			}
		}
	}
	return kids, nil
}

// mergeKey is a merge job's key (jobKey's counterpart): the digest of its flow,
// rate and form and of each child's name, proof and statement, in order.
func mergeKey(j stream.Job, kids []storedChild) string {
	type child struct{ Name, Proof, Meta string }
	cs := make([]child, len(kids))
	for i, k := range kids {
		p, m := sha256.Sum256(k.data), sha256.Sum256(k.meta)
		cs[i] = child{k.name, hex.EncodeToString(p[:]), hex.EncodeToString(m[:])}
	}
	b, _ := json.Marshal(struct {
		Flow       string
		Merge      []child
		Format     string
		LogInvRate int
		Nestable   bool `json:",omitempty"`
	}{j.Flow, cs, j.Format, j.LogInvRate, j.Nestable})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// writeChildren writes the children as files in a new temporary directory (each
// proof with its .json beside it, as prove writes them) and points the job's
// Children at them; it returns the directory.
func writeChildren(j *stream.Job, kids []storedChild) (string, error) {
	dir, err := os.MkdirTemp("", "leanpipe-merge-")
	if err != nil {
		return "", fmt.Errorf("queue: job %s: %w", j.ID, err)
	}
	paths := make([]string, len(kids))
	for i, k := range kids {
		paths[i] = filepath.Join(dir, k.name)
		if err := os.WriteFile(paths[i], k.data, 0o600); err == nil {
			err = os.WriteFile(paths[i]+".json", k.meta, 0o600)
		}
		if err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("queue: job %s: writing child %s: %w", j.ID, k.name, err)
		}
	}
	j.Children = paths
	return dir, nil
}

// mergeWant is what a merged proof fetched by Submit must state: the message, epoch
// and keys of its children in order (or, for a tree, of the whole signature set),
// and how many children it merges.
type mergeWant struct {
	message  xmss.Message
	epoch    uint32
	keys     []xmss.PublicKey
	children int
	// nested: the merge is a no-reveal one (the job is nestable or a child is).
	nested bool
}

// wantOfChildren derives what a merge of kids proves from their statements, refusing
// what a worker would refuse: a child that is not an xmss-aggregate leaf or no-reveal
// merged proof (a revealing merged proof cannot be merged again), or children of
// another message or epoch.
func wantOfChildren(j *stream.Job, kids []storedChild) (*mergeWant, error) {
	w := &mergeWant{children: len(kids), nested: j.Nestable}
	for i, k := range kids {
		meta, err := flows.ParseMeta(k.meta)
		if err != nil {
			return nil, fmt.Errorf("%w: job %s: child %s: its statement: %v", stream.ErrJob, j.ID, k.name, err)
		}
		if meta.Flow != aggregate.FlowName {
			return nil, fmt.Errorf("%w: job %s: child %s is a %q proof: only %s proofs merge", stream.ErrJob, j.ID, k.name, meta.Flow, aggregate.FlowName)
		}
		if meta.Label == recursion.MergeLabel || recursion.IsMergedProof(k.data) {
			return nil, fmt.Errorf("%w: job %s: child %s is a merged proof in the revealing form, which cannot be merged again: merge its leaves with \"nestable\"", stream.ErrJob, j.ID, k.name)
		}
		var ag aggregate.Aggregate
		if meta.Label == recursion.MergeLabelNR || recursion.IsMergedNRProof(k.data) {
			ms, err := recursion.StatementOfNR(meta.Proves())
			if err != nil {
				return nil, fmt.Errorf("%w: job %s: child %s: %v", stream.ErrJob, j.ID, k.name, err)
			}
			ag, w.nested = aggregate.Aggregate{Message: ms.Message, Epoch: ms.Epoch, PublicKeys: ms.Keys}, true
		} else if ag, err = aggregate.StatementOf(meta.Proves()); err != nil {
			return nil, fmt.Errorf("%w: job %s: child %s: %v", stream.ErrJob, j.ID, k.name, err)
		}
		if i == 0 {
			w.message, w.epoch = ag.Message, ag.Epoch
		} else if ag.Message != w.message || ag.Epoch != w.epoch {
			return nil, fmt.Errorf("%w: job %s: child %s signs message %x at epoch %d, but child %s signs message %x at epoch %d: a merge takes one message and epoch",
				stream.ErrJob, j.ID, k.name, ag.Message, ag.Epoch, kids[0].name, w.message, w.epoch)
		}
		w.keys = append(w.keys, ag.PublicKeys...)
	}
	return w, nil
}

// prepareMerge completes a prepared merge job at submit time: it reads the children
// from the bucket (they must be there: their leaves are proved), records the job's
// key and what its merged proof must state. tree, when set, is what the merged proof
// must state instead (SubmitTree's whole signature set), checked against the
// children too.
func prepareMerge(ctx context.Context, store jetstream.ObjectStore, q *prepared, tree *mergeWant) error {
	job := &q.want.job
	kids, err := loadChildren(ctx, store, job, 0)
	if err != nil {
		return err
	}
	w, err := wantOfChildren(job, kids)
	if err != nil {
		return err
	}
	if tree != nil {
		if w.message != tree.message || w.epoch != tree.epoch || !slices.Equal(w.keys, tree.keys) {
			return fmt.Errorf("%w: job %s: the stored children do not hold the tree's signers in order", stream.ErrJob, job.ID)
		}
		tree.nested = tree.nested || w.nested
		w = tree
	}
	q.key, q.merge = mergeKey(*job, kids), w
	return nil
}

// fetchMerged downloads a merge job's proof and statement, checks that it was made
// from this job (its key), that it is a merged xmss-aggregate proof at the job's
// rate stating the expected message, epoch, keys and child count, verifies it
// against that statement and writes both as serve does.
func fetchMerged(ctx context.Context, store jetstream.ObjectStore, r *Result, q prepared, dir string) error {
	name := ProofName(r.ID)
	info, data, mb, err := getProof(ctx, store, name)
	if err != nil {
		return fmt.Errorf("%w: job %s: %s: %v", ErrFetch, r.ID, name, err)
	}
	if got := info.Headers.Get(HeaderJob); got != q.key {
		return fmt.Errorf("%w: job %s: the stored %s was made from another job", ErrFetch, r.ID, name)
	}
	meta, err := flows.ParseMeta(mb)
	if err != nil {
		return fmt.Errorf("%w: job %s: %s: %v", ErrFetch, r.ID, name, err)
	}
	bad := func(field string) error {
		return fmt.Errorf("%w: job %s: %s states another statement than the job's children: %s differs", ErrFetch, r.ID, name, field)
	}
	label := recursion.MergeLabel
	if q.merge.nested {
		label = recursion.MergeLabelNR
	}
	if meta.Flow != aggregate.FlowName || meta.Label != label {
		return bad(fmt.Sprintf("flow or label (%s, %q; want %s, %q)", meta.Flow, meta.Label, aggregate.FlowName, label))
	}
	if meta.LogInvRate != q.want.job.LogInvRate {
		return bad(fmt.Sprintf("log_inv_rate (%d, want %d)", meta.LogInvRate, q.want.job.LogInvRate))
	}
	ms, err := recursion.StatementOfNR(meta.Proves()) // either form, of any depth
	if err != nil {
		return fmt.Errorf("%w: job %s: %s: %v", ErrFetch, r.ID, name, err)
	}
	switch w := q.merge; {
	case ms.Message != w.message:
		return bad("message")
	case ms.Epoch != w.epoch:
		return bad("epoch")
	case !slices.Equal(ms.Keys, w.keys):
		return bad("public_keys")
	case len(ms.Children) != w.children:
		return bad(fmt.Sprintf("children (%d, want %d)", len(ms.Children), w.children))
	}
	if _, err := flows.VerifyBytes(data, meta); err != nil {
		return fmt.Errorf("%w: job %s: %s does not prove the job's statement: %v", ErrFetch, r.ID, name, err)
	}
	path := stream.ProofPath(dir, r.ID)
	if err := flows.WriteProofBytes(path, data, meta); err != nil {
		return fmt.Errorf("%w: job %s: %v", ErrFetch, r.ID, err)
	}
	r.Proof = path
	return nil
}

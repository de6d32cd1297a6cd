package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/recursion"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/leanpipe/leanpipe/xmss"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The merge-job tests put leaf "proofs" in the bucket by hand (a real statement, junk
// proof bytes) and give the worker a fake Merger: they check the queue's part (the
// children downloaded from the bucket, the key, the refusals, the error naming, the
// redelivery), not the merge itself (cmd/leanpipe's TestNATSTree does real ones).

// leafSet is one generated signature set cut into k leaves of n signers.
func leafSet(t *testing.T, k, n int, seed uint64) (*aggregate.Input, []*aggregate.Input) {
	t.Helper()
	in, err := aggregate.Generate(k*n, seed, "")
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]*aggregate.Input, k)
	for i := range k {
		parts[i] = &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[i*n : (i+1)*n]}
	}
	return in, parts
}

// putLeaf stores a leaf object <id>.proof.bin with part's statement and data as its
// proof bytes.
func putLeaf(t *testing.T, js jetstream.JetStream, id string, part *aggregate.Input, data []byte) {
	t.Helper()
	ctx := context.Background()
	store, err := js.ObjectStore(ctx, Bucket)
	if err != nil {
		t.Fatal(err)
	}
	meta := flows.NewMetaFor(aggregate.Flow, flows.StatementOf(aggregate.Flow, part, 1), flows.FormatWire)
	mb, _ := metaJSON(meta)
	if _, err := store.PutBytes(ctx, ProofName(id)+".json", mb); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, jetstream.ObjectMeta{Name: ProofName(id), Headers: nats.Header{HeaderJob: []string{"by-hand"}}}, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}

// fakeMerger records the children it is given (their contents, and their
// directory) and answers with merged, or with fail's error when fail is set; with
// block it waits for its context to end instead.
type fakeMerger struct {
	mu     sync.Mutex
	calls  int
	dirs   []string
	got    [][]byte
	fail   bool
	block  chan struct{} // closed once merging started, when set
	merged *aggregate.Input
	// asMerged, when set, makes the answer a merged proof's statement (label
	// recursion.MergeLabel) of these keys, with junk proof bytes.
	asMerged []xmss.PublicKey
}

func (f *fakeMerger) merger() *stream.Merger {
	return &stream.Merger{Estimate: 1 << 20, Merge: func(ctx context.Context, job *stream.Job) (flows.Meta, []byte, error) {
		f.mu.Lock()
		f.calls++
		f.dirs = append(f.dirs, filepath.Dir(job.Children[0]))
		f.got = nil
		for _, c := range job.Children {
			data, err := os.ReadFile(c)
			if _, jerr := os.Stat(c + ".json"); err != nil || jerr != nil {
				f.mu.Unlock()
				return flows.Meta{}, nil, fmt.Errorf("child %s: unreadable: %v %v", c, err, jerr)
			}
			f.got = append(f.got, data)
		}
		block, fail := f.block, f.fail
		f.mu.Unlock()
		if block != nil {
			close(block)
			<-ctx.Done()
			return flows.Meta{}, nil, ctx.Err()
		}
		if fail {
			return flows.Meta{}, nil, fmt.Errorf("child %s does not verify: junk", job.Children[1])
		}
		if f.asMerged != nil {
			ms := recursion.MergeStatement{Message: f.merged.Message, Epoch: f.merged.Epoch, Keys: f.asMerged, Depth: 1}
			for range job.Children {
				ms.Children = append(ms.Children, recursion.ChildInfo{N: len(f.asMerged) / len(job.Children), LogInvRate: 1})
			}
			st, err := json.Marshal(ms)
			if err != nil {
				return flows.Meta{}, nil, err
			}
			return flows.Meta{Flow: aggregate.FlowName, N: len(f.asMerged), LogInvRate: job.LogInvRate, Label: recursion.MergeLabel,
				Format: flows.FormatWire, Statement: st}, []byte("LPMERGE0 junk"), nil
		}
		meta := flows.NewMetaFor(aggregate.Flow, flows.StatementOf(aggregate.Flow, f.merged, job.LogInvRate), flows.FormatWire)
		return meta, []byte("merged"), nil
	}}
}

// metaJSON is a statement sidecar's bytes.
func metaJSON(m flows.Meta) ([]byte, error) { return json.MarshalIndent(m, "", "  ") }

func (f *fakeMerger) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// Submit refuses merge jobs it can tell are wrong, before publishing: children that
// are not proof objects, a child given twice, raw signatures, a child missing from
// the bucket, another flow's child, children of two messages.
func TestMergeJobRefusedBySubmit(t *testing.T) {
	o := Options{AckWait: time.Second}
	ts := startServer(t, o)
	_, js := ts.connect(t, "submit")
	_, parts := leafSet(t, 2, 2, 7)
	_, other := leafSet(t, 1, 2, 8)
	putLeaf(t, js, "a", parts[0], []byte("a"))
	putLeaf(t, js, "b", parts[1], []byte("b"))
	putLeaf(t, js, "x", other[0], []byte("x"))
	store, _ := js.ObjectStore(context.Background(), Bucket)
	bf, _ := flows.Lookup(flows.DefaultName)
	bin, _ := bf.Generate(8, 1)
	batch, _ := metaJSON(flows.NewMetaFor(bf, flows.StatementOf(bf, bin, 1), flows.FormatWire))
	store.PutBytes(context.Background(), "batch.proof.bin.json", batch)
	store.PutBytes(context.Background(), "batch.proof.bin", []byte("batch"))
	sigs := filepath.Join(t.TempDir(), "s.json")
	sd, _ := parts[0].MarshalJSON()
	os.WriteFile(sigs, sd, 0o644)

	jobs := parseJobs(t,
		`{"id":"m1","children":["a.bin","b.proof.bin"]}`,
		`{"id":"m2","children":["a.proof.bin","a.proof.bin"]}`,
		`{"id":"m3","children":["a.proof.bin","b.proof.bin"],"signatures":"`+sigs+`"}`,
		`{"id":"m4","children":["a.proof.bin","gone.proof.bin"]}`,
		`{"id":"m5","children":["a.proof.bin","x.proof.bin"]}`,
		`{"id":"m6","children":["batch.proof.bin","a.proof.bin"]}`,
	)
	before := streamMsgs(t, js, JobsStream)
	rs, err := submit(t, js, jobs, o, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		`children[0] "a.bin" is not a proof object`,
		"child a.proof.bin is given twice",
		`takes "children" only`,
		"child gone.proof.bin: gone.proof.bin.json is not in the proofs bucket",
		"a merge takes one message and epoch",
		`child batch.proof.bin is a "blake2s-batch" proof`,
	} {
		if rs[i].OK || !strings.Contains(rs[i].Error, want) || !errors.Is(rs[i].Err, stream.ErrJob) {
			t.Errorf("job %s: %+v, want an error mentioning %q", rs[i].ID, rs[i], want)
		}
	}
	if n := streamMsgs(t, js, JobsStream); n != before {
		t.Errorf("%d jobs published", n-before)
	}
}

// A merge job through a worker: its children are downloaded from the bucket as
// files (with their statements), the merged proof is stored under the job's key and
// the children's files are removed; the same job again is answered from the store,
// and after a child's contents change it is merged again.
func TestMergeJobThroughWorker(t *testing.T) {
	o := Options{AckWait: time.Second, Worker: "w"}
	ts := startServer(t, o)
	set, parts := leafSet(t, 2, 2, 9)
	fm := &fakeMerger{merged: set}
	ow := o
	ow.Merger = fm.merger()
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	w := startWorker(t, jsW, e, ow, nil)
	_, js := ts.connect(t, "submit")
	putLeaf(t, js, "a", parts[0], []byte("proof a"))
	putLeaf(t, js, "b", parts[1], []byte("proof b"))

	jobs := parseJobs(t, `{"id":"m","children":["a.proof.bin","b.proof.bin"],"log_inv_rate":2}`)
	rs, err := submit(t, js, jobs, o, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || !rs[0].OK || rs[0].Object != "m.proof.bin" || rs[0].N != 4 {
		t.Fatalf("result %+v", rs)
	}
	fm.mu.Lock()
	if string(fm.got[0]) != "proof a" || string(fm.got[1]) != "proof b" {
		t.Errorf("the merger read %q", fm.got)
	}
	dir := fm.dirs[0]
	fm.mu.Unlock()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the children's directory %s is left behind (%v)", dir, err)
	}
	store, _ := js.ObjectStore(context.Background(), Bucket)
	info, err := store.GetInfo(context.Background(), "m.proof.bin")
	if err != nil {
		t.Fatal(err)
	}
	key := info.Headers.Get(HeaderJob)

	// Again: answered from the store, not merged.
	if rs, err = submit(t, js, jobs, o, time.Minute); err != nil || !rs[0].OK {
		t.Fatalf("again: %+v %v", rs, err)
	}
	if fm.count() != 1 {
		t.Errorf("merged %d times, want 1 (the second answered from the store)", fm.count())
	}
	// A child re-proved with other bytes: another key, merged again.
	putLeaf(t, js, "b", parts[1], []byte("proof b, again"))
	if rs, err = submit(t, js, jobs, o, time.Minute); err != nil || !rs[0].OK {
		t.Fatalf("after b changed: %+v %v", rs, err)
	}
	info, _ = store.GetInfo(context.Background(), "m.proof.bin")
	if fm.count() != 2 || info.Headers.Get(HeaderJob) == key {
		t.Errorf("after b changed: merged %d times (want 2), key changed %v", fm.count(), info.Headers.Get(HeaderJob) != key)
	}
	m := w.stop(t)
	if m.FromStore != 1 || m.Acked != 3 || e.proofs.Load() != 0 {
		t.Errorf("worker: %d from the store, %d acked, %d leaf proofs; want 1, 3, 0", m.FromStore, m.Acked, e.proofs.Load())
	}
}

// A merge job whose child the merger refuses gets one error result naming the child
// by its object (not the worker's local file) and is terminated, not redelivered; a
// merge job published by hand naming a missing child gets an error result naming it,
// without merging; a worker without a Merger answers a merge job with an error.
func TestMergeJobBadChild(t *testing.T) {
	o := Options{AckWait: 300 * time.Millisecond, Worker: "w"}
	ts := startServer(t, o)
	set, parts := leafSet(t, 2, 2, 10)
	fm := &fakeMerger{merged: set, fail: true}
	ow := o
	ow.Merger = fm.merger()
	_, jsW := ts.connect(t, "w")
	w := startWorker(t, jsW, newEngine(t), ow, nil)
	nc, js := ts.connect(t, "submit")
	putLeaf(t, js, "a", parts[0], []byte("proof a"))
	putLeaf(t, js, "b", parts[1], []byte("proof b"))

	rs, err := submit(t, js, parseJobs(t, `{"id":"m","children":["a.proof.bin","b.proof.bin"]}`), o, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].OK || !strings.Contains(rs[0].Error, "child b.proof.bin does not verify") || strings.Contains(rs[0].Error, os.TempDir()) {
		t.Fatalf("result %+v", rs[0])
	}
	missing := resultsOf(t, nc, "h")
	if _, err := js.Publish(context.Background(), JobsSubject+aggregate.FlowName, []byte(`{"id":"h","children":["a.proof.bin","gone.proof.bin"]}`)); err != nil {
		t.Fatal(err)
	}
	msg, err := missing.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := parseResult(msg.Data)
	if r.OK || !strings.Contains(r.Error, "child gone.proof.bin") || !strings.Contains(r.Error, "not in the proofs bucket") {
		t.Errorf("missing child: %+v", r)
	}
	time.Sleep(4 * o.AckWait) // a redelivery would have come by now
	if fm.count() != 1 {
		t.Errorf("merged %d times, want 1", fm.count())
	}
	if n := streamMsgs(t, js, JobsStream); n != 0 {
		t.Errorf("%d jobs left in the queue", n)
	}
	m := w.stop(t)
	if m.Terminated != 2 || m.Redeliveries != 0 {
		t.Errorf("worker: %d terminated, %d redeliveries; want 2, 0", m.Terminated, m.Redeliveries)
	}

	// No Merger: an error result.
	_, jsN := ts.connect(t, "n")
	on := o
	on.Worker = "n"
	startWorker(t, jsN, newEngine(t), on, nil)
	rs, err = submit(t, js, parseJobs(t, `{"id":"m2","children":["a.proof.bin","b.proof.bin"]}`), o, time.Minute)
	if err != nil || rs[0].OK || !strings.Contains(rs[0].Error, "does not take merge jobs") {
		t.Fatalf("no merger: %+v %v", rs, err)
	}
}

// A worker that dies mid-merge loses nothing: its job is redelivered after the
// lease and merged by another worker.
func TestMergeJobWorkerDies(t *testing.T) {
	o := Options{AckWait: time.Second}
	ts := startServer(t, o)
	set, parts := leafSet(t, 2, 2, 11)
	ncA, jsA := ts.connect(t, "a")
	fa := &fakeMerger{merged: set, block: make(chan struct{})}
	oa := o
	oa.Worker, oa.Merger = "a", fa.merger()
	a := startWorker(t, jsA, newEngine(t), oa, nil)
	_, js := ts.connect(t, "submit")
	putLeaf(t, js, "a", parts[0], []byte("proof a"))
	putLeaf(t, js, "b", parts[1], []byte("proof b"))
	jobs := parseJobs(t, `{"id":"m","children":["a.proof.bin","b.proof.bin"]}`)
	got := make(chan []Result, 1)
	go func() {
		rs, err := submit(t, js, jobs, o, time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- rs
	}()
	recv(t, fa.block, 30*time.Second, "a's merge")
	ncA.Close() // a dies mid-merge: no result, no ack, no nak
	_, jsB := ts.connect(t, "b")
	fb := &fakeMerger{merged: set}
	ob := o
	ob.Worker, ob.Merger = "b", fb.merger()
	startWorker(t, jsB, newEngine(t), ob, nil)
	rs := recv(t, got, time.Minute, "the result")
	if !rs[0].OK || rs[0].Worker != "b" || rs[0].Deliveries != 2 || fb.count() != 1 {
		t.Errorf("answered %+v by %s at delivery %d after %d merges on b; want ok by b at 2 after 1", rs[0], rs[0].Worker, rs[0].Deliveries, fb.count())
	}
	a.stop(t)
}

// Submit's fetch of a merged proof checks what it states against the children's
// statements before verifying it: keys out of order are refused naming the field;
// the right statement with junk bytes fails verification.
func TestMergeJobFetchChecks(t *testing.T) {
	o := Options{AckWait: time.Second, Worker: "w"}
	ts := startServer(t, o)
	set, parts := leafSet(t, 2, 2, 12)
	keys := set.PublicKeys()
	fm := &fakeMerger{merged: set, asMerged: append(append([]xmss.PublicKey{}, keys[2:]...), keys[:2]...)}
	ow := o
	ow.Merger = fm.merger()
	_, jsW := ts.connect(t, "w")
	startWorker(t, jsW, newEngine(t), ow, nil)
	_, js := ts.connect(t, "submit")
	putLeaf(t, js, "a", parts[0], []byte("proof a"))
	putLeaf(t, js, "b", parts[1], []byte("proof b"))
	of := o
	of.Fetch = t.TempDir()
	rs, err := submit(t, js, parseJobs(t, `{"id":"m","children":["a.proof.bin","b.proof.bin"]}`), of, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].OK || !errors.Is(rs[0].Err, ErrFetch) || !strings.Contains(rs[0].Error, "public_keys differs") {
		t.Errorf("keys out of order: %+v", rs[0])
	}
	fm.mu.Lock()
	fm.asMerged = keys
	fm.mu.Unlock()
	rs, err = submit(t, js, parseJobs(t, `{"id":"m2","children":["a.proof.bin","b.proof.bin"]}`), of, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].OK || !strings.Contains(rs[0].Error, "does not prove the job's statement") {
		t.Errorf("junk merged proof: %+v", rs[0])
	}
	if _, err := os.Stat(filepath.Join(of.Fetch, "m2.proof.bin")); err == nil {
		t.Errorf("a merged proof that does not verify was written")
	}
}

// TestTreeRootRate: a depth-2 tree's root takes the tree's merge rate, else rate 3
// (recursion.DefaultRateOf merged groups).
func TestTreeRootRate(t *testing.T) {
	if got := (Tree{}).rootRate(2); got != recursion.DefaultRateOf(2, true) || got != 3 {
		t.Fatalf("default root rate %d, want 3", got)
	}
	if got := (Tree{MergeRate: 2}).rootRate(4); got != 2 {
		t.Fatalf("root rate %d with MergeRate 2", got)
	}
}

// TestTreeGroups: for every leaf count a tree takes, the leaves' groups add up to the
// leaves, each of two to 8, a power of two of them; each level above pairs the one
// below, up to one root, at most recursion.MaxDepthNR deep; one more leaf is refused;
// the merges' ids name their depth.
func TestTreeGroups(t *testing.T) {
	for k, want := range map[int][][]int{
		9:  {{4, 5}, {2}},
		16: {{8, 8}, {2}},
		17: {{4, 4, 4, 5}, {2, 2}, {2}},
		40: {{5, 5, 5, 5, 5, 5, 5, 5}, {2, 2, 2, 2}, {2, 2}, {2}},
	} {
		if got := TreeGroups(k); !reflect.DeepEqual(got, want) {
			t.Errorf("%d leaves: %v, want %v", k, got, want)
		}
	}
	for k := recursion.MaxChildren + 1; k <= MaxTreeLeaves(); k++ {
		if _, err := TreeLeaves(k, 1); err != nil {
			t.Fatalf("%d leaves refused: %v", k, err)
		}
		groups := TreeGroups(k)
		n, fan := k, recursion.MaxChildren
		for lv, sizes := range groups {
			if lv > 0 {
				fan = MaxTreeGroups
			}
			sum := 0
			for _, s := range sizes {
				if s < 2 || s > fan || (lv > 0 && s != 2) {
					t.Fatalf("%d leaves: a group of %d at depth %d: %v", k, s, lv+1, groups)
				}
				sum += s
			}
			if sum != n {
				t.Fatalf("%d leaves: a level's groups take %d of %d: %v", k, sum, n, groups)
			}
			n = len(sizes)
		}
		if n != 1 || len(groups) > recursion.MaxDepthNR {
			t.Fatalf("%d leaves: %d roots, depth %d: %v", k, n, len(groups), groups)
		}
	}
	if MaxTreeLeaves() != 128 {
		t.Fatalf("a tree takes %d leaves, want 8·2^4", MaxTreeLeaves())
	}
	if _, err := TreeLeaves(MaxTreeLeaves()+1, 1); err == nil || !strings.Contains(err.Error(), "make 129 leaves; a tree takes at most 128 (16 groups of up to 8 leaves, merged in pairs to depth 5)") {
		t.Fatalf("129 leaves: %v", err)
	}
	if LevelID("t", 1, 3) != "t-group-3" || LevelID("t", 2, 0) != "t-d2-0" {
		t.Fatalf("ids %q %q", LevelID("t", 1, 3), LevelID("t", 2, 0))
	}
}

// TestTreeShapesVerifiable: every tree TreeGroups plans (leaves of one size but the
// last, which may hold fewer) names at most recursion.MaxShapes distinct merged shapes
// below its root, so that its root, and every node on the way, passes the verifier's
// bound.
func TestTreeShapesVerifiable(t *testing.T) {
	most := 0
	for k := recursion.MaxChildren + 1; k <= MaxTreeLeaves(); k++ {
		for _, sz := range [][2]int{{2, 1}, {2, 2}, {3, 1}, {3, 2}, {200, 1}, {200, 99}, {200, 200}} {
			leaf, last := sz[0], sz[1]
			type node struct {
				info recursion.ChildInfo
				rec  *recursion.MergedChildNR
			}
			level := make([]node, k)
			for i := range level {
				n := leaf
				if i == k-1 {
					n = last
				}
				level[i] = node{info: recursion.ChildInfo{N: n, LogInvRate: 2}}
			}
			groups := TreeGroups(k)
			for _, sizes := range groups[:len(groups)-1] {
				var next []node
				for _, s := range sizes {
					parent := node{info: recursion.ChildInfo{LogInvRate: 2}, rec: &recursion.MergedChildNR{}}
					for _, c := range level[:s] {
						parent.info.N += c.info.N
						parent.rec.Children = append(parent.rec.Children, c.info)
						parent.rec.Subs = append(parent.rec.Subs, c.rec)
					}
					level = level[s:]
					next = append(next, parent)
				}
				level = next
			}
			// The root's children: the last level's one group.
			var children []recursion.ChildInfo
			var subs []*recursion.MergedChildNR
			for _, c := range level {
				children, subs = append(children, c.info), append(subs, c.rec)
			}
			n := recursion.MergedShapes(children, subs)
			if n > recursion.MaxShapes {
				t.Fatalf("%d leaves of %d (the last %d): %d distinct merged shapes below the root (at most %d verify)", k, leaf, last, n, recursion.MaxShapes)
			}
			most = max(most, n)
		}
	}
	if most < 2 {
		t.Fatalf("at most %d distinct shapes: the trees were not built", most)
	}
	t.Logf("at most %d distinct merged shapes below a root", most)
}

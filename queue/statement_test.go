package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// storeProof puts a proof and its metadata into the proofs bucket as object name,
// tagged with key, as a worker would.
func storeProof(t *testing.T, js jetstream.JetStream, name, key string, data []byte, meta flows.Meta) {
	t.Helper()
	ctx := context.Background()
	store, err := js.ObjectStore(ctx, Bucket)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := json.Marshal(meta)
	if _, err := store.PutBytes(ctx, name+".json", mb); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, jetstream.ObjectMeta{Name: name, Headers: nats.Header{HeaderJob: []string{key}}}, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}

// proveFor proves in with the flow and returns the wire proof and its metadata.
func proveFor(t *testing.T, fl flows.Flow, in flows.Input) ([]byte, flows.Meta) {
	t.Helper()
	e, err := flows.NewEngine(flows.EngineOptions{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Prove(context.Background(), flows.Request{Flow: fl, Input: in})
	if err != nil {
		t.Fatal(err)
	}
	return flows.EncodeProof(res.Proof, "wire"), flows.NewMetaFor(fl, res.Statement, "wire")
}

// TestFetchRefusesAnotherStatement: a worker answers job x (16 generated
// compressions) with a valid proof of another statement (8 compressions) from the
// store; Submit with Fetch refuses it naming the job and the field, and writes no
// file. With a sidecar that claims the job's statement, the proof is verified
// against the job's statement and refused too.
func TestFetchRefusesAnotherStatement(t *testing.T) {
	o := Options{Worker: "w"}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	w := startWorker(t, jsW, e, o, nil)
	_, js := ts.connect(t, "t")

	data, meta := proveFor(t, flows.Batch, flows.Blocks(flows.Generate(8, 1)))
	jobs := parseJobs(t, `{"id":"x","n":16}`)
	q, err := prepare(jobs[0], Options{Flow: flows.DefaultName})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lie  bool
		want string
	}{
		{false, "n (8, want 16) differs"},
		{true, "does not prove the job's statement"},
	} {
		m := meta
		if c.lie {
			m.N = 16
		}
		storeProof(t, js, ProofName("x"), q.key, data, m)
		dir := t.TempDir()
		rs, err := submit(t, js, jobs, Options{Fetch: dir}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 || rs[0].OK || !strings.Contains(rs[0].Error, "job x") || !strings.Contains(rs[0].Error, c.want) {
			t.Fatalf("lying sidecar %v: results %+v, want an error naming job x and %q", c.lie, rs, c.want)
		}
		if names, _ := os.ReadDir(dir); len(names) != 0 {
			t.Fatalf("refused proof left files: %v", names)
		}
	}
	if m := w.stop(t); m.FromStore != 2 || e.proofs.Load() != 0 {
		t.Fatalf("%d answered from the store, %d proved; want 2, 0", m.FromStore, e.proofs.Load())
	}
}

// TestFetchChangedInputFile: the signatures file at one path changes after its
// proof was stored. The resubmitted job (same id, same path) has another key, so
// the worker proves the new file; and when the store still answers it with the old
// file's proof (as a store keyed by path did), Submit with Fetch refuses that valid
// proof of another statement, naming the job and the field (the message).
func TestFetchChangedInputFile(t *testing.T) {
	if testing.Short() {
		t.Skip("proves an xmss-aggregate proof of one signer")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "sigs.json")
	a, err := aggregate.Generate(1, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	b := &aggregate.Input{Message: a.Message, Epoch: a.Epoch, Signers: a.Signers}
	b.Message[0] ^= 1 // another statement; its signature no longer verifies, so no worker proves it
	ab, _ := a.MarshalJSON()
	bb, _ := b.MarshalJSON()
	if err := os.WriteFile(path, ab, 0o644); err != nil {
		t.Fatal(err)
	}
	line := `{"id":"x","signatures":"` + path + `"}`
	qa, err := prepare(parseJobs(t, line)[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	proof, meta := proveFor(t, aggregate.Flow, a)

	o := Options{Worker: "w"}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	e := newEngine(t)
	w := startWorker(t, jsW, e, o, nil)
	_, js := ts.connect(t, "t")
	storeProof(t, js, ProofName("x"), qa.key, proof, meta)

	// The file changes at the same path.
	if err := os.WriteFile(path, bb, 0o644); err != nil {
		t.Fatal(err)
	}
	qb, err := prepare(parseJobs(t, line)[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if qb.key == qa.key {
		t.Fatal("the changed file kept the job's key")
	}
	// A store that answers by path: the old proof under the new job's key.
	storeProof(t, js, ProofName("x"), qb.key, proof, meta)
	out := t.TempDir()
	rs, err := submit(t, js, parseJobs(t, line), Options{Fetch: out}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].OK || !strings.Contains(rs[0].Error, "job x") || !strings.Contains(rs[0].Error, "message differs") {
		t.Fatalf("results %+v, want job x refused: message differs", rs)
	}
	if names, _ := os.ReadDir(out); len(names) != 0 {
		t.Fatalf("refused proof left files: %v", names)
	}
	if m := w.stop(t); m.FromStore != 1 || e.proofs.Load() != 0 {
		t.Fatalf("%d answered from the store, %d proved; want 1, 0", m.FromStore, e.proofs.Load())
	}
}

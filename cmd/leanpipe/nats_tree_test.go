package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/queue"
)

// TestSubmitTreeRefusals: `submit --tree` refusals that come before any connection
// (port 1 has no server), each an input error (exit 2) that publishes nothing.
func TestSubmitTreeRefusals(t *testing.T) {
	dir := t.TempDir()
	sigs, _ := signaturesFile(t, dir, "sigs.json", 9, 61)
	jobs := filepath.Join(dir, "jobs.jsonl")
	os.WriteFile(jobs, []byte(`{"id":"a","n":8}`+"\n"), 0o644)
	url := "nats://127.0.0.1:1"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tree", sigs, "--leaf", "9"}, "make one leaf: nothing to merge"},
		{[]string{"--tree", sigs, "--leaf", "2", jobs}, "--tree takes no jobs file"},
		{[]string{"--leaf", "2"}, "--leaf needs --tree FILE"},
		{[]string{"--tree", sigs}, "--tree needs --leaf L"},
		{[]string{"--tree", sigs, "--leaf", "2", "--no-wait"}, "drop --no-wait"},
		{[]string{"--tree", sigs, "--leaf", "2", "--merge-rate", "5"}, "--merge-rate: 5 is out of range"},
		{[]string{"--tree", sigs, "--leaf", "2", "--id", "a.b"}, "--id:"},
		{[]string{"--tree", filepath.Join(dir, "missing.json"), "--leaf", "2"}, "--tree: stat"},
	} {
		code, o, e := run(t, append([]string{"submit", "--nats", url}, c.args...)...)
		if code != 2 || o != "" || !strings.Contains(e, c.want) {
			t.Errorf("submit %v: exit %d, %q %q; want 2 mentioning %q", c.args, code, o, e, c.want)
		}
	}
	for _, f := range []string{sigs} {
		if _, err := os.Stat(f + ".leaves"); err == nil {
			t.Errorf("a refused tree wrote its leaves")
		}
	}
}

// TestNATSTree: `serve --nats` worker processes and `submit --tree --fetch` prove a
// 5-signer set as leaves of 2, 2 and 1 signers and one merge of them; the worker
// holding the merge is SIGKILLed and the merge is redelivered to another; the fetched
// root verifies with `leanpipe verify` and states the set's keys in order. Then a
// merge job naming a corrupted child is refused naming it, and one naming the
// (revealing) merged root is refused as a proof that cannot be merged again.
func TestNATSTree(t *testing.T) {
	skipMergeProofs(t, "proves three leaves and a merge through a NATS worker")
	url := embeddedNATS(t, nil)
	nc, js, err := queue.Connect(queue.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := queue.Ensure(context.Background(), js, queue.Options{URL: url, AckWait: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sigs, in := signaturesFile(t, dir, "committee.json", 5, 67)

	// w1 proves the leaves and is SIGKILLed once it holds the merge job; w2, started
	// then, gets the merge redelivered.
	var e1, we bytes.Buffer
	common := []string{"serve", "--nats", url, "--workers", "2", "--in-flight", "1", "--ack-wait", "5s", "--grace", "1s"}
	w1 := child(t, &e1, append(common, "--name", "w1")...)
	defer w1.Process.Kill()
	var w *exec.Cmd
	defer func() {
		if w != nil {
			w.Process.Kill()
		}
	}()
	store, err := js.ObjectStore(context.Background(), queue.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	killed := make(chan bool, 1)
	go func() {
		defer close(killed)
		cons, err := js.Consumer(context.Background(), queue.JobsStream, queue.Consumer)
		if err != nil {
			t.Error(err)
			return
		}
		for end := time.Now().Add(10 * time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if _, err := store.GetInfo(context.Background(), queue.LeafID("committee", 2)+".proof.bin"); err != nil {
				continue
			}
			info, err := cons.Info(context.Background())
			if err == nil && info.NumAckPending == 1 && info.NumPending == 0 && info.Delivered.Stream == 4 {
				w1.Process.Signal(syscall.SIGKILL)
				killed <- true
				return
			}
		}
	}()

	fetch := filepath.Join(dir, "fetched")
	var o, e bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- executeIn([]string{"submit", "--nats", url, "--ack-wait", "5s", "--tree", sigs, "--leaf", "2", "--leaf-rate", "2",
			"--fetch", fetch, "--timeout", "600s"}, strings.NewReader(""), &o, &e)
	}()
	if !<-killed {
		t.Fatalf("w1 never held the merge job\nw1: %s", e1.String())
	}
	w1.Wait()
	w = child(t, &we, append(common, "--name", "w2")...)
	code := <-done
	if code != 0 {
		t.Fatalf("submit --tree: exit %d: %s\nstdout %s\nw1: %s\nw2: %s", code, e.String(), o.String(), e1.String(), we.String())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d result lines, want 3 leaves and the merge: %s", len(lines), o.String())
	}
	for i, l := range lines {
		t.Log(l)
		var r struct {
			ID, Object, Proof, Worker string
			OK                        bool
			N, Deliveries             int
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || !r.OK {
			t.Fatalf("result %s (%v)", l, err)
		}
		wantID, wantN := queue.LeafID("committee", i), []int{2, 2, 1, 5}[i]
		if i == 3 {
			wantID = "committee"
		}
		if r.ID != wantID || r.N != wantN || r.Object != wantID+".proof.bin" || (i == 3) != (r.Proof != "") {
			t.Errorf("result %d: %s; want id %s, n %d, the proof fetched for the merge only", i, l, wantID, wantN)
		}
		if i == 3 && (r.Worker != "w2" || r.Deliveries != 2) {
			t.Errorf("the merge: answered by %s at delivery %d, want w2 at 2 (w1 was killed holding it)", r.Worker, r.Deliveries)
		}
	}
	root := filepath.Join(fetch, "committee.proof.bin")
	vcode, vo, _ := run(t, "verify", root)
	if vcode != 0 || !accepted(vo) || !strings.Contains(vo, "merged from 3 children") || !strings.Contains(vo, "5 signatures") {
		t.Fatalf("verify the fetched root: %d %q", vcode, vo)
	}
	mb, _ := os.ReadFile(root + ".json")
	var meta struct {
		Keys []string `json:"public_keys"`
	}
	if err := json.Unmarshal(mb, &meta); err != nil || len(meta.Keys) != 5 {
		t.Fatalf("root PROOF.json: %v %s", err, mb)
	}
	for i, s := range in.Signers {
		if meta.Keys[i] != s.PublicKey.String() {
			t.Fatalf("key %d: %s, want %s", i, meta.Keys[i], s.PublicKey)
		}
	}

	// A corrupted copy of leaf 0 in the bucket, and merge jobs naming it and the root.
	leaf0 := queue.LeafID("committee", 0) + ".proof.bin"
	data, err := store.GetBytes(context.Background(), leaf0)
	if err != nil {
		t.Fatal(err)
	}
	lm, _ := store.GetBytes(context.Background(), leaf0+".json")
	data[len(data)/2] ^= 1
	store.PutBytes(context.Background(), "bad.proof.bin.json", lm)
	store.PutBytes(context.Background(), "bad.proof.bin", data)
	jobs := filepath.Join(dir, "jobs.jsonl")
	leaf1 := queue.LeafID("committee", 1) + ".proof.bin"
	os.WriteFile(jobs, []byte(`{"id":"mbad","children":["bad.proof.bin","`+leaf1+`"]}`+"\n"+
		`{"id":"deep","children":["committee.proof.bin","`+leaf1+`"]}`+"\n"), 0o644)
	o.Reset()
	e.Reset()
	code = executeIn([]string{"submit", "--nats", url, "--ack-wait", "5s", "--timeout", "300s", jobs}, strings.NewReader(""), &o, &e)
	out := o.String()
	if code != 1 || !strings.Contains(out, `"id":"mbad","ok":false`) || !strings.Contains(out, "child bad.proof.bin does not verify") ||
		!strings.Contains(out, "child committee.proof.bin is a merged proof") || !strings.Contains(out, "cannot be merged again") {
		t.Fatalf("bad merge jobs: exit %d\n%s\n%s\nworker: %s", code, out, e.String(), we.String())
	}
	if strings.Contains(out, os.TempDir()+"/leanpipe-merge-") {
		t.Errorf("an error names the worker's local file: %s", out)
	}
	w.Process.Signal(syscall.SIGTERM)
	if err := w.Wait(); err != nil {
		t.Fatalf("worker after SIGTERM: %v\n%s", err, we.String())
	}
}

// TestNATSTreeDepth2: a 9-signer set in leaves of 1 is more than one merge takes:
// `submit --tree` queues the nine leaves, then two no-reveal group merges of 4 and 5
// leaves, then the root of their proofs; the fetched root has depth 2, verifies, and
// states the set's keys in order.
func TestNATSTreeDepth2(t *testing.T) {
	skipMergeProofs(t, "proves nine leaves and a depth-2 tree through a NATS worker")
	want := make([]treeLine, 0, 12)
	for i := range 9 {
		want = append(want, treeLine{queue.LeafID("nine", i), 1})
	}
	want = append(want, treeLine{queue.GroupID("nine", 0), 4}, treeLine{queue.GroupID("nine", 1), 5}, treeLine{"nine", 9})
	natsTreeChecked(t, "nine", 9, 71, 2, want, "--merge-rate", "2")
}

// TestNATSTreeDepth3 (LEANPIPE_NATS_TREE3=1; 17 leaves and 7 merges through one worker,
// a few minutes): a 17-signer set in leaves of 1 makes a tree of depth 3: the leaves,
// four group merges (4, 4, 4 and 5 leaves), two merges of pairs of those, then the
// root; the fetched root has depth 3, verifies, and states the set's keys in order.
func TestNATSTreeDepth3(t *testing.T) {
	if os.Getenv("LEANPIPE_NATS_TREE3") == "" {
		t.Skip("set LEANPIPE_NATS_TREE3=1 to prove a depth-3 tree through a NATS worker")
	}
	skipMergeProofs(t, "proves 17 leaves and a depth-3 tree through a NATS worker")
	want := make([]treeLine, 0, 24)
	for i := range 17 {
		want = append(want, treeLine{queue.LeafID("many", i), 1})
	}
	for g, n := range []int{4, 4, 4, 5} {
		want = append(want, treeLine{queue.LevelID("many", 1, g), n})
	}
	want = append(want, treeLine{queue.LevelID("many", 2, 0), 8}, treeLine{queue.LevelID("many", 2, 1), 9}, treeLine{"many", 17})
	natsTreeChecked(t, "many", 17, 73, 3, want)
}

// treeLine is one result line of `submit --tree`: its job id and signer count.
type treeLine struct {
	ID string
	N  int
}

// natsTreeChecked proves a set of signers (from seed) in leaves of 1 over an embedded
// server and one `serve --nats` worker with `submit --tree id --fetch` (args added),
// checks every result line (ok, and the ids and sizes of want, in order), and that the
// fetched root verifies, has the given depth and states the set's keys in order.
func natsTreeChecked(t *testing.T, id string, signers int, seed uint64, depth int, want []treeLine, args ...string) {
	t.Helper()
	url := embeddedNATS(t, nil)
	nc, js, err := queue.Connect(queue.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := queue.Ensure(context.Background(), js, queue.Options{URL: url, AckWait: 60 * time.Second}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sigs, in := signaturesFile(t, dir, id+".json", signers, seed)
	var we bytes.Buffer
	w := child(t, &we, "serve", "--nats", url, "--workers", "2", "--in-flight", "1", "--ack-wait", "60s", "--grace", "1s", "--name", "w")
	defer w.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- w.Wait() }()
	fetch := filepath.Join(dir, "fetched")
	var o, e bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- executeIn(append([]string{"submit", "--nats", url, "--ack-wait", "60s", "--tree", sigs, "--leaf", "1", "--leaf-rate", "2",
			"--fetch", fetch, "--timeout", "1200s", "--id", id}, args...), strings.NewReader(""), &o, &e)
	}()
	var code int
	select {
	case code = <-done:
	case err := <-exited:
		t.Fatalf("the worker stopped (%v) before the tree was done:\n%s", err, we.String())
	}
	if code != 0 {
		t.Fatalf("submit --tree: exit %d: %s\nstdout %s\nworker: %s", code, e.String(), o.String(), we.String())
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d result lines, want %d: %s", len(lines), len(want), o.String())
	}
	for i, l := range lines {
		var r struct {
			ID string
			OK bool
			N  int
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || !r.OK {
			t.Fatalf("result %s (%v)", l, err)
		}
		if r.ID != want[i].ID || r.N != want[i].N {
			t.Errorf("result %d: %s; want id %s, n %d", i, l, want[i].ID, want[i].N)
		}
	}
	root := filepath.Join(fetch, id+".proof.bin")
	vcode, vo, _ := run(t, "verify", root)
	if vcode != 0 || !accepted(vo) || !strings.Contains(vo, "merged from 2 children") || !strings.Contains(vo, fmt.Sprintf("(depth %d)", depth)) {
		t.Fatalf("verify the fetched root: %d %q", vcode, vo)
	}
	mb, _ := os.ReadFile(root + ".json")
	var meta struct {
		Keys []string `json:"public_keys"`
	}
	if err := json.Unmarshal(mb, &meta); err != nil || len(meta.Keys) != signers {
		t.Fatalf("root PROOF.json: %v %s", err, mb)
	}
	for i, s := range in.Signers {
		if meta.Keys[i] != s.PublicKey.String() {
			t.Fatalf("key %d: %s, want %s", i, meta.Keys[i], s.PublicKey)
		}
	}
	w.Process.Signal(syscall.SIGTERM)
	<-exited
}

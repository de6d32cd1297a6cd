package queue

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
)

// readProof reads a proof file and its sidecar and verifies it, in the form its
// sidecar names; it returns the form and the proof's raw encoding.
func readProof(t *testing.T, path string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := os.ReadFile(path + ".json")
	if err != nil {
		t.Fatal(err)
	}
	meta, err := flows.ParseMeta(mb)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := flows.VerifyBytes(data, meta)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return meta.Format, raw.MarshalRaw()
}

// A job with "formats": ["wire","raw"] (or raw first) is proved once and stored in
// both forms, each object with its statement; Submit fetches and verifies both and
// names the other in "also"; the same job resubmitted is answered from the store
// with both forms; bad "formats" are refused before publishing.
func TestBothForms(t *testing.T) {
	o := Options{AckWait: 5 * time.Second}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	eng := newEngine(t)
	wo := o
	wo.Worker, wo.Out = "w", t.TempDir()
	w := startWorker(t, jsW, eng, wo, nil)
	_, js := ts.connect(t, "submit")
	jobs := parseJobs(t,
		`{"id":"both","n":40,"seed":3,"formats":["wire","raw"]}`,
		`{"id":"rawfirst","n":24,"formats":["raw","wire"]}`,
		`{"id":"one","n":16,"formats":["raw"]}`)
	dir := t.TempDir()
	so := o
	so.Fetch = dir
	results, err := submit(t, js, jobs, so, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	checkOne(t, jobs, results)
	want := map[string][2]string{"both": {"wire", "raw"}, "rawfirst": {"raw", "wire"}, "one": {"raw", ""}}
	for _, r := range results {
		forms := want[r.ID]
		if r.Form != forms[0] || r.Proof != stream.ProofPath(dir, r.ID) {
			t.Errorf("job %s: format %q, proof %q", r.ID, r.Form, r.Proof)
		}
		form, raw := readProof(t, r.Proof)
		if form != forms[0] {
			t.Errorf("job %s: %s holds the %s form, want %s", r.ID, r.Proof, form, forms[0])
		}
		if forms[1] == "" {
			if r.Also != nil {
				t.Errorf("job %s: also %v for one form", r.ID, r.Also)
			}
			continue
		}
		other := stream.FormPath(dir, r.ID, forms[1])
		if r.Also[forms[1]] != other || len(r.Also) != 1 {
			t.Errorf("job %s: also %v, want %s: %s", r.ID, r.Also, forms[1], other)
		}
		form2, raw2 := readProof(t, other)
		if form2 != forms[1] || !bytes.Equal(raw, raw2) {
			t.Errorf("job %s: %s is %s, same proof %v", r.ID, other, form2, bytes.Equal(raw, raw2))
		}
		// In the bucket too, with the worker's local copy.
		_, jsc := ts.connect(t, "check")
		store, err := jsc.ObjectStore(context.Background(), Bucket)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{ProofName(r.ID), FormName(r.ID, forms[1])} {
			for _, n := range []string{name, name + ".json"} {
				if _, err := store.GetInfo(context.Background(), n); err != nil {
					t.Errorf("object %s: %v", n, err)
				}
			}
		}
		if f, _ := readProof(t, stream.FormPath(wo.Out, r.ID, forms[1])); f != forms[1] {
			t.Errorf("job %s: local copy of the %s form is %s", r.ID, forms[1], f)
		}
	}
	if eng.proofs.Load() != 3 {
		t.Errorf("%d proofs for 3 jobs", eng.proofs.Load())
	}

	// Resubmitted: answered from the store, both forms fetched again.
	dir2 := t.TempDir()
	rs, err := submit(t, js, jobs[:1], Options{AckWait: o.AckWait, Fetch: dir2}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	checkOne(t, jobs[:1], rs)
	if rs[0].Also["raw"] != stream.FormPath(dir2, "both", "raw") {
		t.Errorf("from the store: also %v", rs[0].Also)
	}
	readProof(t, stream.FormPath(dir2, "both", "raw"))
	// A job asking for one form more than the stored one is proved again.
	more := parseJobs(t, `{"id":"one","n":16,"formats":["raw","wire"]}`)
	rs, err = submit(t, js, more, Options{AckWait: o.AckWait, Fetch: dir2}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	checkOne(t, more, rs)
	readProof(t, stream.FormPath(dir2, "one", "wire"))
	m := w.stop(t)
	if m.FromStore != 1 || eng.proofs.Load() != 4 {
		t.Errorf("%d answered from the store, %d proofs; want 1 and 4", m.FromStore, eng.proofs.Load())
	}

	// Refused before publishing.
	for _, line := range []string{
		`{"id":"twice","n":8,"formats":["wire","wire"]}`,
		`{"id":"other","n":8,"format":"raw","formats":["wire","raw"]}`,
		`{"id":"three","n":8,"formats":["wire","raw","wire"]}`,
		`{"id":"bogus","n":8,"formats":["zip"]}`,
	} {
		rs, err := submit(t, js, parseJobs(t, line), Options{AckWait: o.AckWait, NoWait: true}, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if rs[0].OK || !errors.Is(rs[0].Err, stream.ErrJob) || !strings.Contains(rs[0].Error, "format") {
			t.Errorf("%s: %+v", line, rs[0])
		}
	}
}

// The xmss-aggregate flow through the queue: a signatures job carries the path of a
// signatures file (resolved against the jobs file's directory and made absolute by
// ReadJobs), the worker opens it, verifies every signature and proves the
// aggregate; the fetched proof verifies. A job naming a file the worker cannot open
// gets an error result naming the path.
func TestXMSSAggregateJob(t *testing.T) {
	if testing.Short() {
		t.Skip("proves an aggregate of 2 signers")
	}
	in, err := aggregate.Generate(2, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := in.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	jobsDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(jobsDir, "sigs.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, err := ReadJobs(context.Background(), strings.NewReader(
		`{"id":"x","flow":"xmss-aggregate","signatures":"sigs.json"}`+"\n"+`{"id":"y","signatures":"missing.json"}`), jobsDir)
	if err != nil {
		t.Fatal(err)
	}
	if p := jobs[0].Val.Signatures; p != filepath.Join(jobsDir, "sigs.json") || !filepath.IsAbs(p) {
		t.Fatalf("signatures path %q", p)
	}
	o := Options{AckWait: 5 * time.Second}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	wo := o
	wo.Worker = "w"
	w := startWorker(t, jsW, newEngine(t), wo, nil)
	_, js := ts.connect(t, "submit")
	dir := t.TempDir()
	so := o
	so.Fetch = dir
	results, err := submit(t, js, jobs, so, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("%d results", len(results))
	}
	x, y := results[0], results[1]
	if !x.OK || x.Flow != aggregate.FlowName || x.N != 2 {
		t.Fatalf("job x: %+v", x)
	}
	readProof(t, x.Proof)
	if y.OK || !strings.Contains(y.Error, "missing.json") {
		t.Errorf("job y (no such file): %+v", y)
	}
	w.stop(t)
}

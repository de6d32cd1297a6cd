package queue

import (
	"strings"
	"testing"
	"time"
)

// TestResultNamesObject: without Fetch a result names the proof's object in the
// bucket ("object") and no local file ("proof"); with Fetch, "proof" is the
// fetched file.
func TestResultNamesObject(t *testing.T) {
	o := Options{Worker: "w"}
	ts := startServer(t, o)
	_, jsW := ts.connect(t, "w")
	startWorker(t, jsW, newEngine(t), o, nil)
	_, js := ts.connect(t, "t")
	jobs := parseJobs(t, `{"id":"x","n":8,"formats":["wire","raw"]}`)
	rs, err := submit(t, js, jobs, Options{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	line := string(rs[0].JSON())
	if !rs[0].OK || rs[0].Proof != "" || rs[0].Also != nil || rs[0].Object != "x.proof.bin" || rs[0].AlsoObjects["raw"] != "x.proof.raw.bin" ||
		strings.Contains(line, `"proof"`) || strings.Contains(line, `"also"`) {
		t.Fatalf("result without fetch: %s", line)
	}
	dir := t.TempDir()
	rs, err = submit(t, js, jobs, Options{Fetch: dir}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].OK || !strings.HasPrefix(rs[0].Proof, dir) || !strings.HasPrefix(rs[0].Also["raw"], dir) {
		t.Fatalf("result with fetch: %s", rs[0].JSON())
	}
	readProof(t, rs[0].Proof)
}

package stream

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
)

// TestStreamParseJobSignatures: "signatures" is the xmss-aggregate flow's input file,
// resolved like "blocks"; without "flow" it names that flow; with another flow, or
// beside another input, it is a malformed job.
func TestStreamParseJobSignatures(t *testing.T) {
	j, err := ParseJob([]byte(`{"id":"a","signatures":"s.json"}`), "/base", "")
	if err != nil {
		t.Fatal(err)
	}
	if j.Signatures != "/base/s.json" || j.file() != "/base/s.json" || j.flow.Name() != aggregate.FlowName {
		t.Fatalf("job %+v (flow %s)", j, j.flow.Name())
	}
	if j, err := ParseJob([]byte(`{"id":"a","flow":"xmss-aggregate","signatures":"/abs/s.json"}`), "/base", ""); err != nil || j.Signatures != "/abs/s.json" {
		t.Fatalf("absolute path: %+v %v", j, err)
	}
	for _, s := range []string{
		`{"id":"a","flow":"blake2s-batch","signatures":"s.json"}`,
		`{"id":"a","signatures":"s.json","input":"t.json"}`,
		`{"id":"a","signatures":"s.json","n":2}`,
		`{"id":"a","flow":"xmss-aggregate","blocks":"x.blocks.bin"}`,
	} {
		if _, err := ParseJob([]byte(s), "", ""); !errors.Is(err, ErrJob) {
			t.Fatalf("%s: got %v, want ErrJob", s, err)
		}
	}
}

// TestStreamInvalidSignature: a signatures job with an invalid signature gets an
// error result naming its index before any proving, and the stream goes on.
func TestStreamInvalidSignature(t *testing.T) {
	in, err := aggregate.Generate(3, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	in.Signers[1].Signature.Tips[5][0] ^= 1
	data, err := in.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "garbled.json"), []byte(`{"message":"00"}`), 0o644)
	jobs := `{"id":"bad","signatures":"bad.json"}` + "\n" +
		`{"id":"garbled","signatures":"garbled.json"}` + "\n" +
		`{"id":"next","n":3}` + "\n"
	pr := &probe{eng: newEngine(t)}
	ctx := context.Background()
	src := NewLineSource(ctx, strings.NewReader(jobs), dir)
	p := NewProver(ctx, pr, Options{InFlight: 1})
	got, m := collect(src, p, nil)
	checkAccounted(t, got, m, true)
	if len(got) != 3 {
		t.Fatalf("%d results", len(got))
	}
	if got[0].OK || !errors.Is(got[0].Err, ErrJob) || !strings.Contains(got[0].Error, "signature 1 invalid: signature does not verify") {
		t.Fatalf("bad signature: %+v", got[0])
	}
	if got[1].OK || !errors.Is(got[1].Err, ErrJob) || !strings.Contains(got[1].Error, "epoch") {
		t.Fatalf("malformed signatures file: %+v", got[1])
	}
	if !got[2].OK {
		t.Fatalf("the stream did not go on: %+v", got[2])
	}
	if calls, _ := pr.stats(); calls != 1 {
		t.Fatalf("engine called %d times, want 1 (only the good job)", calls)
	}
}

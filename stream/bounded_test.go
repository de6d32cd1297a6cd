package stream

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
)

// TestStreamBoundedAndExact: a job with many invalid signatures names the first
// MaxListed and "…and N more" (a short error); a signatures file is counted exactly
// after parsing, before any signature is verified: over the limit it is refused
// naming the count and the limit, and a file that is large for its signers (padded
// with spaces) is not refused by a guess from its size.
func TestStreamBoundedAndExact(t *testing.T) {
	in, err := aggregate.Generate(12, 9, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, in *aggregate.Input, pad int) {
		data, err := in.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, bytes.Repeat([]byte(" "), pad)...)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := *in
	bad.Signers = append([]aggregate.Signer(nil), in.Signers...)
	bad.Message[0] ^= 1 // every signature is now for another message
	write("bad.json", &bad, 0)
	write("three.json", &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[:3]}, 0)
	// Two signers padded to the size of about six: counted, not guessed.
	write("padded.json", &aggregate.Input{Message: in.Message, Epoch: in.Epoch, Signers: in.Signers[:2]}, 4*2500)
	jobs := `{"id":"bad","signatures":"bad.json"}
{"id":"three","signatures":"three.json"}
{"id":"padded","signatures":"padded.json"}
`
	pr := &probe{eng: newEngine(t)}
	ctx := context.Background()
	p := NewProver(ctx, pr, Options{InFlight: 1, MaxN: 2})
	got, m := collect(NewLineSource(ctx, strings.NewReader(jobs), dir), p, nil)
	checkAccounted(t, got, m, true)
	if len(got) != 3 {
		t.Fatalf("%d results", len(got))
	}
	// "bad" has 12 signers, over MaxN 2: refused by count before its signatures.
	if got[0].OK || !errors.Is(got[0].Err, ErrLimit) || !strings.Contains(got[0].Error, "12 instances (want 1..2)") {
		t.Fatalf("12 signers over max 2: %+v", got[0])
	}
	if got[1].OK || !errors.Is(got[1].Err, ErrLimit) || !strings.Contains(got[1].Error, "3 instances (want 1..2)") {
		t.Fatalf("3 signers over max 2: %+v", got[1])
	}
	if !got[2].OK || got[2].N != 2 {
		t.Fatalf("padded file of 2 signers: %+v", got[2])
	}

	p = NewProver(ctx, pr, Options{InFlight: 1})
	got, _ = collect(NewLineSource(ctx, strings.NewReader(`{"id":"bad","signatures":"bad.json"}`+"\n"), dir), p, nil)
	e := got[0].Error
	var inv *aggregate.InvalidSignatures
	if got[0].OK || !errors.Is(got[0].Err, ErrJob) || !errors.As(got[0].Err, &inv) || len(inv.Bad) != 12 ||
		!strings.Contains(e, "12 of 12 signatures invalid: signature 0 invalid: signature does not verify for this message/epoch (WOTS encoding invalid)") ||
		!strings.Contains(e, "signature 7 invalid") || strings.Contains(e, "signature 8 invalid") || !strings.HasSuffix(e, "…and 4 more") || len(e) > MaxErrorBytes {
		t.Fatalf("12 invalid signatures: %q", e)
	}
}

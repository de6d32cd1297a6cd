package stream

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestStreamUniqueIDs: with UniqueIDs, a job whose id an earlier job had gets an
// ErrBusy result naming the id, whether that job finished or still runs, and the
// stream goes on; the first job's proof file is the first job's. Without it, a
// finished id may come again (the queue's redeliveries).
func TestStreamUniqueIDs(t *testing.T) {
	lines := `{"id":"a","n":8}
{"id":"b","n":8}
{"id":"a","n":16}
{"id":"c","n":8}
`
	for _, unique := range []bool{true, false} {
		dir := t.TempDir()
		ctx := context.Background()
		src := NewLineSource(ctx, strings.NewReader(lines), "")
		// One proof at a time: job a has finished when its id comes again.
		p := NewProver(ctx, &probe{eng: newEngine(t)}, Options{InFlight: 1, Pending: 1, UniqueIDs: unique})
		files, err := NewProofFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := collect(src, p, files)
		if len(got) != 4 || !got[0].OK || !got[1].OK || !got[3].OK {
			t.Fatalf("unique %v: results %+v", unique, got)
		}
		meta := verifyFile(t, ProofPath(dir, "a"))
		if unique {
			if got[2].OK || !errors.Is(got[2].Err, ErrBusy) || !strings.Contains(got[2].Error, `the id "a" was already used in this stream`) {
				t.Fatalf("repeated id: %+v", got[2])
			}
			if meta.N != 8 {
				t.Fatalf("a.proof.bin proves n = %d, want the first job's 8", meta.N)
			}
		} else if !got[2].OK || meta.N != 16 {
			t.Fatalf("without UniqueIDs: %+v, n = %d", got[2], meta.N)
		}
	}
}

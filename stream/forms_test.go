package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// A job's "formats" lists both proof forms: one proof, written as DIR/<id>.proof.bin
// in the first form and DIR/<id>.proof.<form>.bin in the other, each with its
// statement; the result line names the other in "also". Bad lists are refused.
func TestJobFormats(t *testing.T) {
	for _, c := range []struct{ line, err string }{
		{`{"id":"a","n":8,"formats":["wire","wire"]}`, "twice"},
		{`{"id":"a","n":8,"formats":["wire","raw","wire"]}`, "both once"},
		{`{"id":"a","n":8,"formats":["gzip"]}`, `"gzip"`},
		{`{"id":"a","n":8,"format":"raw","formats":["wire","raw"]}`, "not the first"},
	} {
		if _, err := ParseJob([]byte(c.line), "", ""); !errors.Is(err, ErrJob) || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.line, err, c.err)
		}
	}
	j, err := ParseJob([]byte(`{"id":"a","n":8,"format":"raw","formats":["raw"]}`), "", "")
	if err != nil || j.Format != "raw" || j.Formats != nil || j.Extras() != nil {
		t.Fatalf("one-form list: %+v %v", j, err)
	}

	dir := t.TempDir()
	ctx := context.Background()
	in := `{"id":"b","n":24,"formats":["wire","raw"]}` + "\n" + `{"id":"r","n":16,"formats":["raw","wire"]}` + "\n" + `{"id":"w","n":8}` + "\n"
	src := NewLineSource(ctx, strings.NewReader(in), "")
	p := NewProver(ctx, newEngine(t), Options{InFlight: 2})
	files, err := NewProofFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	results, _ := collect(src, p, files)
	checkDir(t, dir, results)
	also := map[string]string{"b": "raw", "r": "wire"}
	for _, r := range results {
		if !r.OK {
			t.Fatalf("job %s: %s", r.ID, r.Error)
		}
		wantN := 0
		if also[r.ID] != "" {
			wantN = 1
		}
		if form := also[r.ID]; len(r.Also) != wantN || (form != "" && r.Also[form] == "") {
			t.Errorf("job %s: also %v, want the %q form", r.ID, r.Also, form)
		}
		line, _ := json.Marshal(r)
		if got := bytes.Contains(line, []byte(`"also":`)); got != (also[r.ID] != "") {
			t.Errorf("job %s: result line %s", r.ID, line)
		}
	}
	if _, err := os.Stat(FormPath(dir, "w", "raw")); err == nil {
		t.Error("a one-form job wrote a second form")
	}
}

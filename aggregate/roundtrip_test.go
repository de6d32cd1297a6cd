package aggregate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
)

// TestAggregateRoundTripsProofJSON: the statement written into a PROOF.json decodes
// back into the same Aggregate, from the whole file or from its statement part, and
// encodes to the same statement fields; a PROOF.json of another flow, with another n,
// with a repeated field or an unknown one is refused.
func TestAggregateRoundTripsProofJSON(t *testing.T) {
	in, err := Generate(3, 5, "")
	if err != nil {
		t.Fatal(err)
	}
	ag := in.Aggregate()
	path := filepath.Join(t.TempDir(), "p.bin")
	if err := flows.WriteProofBytes(path, []byte{0}, flows.NewMetaFor(Flow, flows.StatementOf(Flow, in, 1), flows.FormatWire)); err != nil {
		t.Fatal(err)
	}
	doc, _ := os.ReadFile(path + ".json")
	var whole Aggregate
	if err := json.Unmarshal(doc, &whole); err != nil || !reflect.DeepEqual(whole, ag) {
		t.Fatalf("from the whole PROOF.json: %v, equal %v", err, reflect.DeepEqual(whole, ag))
	}
	meta, err := flows.ParseMeta(doc)
	if err != nil {
		t.Fatal(err)
	}
	var part Aggregate
	if err := json.Unmarshal(meta.Statement, &part); err != nil || !reflect.DeepEqual(part, ag) {
		t.Fatalf("from the statement part: %v", err)
	}
	back, _ := json.Marshal(part)
	var got, want map[string]any
	json.Unmarshal(back, &got)
	json.Unmarshal(meta.Statement, &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("re-encoded statement %s, PROOF.json's %s", back, meta.Statement)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"flow": "xmss-aggregate"`, `"flow": "blake2s-batch"`, `flow "blake2s-batch"`},
		{`"n": 3`, `"n": 4`, "n = 4 but 3 public keys"},
		{`"n": 3`, `"n": 3, "n": 3`, `field "n" is given twice`},
		{`"format": "wire"`, `"format": "wire", "color": 1`, `unknown field "color"`},
	} {
		bad := strings.Replace(string(doc), c.from, c.to, 1)
		if bad == string(doc) {
			t.Fatalf("no %q in %s", c.from, doc)
		}
		var a Aggregate
		if err := json.Unmarshal([]byte(bad), &a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.to, err, c.want)
		}
	}
}

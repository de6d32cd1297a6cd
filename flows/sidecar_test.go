package flows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A flow's sidecar takes its part of the statement out of PROOF.json into
// PROOF+Suffix; a flow without one writes PROOF.json whole and no other file.
func TestWriteProofBytesSidecar(t *testing.T) {
	RegisterSidecar("sidecar-test", Sidecar{
		Suffix: ".big",
		Split: func(data json.RawMessage) (json.RawMessage, []byte, error) {
			var v struct {
				A   int
				Big string
			}
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, nil, err
			}
			kept, _ := json.Marshal(map[string]int{"a": v.A})
			return kept, []byte(v.Big), nil
		},
		Join: func(data json.RawMessage, file []byte) (json.RawMessage, error) { return nil, nil },
	})
	dir := t.TempDir()
	st := json.RawMessage(`{"a":3,"big":"payload"}`)
	for _, flow := range []string{"sidecar-test", "other"} {
		path := filepath.Join(dir, flow+".bin")
		if err := WriteProofBytes(path, []byte("proof"), Meta{Flow: flow, N: 1, Format: FormatWire, Statement: st}); err != nil {
			t.Fatal(err)
		}
		mb, err := os.ReadFile(path + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var m Meta
		if err := json.Unmarshal(mb, &m); err != nil {
			t.Fatal(err)
		}
		big, err := os.ReadFile(path + ".big")
		if flow == "sidecar-test" {
			if err != nil || string(big) != "payload" || string(m.Statement) != `{"a":3}` {
				t.Fatalf("sidecar %q (%v), PROOF.json statement %s", big, err, m.Statement)
			}
		} else if err == nil || string(m.Statement) != `{"a":3,"big":"payload"}` {
			t.Fatalf("flow without a sidecar: %s.big exists or statement %s", path, m.Statement)
		}
	}
	if err := WriteProofBytes(filepath.Join(dir, "bad.bin"), nil, Meta{Flow: "sidecar-test", Format: FormatWire, Statement: json.RawMessage(`[1]`)}); err == nil {
		t.Fatal("a statement the sidecar cannot split was written")
	}
}

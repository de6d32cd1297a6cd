package flows

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/leanpipe/leanpipe/internal/atomicfile"
)

// Sidecar keeps part of a flow's statement in a file beside the proof instead of
// in PROOF.json: a statement too large for the metadata (the keccak-batch flow's
// states) is written as PROOF+Suffix, and PROOF.json keeps the rest.
type Sidecar struct {
	// Suffix names the file: PROOF+Suffix.
	Suffix string
	// Split returns the statement data PROOF.json keeps and the file's bytes.
	Split func(data json.RawMessage) (json.RawMessage, []byte, error)
	// Join returns the whole statement data from PROOF.json's and the file's bytes.
	Join func(data json.RawMessage, file []byte) (json.RawMessage, error)
}

var sidecars sync.Map // flow name → Sidecar

// RegisterSidecar makes WriteProofBytes write flow's statement through s (called
// from the flow's package init, beside Register).
func RegisterSidecar(flow string, s Sidecar) {
	if s.Suffix == "" || s.Split == nil || s.Join == nil {
		panic("flows: incomplete Sidecar for " + flow)
	}
	if _, dup := sidecars.LoadOrStore(flow, s); dup {
		panic(fmt.Sprintf("flows: sidecar for %q registered twice", flow))
	}
}

// SidecarOf returns the sidecar registered for flow, if any.
func SidecarOf(flow string) (Sidecar, bool) {
	s, ok := sidecars.Load(flow)
	if !ok {
		return Sidecar{}, false
	}
	return s.(Sidecar), true
}

// writeSidecar writes meta's sidecar file beside path, when its flow has one and
// its statement holds the whole data, and returns the metadata PROOF.json keeps.
func writeSidecar(path string, meta Meta) (Meta, error) {
	s, ok := SidecarOf(meta.Flow)
	if !ok || len(meta.Statement) == 0 {
		return meta, nil
	}
	kept, file, err := s.Split(meta.Statement)
	if err != nil {
		return meta, fmt.Errorf("flows: %s: %w", path+s.Suffix, err)
	}
	if err := atomicfile.Write(path+s.Suffix, file); err != nil {
		return meta, err
	}
	meta.Statement = kept
	return meta, nil
}

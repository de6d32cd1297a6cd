package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/commit"
)

// TestCustomFlow runs the custom graph: the root file holds the proof's root, the proof
// equals the standard flow's, and it verifies.
func TestCustomFlow(t *testing.T) {
	e, err := flows.NewEngine(flows.EngineOptions{Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req := flows.Request{Input: flows.Blocks(flows.Generate(100, 3)), LogInvRate: 1}
	rootPath := filepath.Join(t.TempDir(), "root.hex")
	p, spans, err := proveWithRoot(e, req, rootPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 8 || spans[3].Name != "write-root" {
		t.Fatalf("spans %v", spans)
	}
	b, _ := os.ReadFile(rootPath)
	root, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	halves := commit.RootHalves([32]byte(root))
	if p.Proof.Stream[0] != halves[0] || p.Proof.Stream[1] != halves[1] {
		t.Fatal("root file differs from the proof's root")
	}
	std, err := e.Prove(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(std.Proof.MarshalWire(), p.Proof.MarshalWire()) {
		t.Fatal("custom flow changed the proof")
	}
	if err := flows.VerifyBatch(p.Proof, 100, 1); err != nil {
		t.Fatal(err)
	}
	// A failing custom stage fails the run with its name and releases the buffers.
	if _, _, err := proveWithRoot(e, req, filepath.Join(t.TempDir(), "missing", "root.hex")); err == nil || !strings.Contains(err.Error(), "write-root") {
		t.Fatalf("failing stage: %v", err)
	}
}

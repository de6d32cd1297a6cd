package flows

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/leanpipe/leanpipe/stages/witness"
)

// Generate returns n pinned compressions (single-block BLAKE2s-256 hashes of 64-byte
// messages) whose message words are drawn from PCG(seed, 0x6c65616e70697065). The same
// (n, seed) always gives the same blocks.
func Generate(n int, seed uint64) []witness.Compression {
	rng := rand.New(rand.NewPCG(seed, 0x6c65616e70697065))
	blocks := make([]witness.Compression, n)
	for i := range blocks {
		var m [16]uint32
		for j := range m {
			m[j] = rng.Uint32()
		}
		blocks[i] = witness.Pinned(m)
	}
	return blocks
}

// Meta is the statement and packaging of a proof file, written beside it as
// PROOF.json.
type Meta struct {
	Flow       string `json:"flow"`
	N          int    `json:"n"`
	LogInvRate int    `json:"log_inv_rate"`
	Label      string `json:"label"`
	Format     string `json:"format"`
}

// NewMeta describes a batch proof of n compressions.
func NewMeta(n, logInvRate int, format string) Meta {
	return Meta{Flow: Name, N: n, LogInvRate: logInvRate, Label: Label, Format: format}
}

// ParseMeta reads and checks a proof's metadata.
func ParseMeta(b []byte) (Meta, error) {
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return Meta{}, fmt.Errorf("flows: proof metadata: %w", err)
	}
	switch {
	case m.Flow != Name:
		return Meta{}, fmt.Errorf("flows: proof metadata: unknown flow %q", m.Flow)
	case m.Label != Label:
		return Meta{}, fmt.Errorf("flows: proof metadata: label %q, want %q", m.Label, Label)
	case m.Format != "wire" && m.Format != "raw":
		return Meta{}, fmt.Errorf("flows: proof metadata: format %q, want wire or raw", m.Format)
	}
	if _, err := BatchShape(m.N, m.LogInvRate); err != nil {
		return Meta{}, fmt.Errorf("flows: proof metadata: %w", err)
	}
	return m, nil
}

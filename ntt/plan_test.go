package ntt

import (
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
)

func TestSubspaceRootsKAT(t *testing.T) {
	var kat map[string][][3]string
	vectors.KAT(t, "subspace_roots", &kat)
	if len(kat) == 0 {
		t.Fatal("empty subspace_roots section")
	}
	for key, want := range kat {
		n, err := strconv.Atoi(key)
		if err != nil {
			t.Fatal(err)
		}
		got := SubspaceRoots(n)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d roots, want %d", n, len(got), len(want))
		}
		for i := range want {
			if w := parseE(t, want[i]); got[i] != w {
				t.Errorf("n=%d root %d: got %v want %v", n, i, got[i], w)
			}
		}
	}
}

func TestInducedWeightKAT(t *testing.T) {
	var kat []struct {
		MessageLog     int         `json:"message_log"`
		Queries        []uint64    `json:"queries"`
		QueryWeights   [][3]string `json:"query_weights"`
		Point          [][3]string `json:"point"`
		InducedWeights [3]string   `json:"induced_weight"`
	}
	vectors.KAT(t, "whir_induced_weight", &kat)
	if len(kat) == 0 {
		t.Fatal("empty whir_induced_weight section")
	}
	for i, c := range kat {
		w := make([]field.E, len(c.QueryWeights))
		for k := range w {
			w[k] = parseE(t, c.QueryWeights[k])
		}
		p := make([]field.E, len(c.Point))
		for k := range p {
			p[k] = parseE(t, c.Point[k])
		}
		if got, want := inducedWeight(c.MessageLog, c.Queries, w, p), parseE(t, c.InducedWeights); got != want {
			t.Errorf("case %d: got %v want %v", i, got, want)
		}
	}
}

// The plan's twiddle must be the normalised subspace polynomial Ŵ_{d−ℓ−1} at the block's
// coset offset Σ_j bit_j(block)·x^{d−ℓ+j}, evaluated independently.
func TestTwiddleDefinition(t *testing.T) {
	rng := testrand.New(t)
	for _, d := range []int{1, 2, 5, 9, 20} {
		p := NewPlan(d)
		for layer := range d {
			for range 8 {
				block := rng.IntN(1 << layer)
				i := d - layer - 1
				offset := uint64(block) << uint(d-layer)
				if got, want := p.Twiddle(layer, block), slowHat(offset, i+1)[i]; got != want {
					t.Fatalf("d=%d layer=%d block=%d: twiddle %v want %v", d, layer, block, got, want)
				}
			}
		}
	}
}

// Ŵ_i is normalised (Ŵ_i(β_i) = 1) and vanishes on span(β_0..β_{i−1}).
func TestRootsNormalise(t *testing.T) {
	roots := SubspaceRootsK(12)
	if roots[0] != 1 {
		t.Fatalf("r_0 = %v", roots[0])
	}
	for i := 1; i <= 12; i++ {
		if roots[i] == 0 {
			t.Fatalf("r_%d = 0", i)
		}
	}
	// SubspaceRoots of a smaller size is a prefix.
	small := SubspaceRootsK(5)
	for i := range small {
		if small[i] != roots[i] {
			t.Fatalf("prefix mismatch at %d", i)
		}
	}
}

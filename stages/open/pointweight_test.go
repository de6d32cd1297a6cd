package open

import (
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// TestAddPointWeight: the point kernel added through its boolean coordinates (high:
// a region; low: a stride) equals the dense eq table.
func TestAddPointWeight(t *testing.T) {
	rng := testrand.New(t)
	rnd := func() field.E {
		return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	const n = 11
	for trial := range 60 {
		p := make([]field.E, n)
		for k := range p {
			switch rng.IntN(3) {
			case 0:
				p[k] = field.Zero
			case 1:
				p[k] = field.One
			default:
				p[k] = rnd()
			}
		}
		if trial == 0 {
			clear(p)
		}
		scale := rnd()
		base := make([]field.E, 1<<n)
		for i := range base {
			base[i] = rnd()
		}
		got := append([]field.E(nil), base...)
		new(Scratch).addPointWeight(got, p, scale, par.New(nil, 2))
		eq := make([]field.E, 1<<n)
		field.EqTable(eq, p)
		for i := range base {
			if want := base[i].Add(scale.Mul(eq[i])); got[i] != want {
				t.Fatalf("trial %d, entry %d: %v, want %v", trial, i, got[i], want)
			}
		}
	}
}

package ringswitch

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

func TestRingBasisImages(t *testing.T) {
	rng := testrand.New(t)
	for range 3 {
		var m Map
		copy(m.Challenges[:], randEs(rng, 6))
		img := ringBasisImages(&m)
		v := randE(rng)
		scaled := ringImages(&m, v)
		for w := range img {
			if want := m.Apply(ringBasis(w)); img[w] != want {
				t.Fatalf("Φ(b_%d) = %v, staged map %v", w, img[w], want)
			}
			if want := m.Apply(v.Mul(ringBasis(w))); scaled[w] != want {
				t.Fatalf("Φ(v·b_%d) = %v, staged map %v", w, scaled[w], want)
			}
		}
	}
}

// The pair-table kernel at every level, and the GFNI matrices where the level has
// them, give the portable twin's output, and the twin gives Φ(lo_a·h) by the staged
// map.
func TestRingPairsLevels(t *testing.T) {
	rng := testrand.New(t)
	var m Map
	copy(m.Challenges[:], randEs(rng, 6))
	lo := randEs(rng, 2)
	tab := new(ringPairTable)
	tab.fill(&m, [2]field.E{lo[0], lo[1]})
	src := randEs(rng, 300)
	src[7], src[8] = field.Zero, field.E{C0: ^field.K(0), C1: ^field.K(0), C2: ^field.K(0)}
	ref := make([]field.E, 2*len(src))
	ringPairsGeneric(tab, ref, src)
	for i, h := range src {
		for a := range 2 {
			if want := m.Apply(lo[a].Mul(h)); ref[2*i+a] != want {
				t.Fatalf("twin: entry %d/%d = %v, Φ(lo·h) = %v", i, a, ref[2*i+a], want)
			}
		}
	}
	mats := new(ringMatrices)
	mats.fill(&m, [2]field.E{lo[0], lo[1]})
	for _, l := range Kernels.Levels() {
		restore := cpu.SetLevel(l)
		for _, n := range []int{0, 1, 2, 5, 128, 300} {
			got := make([]field.E, 2*n)
			ringPairs(tab, got, src[:n])
			if !equalEs(got, ref[:2*n]) {
				restore()
				t.Fatalf("level %v, n=%d: ringPairs differs from the portable twin", l, n)
			}
		}
		// The GFNI form, on whole blocks of 64 (the zero and all-ones sources
		// among them).
		if useGFNI() {
			for _, n := range []int{64, 256} {
				got := make([]field.E, 2*n)
				ringPairsGFNI(mats, got, src[:n])
				if !equalEs(got, ref[:2*n]) {
					restore()
					t.Fatalf("level %v, n=%d: ringPairsGFNI differs from the portable twin", l, n)
				}
			}
		}
		restore()
	}
}

// Weights (pair tables) equals the direct form at every level, size and
// worker count.
func TestWeightsMatchesSimple(t *testing.T) {
	rng := testrand.New(t)
	var rs Scratch // reused over shrinking and growing shapes
	for _, mu := range []int{0, 1, 2, 3, 4, 7, 12, 8, 13, 9, 15, 5} {
		var m Map
		copy(m.Challenges[:], randEs(rng, 6))
		point := randEs(rng, mu)
		want := make([]field.E, 1<<mu)
		ringWeightsSimple(want, point, &m, par.New(nil, 1))
		if mu <= 9 {
			eq := make([]field.E, 1<<mu)
			field.EqTable(eq, point)
			for u := range eq {
				if w := m.Apply(eq[u]); w != want[u] {
					t.Fatalf("mu=%d: simple W(%d) = %v, Φ(eq) = %v", mu, u, want[u], w)
				}
			}
		}
		for _, l := range Kernels.Levels() {
			restore := cpu.SetLevel(l)
			for _, workers := range []int{1, 2, 3} {
				got := make([]field.E, 1<<mu)
				Weights(got, point, &m, par.New(nil, workers))
				if !equalEs(got, want) {
					restore()
					t.Fatalf("mu=%d level %v workers=%d: Weights differs from the direct form", mu, l, workers)
				}
				clear(got)
				rs.Weights(got, point, &m, par.New(nil, workers))
				if !equalEs(got, want) {
					restore()
					t.Fatalf("mu=%d level %v workers=%d: Scratch.Weights differs from the direct form", mu, l, workers)
				}
			}
			restore()
		}
	}
}

func BenchmarkWeightsSimple(b *testing.B) {
	for _, mu := range []int{16, 20} {
		b.Run(fmt.Sprintf("mu=%d", mu), func(b *testing.B) {
			rng := testrand.New(b)
			var m Map
			copy(m.Challenges[:], randEs(rng, 6))
			point := randEs(rng, mu)
			dst := make([]field.E, 1<<mu)
			b.ResetTimer()
			start := processCPU()
			for i := 0; i < b.N; i++ {
				ringWeightsSimple(dst, point, &m, par.New(nil, 1))
			}
			reportCPU(b, start)
		})
	}
}

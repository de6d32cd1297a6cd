package ringswitch

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/internal/vectors/hexfield"
	"github.com/leanpipe/leanpipe/par"
)

// KAT decoding (internal/vectors/hexfield).
var (
	katE  = hexfield.E
	katEs = hexfield.Es
)

func randE(rng *rand.Rand) field.E {
	return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
}

func randEs(rng *rand.Rand, n int) []field.E {
	out := make([]field.E, n)
	for i := range out {
		out[i] = randE(rng)
	}
	return out
}

func equalEs(a, b []field.E) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestKATRingSwitch(t *testing.T) {
	var cases []struct {
		Challenges   [][3]string `json:"challenges"`
		PhiInputs    [][3]string `json:"phi_inputs"`
		PhiOutputs   [][3]string `json:"phi_outputs"`
		Coefficients [][3]string `json:"coefficients"`
		R            [][3]string `json:"r"`
		RPrime       [][3]string `json:"r_prime"`
		RingWeight   [3]string   `json:"ring_weight"`
	}
	vectors.KAT(t, "ring_switch", &cases)
	if len(cases) == 0 {
		t.Fatal("ring_switch: no cases")
	}
	for n, c := range cases {
		var m Map
		ch := katEs(t, c.Challenges)
		if len(ch) != len(m.Challenges) {
			t.Fatalf("case %d: %d challenges", n, len(ch))
		}
		copy(m.Challenges[:], ch)
		in, out := katEs(t, c.PhiInputs), katEs(t, c.PhiOutputs)
		for i := range in {
			if got := m.Apply(in[i]); got != out[i] {
				t.Errorf("case %d: Φ(%v) = %v, want %v", n, in[i], got, out[i])
			}
		}
		coeffs := m.Coefficients()
		want := katEs(t, c.Coefficients)
		if len(want) != KBits {
			t.Fatalf("case %d: %d coefficients", n, len(want))
		}
		for k := range want {
			if coeffs[k] != want[k] {
				t.Errorf("case %d: c_%d = %v, want %v", n, k, coeffs[k], want[k])
			}
		}
		r, rp := katEs(t, c.R), katEs(t, c.RPrime)
		if got, w := WeightAt(r, rp, &coeffs), katE(t, c.RingWeight); got != w {
			t.Errorf("case %d: ring weight %v, want %v", n, got, w)
		}
		// The byte-table form of Φ must agree with the staged one.
		tab := newRingFoldTable(&m)
		for i := range in {
			if got := tab.apply(in[i]); got != out[i] {
				t.Errorf("case %d: table Φ(%v) = %v, want %v", n, in[i], got, out[i])
			}
		}
	}
}

func TestRingCoefficientsExpandPhi(t *testing.T) {
	rng := testrand.New(t)
	var m Map
	copy(m.Challenges[:], randEs(rng, 6))
	coeffs := m.Coefficients()
	for trial := 0; trial < 4; trial++ {
		a := randE(rng)
		sum, f := field.Zero, a
		for k := range coeffs {
			sum = sum.Add(coeffs[k].Mul(f))
			f = f.Square()
		}
		if got := m.Apply(a); got != sum {
			t.Fatalf("Σ c_k a^(2^k) = %v, Φ(a) = %v", sum, got)
		}
	}
}

// sliceClaims returns s_i = Σ_u eq(point, u)·bit_i(q(u)), computed directly.
func sliceClaims(q []field.K, point []field.E) []field.E {
	eq := make([]field.E, len(q))
	field.EqTable(eq, point)
	s := make([]field.E, KBits)
	for u, w := range q {
		for i := 0; i < KBits; i++ {
			if w>>uint(i)&1 != 0 {
				s[i] = s[i].Add(eq[u])
			}
		}
	}
	return s
}

func TestRingSwitchRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	for _, mu := range []int{1, 5, 9} {
		q := make([]field.K, 1<<mu)
		for i := range q {
			q[i] = field.K(rng.Uint64())
		}
		point := randEs(rng, mu)
		s := sliceClaims(q, point)

		pt := &fakeTranscript{}
		pt.Send(s[0]) // something bound before the map is drawn
		pc := Prove(pt, point, s, nil, par.New(nil, 2))
		vt := pt.VerifierCopy()
		if _, err := vt.Receive(); err != nil {
			t.Fatal(err)
		}
		vc := Verify(vt, point, s)
		if pc.Target != vc.Target {
			t.Fatalf("mu=%d: prover target %v, verifier %v", mu, pc.Target, vc.Target)
		}
		if vc.Weights != nil {
			t.Fatalf("mu=%d: the verifier's claim carries a dense weight table", mu)
		}
		// Σ_u W(u)·q(u) = T, directly.
		sum := field.Zero
		for u := range q {
			sum = sum.Add(pc.Weights[u].MulK(q[u]))
		}
		if sum != pc.Target {
			t.Fatalf("mu=%d: Σ W(u)q(u) = %v, T = %v", mu, sum, pc.Target)
		}
		// The dense table's MLE is what the verifier's WeightAt evaluates.
		rp := randEs(rng, mu)
		if got, want := vc.WeightAt(rp), field.EvalMLE(pc.Weights, rp); got != want {
			t.Fatalf("mu=%d: WeightAt %v, MLE of weights %v", mu, got, want)
		}
		// A wrong slice claim moves the target off the committed column.
		bad := append([]field.E(nil), s...)
		bad[rng.IntN(KBits)] = bad[0].Add(field.One)
		vt = pt.VerifierCopy()
		_, _ = vt.Receive()
		if Verify(vt, point, bad).Target == sum {
			t.Fatalf("mu=%d: tampered slice kept the target", mu)
		}
	}
}

func TestWeightsWorkerIndependent(t *testing.T) {
	rng := testrand.New(t)
	var m Map
	copy(m.Challenges[:], randEs(rng, 6))
	point := randEs(rng, 11)
	ref := make([]field.E, 1<<11)
	Weights(ref, point, &m, par.New(nil, 1))
	// Reference: Φ of the full equality kernel, by the staged map.
	eq := make([]field.E, 1<<11)
	field.EqTable(eq, point)
	for u := range eq {
		if w := m.Apply(eq[u]); w != ref[u] {
			t.Fatalf("W(%d) = %v, Φ(eq) = %v", u, ref[u], w)
		}
	}
	for _, workers := range []int{2, 3, 7} {
		got := make([]field.E, len(ref))
		Weights(got, point, &m, par.New(nil, workers))
		for u := range got {
			if got[u] != ref[u] {
				t.Fatalf("workers=%d: W(%d) differs", workers, u)
			}
		}
	}
}

func BenchmarkWeights(b *testing.B) {
	sizes := []int{16, 20}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		sizes = append(sizes, 22)
	}
	for _, mu := range sizes {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("mu=%d/workers=%d", mu, workers), func(b *testing.B) {
				rng := testrand.New(b)
				var m Map
				copy(m.Challenges[:], randEs(rng, 6))
				point := randEs(rng, mu)
				dst := make([]field.E, 1<<mu)
				b.SetBytes(int64(len(dst)) * 24)
				b.ResetTimer()
				cpu := processCPU()
				for i := 0; i < b.N; i++ {
					Weights(dst, point, &m, par.New(nil, workers))
				}
				reportCPU(b, cpu)
			})
		}
	}
}

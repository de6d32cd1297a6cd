package field

import (
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/internal/vectors"
)

// The known-answer vectors come from the leanVM-b reference verifier (see the vectors README).

func parseK(t testing.TB, s string) K {
	t.Helper()
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return K(v)
}

func parseE(t testing.TB, s [3]string) E { return E{parseK(t, s[0]), parseK(t, s[1]), parseK(t, s[2])} }

func parseEs(t testing.TB, s [][3]string) []E {
	out := make([]E, len(s))
	for i := range s {
		out[i] = parseE(t, s[i])
	}
	return out
}

func TestKATKMul(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var rows [][3]string
		vectors.KAT(t, "k_mul", &rows)
		if len(rows) == 0 {
			t.Fatal("no k_mul rows")
		}
		for i, r := range rows {
			a, b, want := parseK(t, r[0]), parseK(t, r[1]), parseK(t, r[2])
			if got := a.Mul(b); got != want {
				t.Fatalf("row %d: %016x·%016x = %016x, want %016x", i, a, b, got, want)
			}
		}
	})
}

func TestKATEMul(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var rows [][3][3]string
		vectors.KAT(t, "e_mul", &rows)
		if len(rows) == 0 {
			t.Fatal("no e_mul rows")
		}
		for i, r := range rows {
			a, b, want := parseE(t, r[0]), parseE(t, r[1]), parseE(t, r[2])
			if got := a.Mul(b); got != want {
				t.Fatalf("row %d: got %v, want %v", i, got, want)
			}
			if got := b.Mul(a); got != want {
				t.Fatalf("row %d (swapped): got %v, want %v", i, got, want)
			}
		}
	})
}

func TestKATEInv(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var rows [][2][3]string
		vectors.KAT(t, "e_inv", &rows)
		if len(rows) == 0 {
			t.Fatal("no e_inv rows")
		}
		src := make([]E, len(rows))
		for i, r := range rows {
			a, want := parseE(t, r[0]), parseE(t, r[1])
			if got := a.Inv(); got != want {
				t.Fatalf("row %d: got %v, want %v", i, got, want)
			}
			src[i] = a
		}
		dst := make([]E, len(src))
		BatchInvert(dst, src)
		for i, r := range rows {
			if want := parseE(t, r[1]); dst[i] != want {
				t.Fatalf("BatchInvert row %d: got %v, want %v", i, dst[i], want)
			}
		}
	})
}

func TestKATEFrobenius(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var rows [][3]any
		vectors.KAT(t, "e_frobenius", &rows)
		if len(rows) == 0 {
			t.Fatal("no e_frobenius rows")
		}
		toE := func(v any) E {
			l, ok := v.([]any)
			if !ok || len(l) != 3 {
				t.Fatalf("bad E %v", v)
			}
			var s [3]string
			for i := range 3 {
				s[i], ok = l[i].(string)
				if !ok {
					t.Fatalf("bad E %v", v)
				}
			}
			return parseE(t, s)
		}
		for i, r := range rows {
			a, want := toE(r[0]), toE(r[2])
			kf, ok := r[1].(float64)
			if !ok {
				t.Fatalf("row %d: bad k %v", i, r[1])
			}
			k := int(kf)
			if got := a.Frobenius(k); got != want {
				t.Fatalf("row %d: Frobenius(%d) = %v, want %v", i, k, got, want)
			}
			// Against repeated squaring.
			s := a
			for range k {
				s = s.Mul(s)
			}
			if s != want {
				t.Fatalf("row %d: %d squarings = %v, want %v", i, k, s, want)
			}
		}
	})
}

func TestKATPhi8(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var rows []string
		vectors.KAT(t, "phi8_embedding", &rows)
		if len(rows) != 256 {
			t.Fatalf("phi8_embedding has %d entries, want 256", len(rows))
		}
		for b, s := range rows {
			if got, want := Phi8(byte(b)), parseK(t, s); got != want {
				t.Fatalf("Phi8(%#02x) = %016x, want %016x", b, got, want)
			}
		}
	})
}

func TestKATMultilinear(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var rows []struct {
			Point    [][3]string `json:"point"`
			EqKernel [][3]string `json:"eq_kernel"`
			TableK   []string    `json:"table_k"`
			MLEEval  [3]string   `json:"mle_eval"`
		}
		vectors.KAT(t, "multilinear", &rows)
		if len(rows) == 0 {
			t.Fatal("no multilinear rows")
		}
		for i, r := range rows {
			point := parseEs(t, r.Point)
			wantEq := parseEs(t, r.EqKernel)
			if len(wantEq) != 1<<len(point) || len(r.TableK) != len(wantEq) {
				t.Fatalf("row %d: inconsistent sizes", i)
			}
			eq := make([]E, len(wantEq))
			EqTable(eq, point)
			for j := range eq {
				if eq[j] != wantEq[j] {
					t.Fatalf("row %d: eq[%d] = %v, want %v", i, j, eq[j], wantEq[j])
				}
			}
			table := make([]K, len(r.TableK))
			tableE := make([]E, len(table))
			for j, s := range r.TableK {
				table[j] = parseK(t, s)
				tableE[j] = FromK(table[j])
			}
			want := parseE(t, r.MLEEval)
			if got := EvalMLEK(table, point); got != want {
				t.Fatalf("row %d: EvalMLEK = %v, want %v", i, got, want)
			}
			if got := EvalMLE(tableE, point); got != want {
				t.Fatalf("row %d: EvalMLE = %v, want %v", i, got, want)
			}
			if got := InnerProductKE(table, eq); got != want {
				t.Fatalf("row %d: <table, eq> = %v, want %v", i, got, want)
			}
		}
	})
}

func TestKATSkipLagrange(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var rows []struct {
			Z           [3]string   `json:"z"`
			Weights     [][3]string `json:"weights_over_phi_0_64"`
			Coset       [][3]string `json:"coset_values"`
			Interpolate [3]string   `json:"interpolate_zero_then_coset_at_z"`
		}
		vectors.KAT(t, "skip_lagrange", &rows)
		if len(rows) == 0 {
			t.Fatal("no skip_lagrange rows")
		}
		nodes := make([]E, 128)
		for i := range nodes {
			nodes[i] = FromK(Phi8(byte(i)))
		}
		for i, r := range rows {
			z := parseE(t, r.Z)
			want := parseEs(t, r.Weights)
			if len(want) != 64 || len(r.Coset) != 64 {
				t.Fatalf("row %d: want 64 weights and 64 coset values", i)
			}
			w := make([]E, 64)
			LagrangeWeights(w, nodes[:64], z)
			for j := range w {
				if w[j] != want[j] {
					t.Fatalf("row %d: weight %d = %v, want %v", i, j, w[j], want[j])
				}
			}
			values := append(make([]E, 64), parseEs(t, r.Coset)...)
			if got, want := LagrangeInterpolate(nodes, values, z), parseE(t, r.Interpolate); got != want {
				t.Fatalf("row %d: interpolation = %v, want %v", i, got, want)
			}
		}
	})
}

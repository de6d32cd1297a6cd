package field

import (
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

func randE(rng *rand.Rand) E { return E{K(rng.Uint64()), K(rng.Uint64()), K(rng.Uint64())} }

func randEs(rng *rand.Rand, n int) []E {
	out := make([]E, n)
	for i := range out {
		out[i] = randE(rng)
	}
	return out
}

func randKs(rng *rand.Rand, n int) []K {
	out := make([]K, n)
	for i := range out {
		out[i] = K(rng.Uint64())
	}
	return out
}

// schoolbook is the E product written out with nine K products, independent of Mul.
func schoolbook(a, b E) E {
	p0 := a.C0.Mul(b.C0)
	p1 := a.C0.Mul(b.C1) ^ a.C1.Mul(b.C0)
	p2 := a.C0.Mul(b.C2) ^ a.C1.Mul(b.C1) ^ a.C2.Mul(b.C0)
	p3 := a.C1.Mul(b.C2) ^ a.C2.Mul(b.C1)
	p4 := a.C2.Mul(b.C2)
	return E{p0 ^ p3, p1 ^ p3 ^ p4, p2 ^ p4}
}

func TestScalarOps(t *testing.T) {
	rng := testrand.New(t)
	for i := range 500 {
		a, b := randE(rng), randE(rng)
		if a.Mul(b) != schoolbook(a, b) {
			t.Fatalf("%d: Mul disagrees with the schoolbook product", i)
		}
		if a.Square() != a.Mul(a) {
			t.Fatalf("%d: Square", i)
		}
		if a.C0.Square() != a.C0.Mul(a.C0) {
			t.Fatalf("%d: K Square", i)
		}
		if a.Inv().Mul(a) != One {
			t.Fatalf("%d: E Inv", i)
		}
		if a.C1.Inv().Mul(a.C1) != 1 {
			t.Fatalf("%d: K Inv", i)
		}
		if got := a.C2.Mul(b.C2); got != K(mulGeneric(uint64(a.C2), uint64(b.C2))) {
			t.Fatalf("%d: K Mul disagrees with the generic product", i)
		}
		if a.Pow(5) != a.Mul(a).Mul(a).Mul(a).Mul(a) {
			t.Fatalf("%d: Pow", i)
		}
	}
	if Zero.Inv() != Zero || K(0).Inv() != 0 {
		t.Fatal("the inverse of zero must be zero")
	}
	a := randE(rng)
	s := a
	for k := 0; k <= 400; k++ {
		if got := a.Frobenius(k); got != s {
			t.Fatalf("Frobenius(%d) disagrees with repeated squaring", k)
		}
		if got := a.Frobenius(k - 192); got != s {
			t.Fatalf("Frobenius(%d) is not periodic", k-192)
		}
		s = s.Square()
	}
}

func TestEqAndMLE(t *testing.T) {
	rng := testrand.New(t)
	for n := 0; n <= 8; n++ {
		point := randEs(rng, n)
		eq := make([]E, 1<<n)
		EqTable(eq, point)
		for i := range eq {
			bits := make([]E, n)
			for j := range bits {
				if i>>j&1 == 1 {
					bits[j] = One
				}
			}
			if got := EqEval(bits, point); got != eq[i] {
				t.Fatalf("n=%d: eq[%d] disagrees with EqEval", n, i)
			}
		}
		table := randEs(rng, 1<<n)
		tk := randKs(rng, 1<<n)
		if got, want := EvalMLE(table, point), InnerProduct(table, eq); got != want {
			t.Fatalf("n=%d: EvalMLE disagrees with <table, eq>", n)
		}
		if got, want := EvalMLEK(tk, point), InnerProductKE(tk, eq); got != want {
			t.Fatalf("n=%d: EvalMLEK disagrees with <table, eq>", n)
		}
		if n == 0 {
			continue
		}
		// FoldHigh binds the top variable: folding by the last coordinate first.
		rev := make([]E, n)
		for j := range rev {
			rev[j] = point[n-1-j]
		}
		cur := append([]E(nil), table...)
		for _, r := range rev {
			h := len(cur) / 2
			FoldHigh(cur[:h], cur, r)
			cur = cur[:h]
		}
		if cur[0] != EvalMLE(table, point) {
			t.Fatalf("n=%d: FoldHigh in reverse order disagrees with EvalMLE", n)
		}
		lo := make([]E, 1<<(n-1))
		hi := make([]E, 1<<(n-1))
		FoldLowK(lo, tk, point[0])
		FoldHighK(hi, tk, point[n-1])
		if EvalMLE(lo, point[1:]) != EvalMLEK(tk, point) || EvalMLE(hi, point[:n-1]) != EvalMLEK(tk, point) {
			t.Fatalf("n=%d: FoldLowK/FoldHighK", n)
		}
	}
}

func TestPolyHelpers(t *testing.T) {
	rng := testrand.New(t)
	for n := range 20 {
		coeffs := randEs(rng, n)
		x := randE(rng)
		pw := make([]E, n)
		Powers(pw, x)
		if PolyEval(coeffs, x) != InnerProduct(coeffs, pw) {
			t.Fatalf("n=%d: PolyEval disagrees with <coeffs, powers>", n)
		}
		if n == 0 {
			continue
		}
		// Interpolation through n points of a degree < n polynomial is exact.
		nodes := randEs(rng, n)
		values := make([]E, n)
		for i := range nodes {
			values[i] = PolyEval(coeffs, nodes[i])
		}
		if LagrangeInterpolate(nodes, values, x) != PolyEval(coeffs, x) {
			t.Fatalf("n=%d: LagrangeInterpolate", n)
		}
		w := make([]E, n)
		LagrangeWeights(w, nodes, nodes[n/2])
		for i := range w {
			if want := map[bool]E{true: One, false: Zero}[i == n/2]; w[i] != want {
				t.Fatalf("n=%d: weight %d at a node", n, i)
			}
		}
	}
	src := randEs(rng, 33)
	src[0], src[7], src[32] = Zero, Zero, Zero
	dst := make([]E, len(src))
	BatchInvert(dst, src)
	for i := range src {
		if dst[i] != src[i].Inv() {
			t.Fatalf("BatchInvert entry %d", i)
		}
	}
	BatchInvert(src, src)
	for i := range src {
		if src[i] != dst[i] {
			t.Fatalf("in-place BatchInvert entry %d", i)
		}
	}
}

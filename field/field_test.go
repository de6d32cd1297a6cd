package field

import (
	"github.com/leanpipe/leanpipe/cpu"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/simd"
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
	forEachLevel(t, func(t *testing.T) {
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
	})
}

func TestEqAndMLE(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
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
	})
}

func TestPolyHelpers(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
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
	})
}

// forEachLevel runs f once per simd dispatch level this machine supports.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	for _, l := range simd.Kernels.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			f(t)
		})
	}
}

func TestSliceKernels(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := testrand.New(t)
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 33, 100} {
			a, b, ks := randEs(rng, n), randEs(rng, n), randKs(rng, n)
			k2 := randKs(rng, n)
			s := randE(rng)
			dst := make([]E, n)
			check := func(name string, f func(i int) E) {
				t.Helper()
				for i := range dst {
					if dst[i] != f(i) {
						t.Fatalf("n=%d: %s entry %d", n, name, i)
					}
				}
			}
			MulESlice(dst, a, b)
			check("MulESlice", func(i int) E { return a[i].Mul(b[i]) })
			MulEKSlice(dst, a, ks)
			check("MulEKSlice", func(i int) E { return a[i].MulK(ks[i]) })
			ScaleE(dst, a, s)
			check("ScaleE", func(i int) E { return a[i].Mul(s) })
			ScaleEK(dst, a, 7)
			check("ScaleEK", func(i int) E { return a[i].MulK(7) })
			copy(dst, b)
			AddScaledE(dst, a, s)
			check("AddScaledE", func(i int) E { return b[i].Add(a[i].Mul(s)) })
			copy(dst, b)
			AddScaledKE(dst, ks, s)
			check("AddScaledKE", func(i int) E { return b[i].Add(s.MulK(ks[i])) })
			AddSlice(dst, a, b)
			check("AddSlice", func(i int) E { return a[i].Add(b[i]) })
			kd := make([]K, n)
			MulKSlice(kd, ks, k2)
			for i := range kd {
				if kd[i] != ks[i].Mul(k2[i]) {
					t.Fatalf("n=%d: MulKSlice entry %d", n, i)
				}
			}
			ip, ipk := Zero, Zero
			for i := range a {
				ip = ip.Add(a[i].Mul(b[i]))
				ipk = ipk.Add(b[i].MulK(ks[i]))
			}
			if InnerProduct(a, b) != ip || InnerProductKE(ks, b) != ipk {
				t.Fatalf("n=%d: inner products", n)
			}
			// Folds against their definitions, out of place and in place.
			src := randEs(rng, 2*n)
			srcK := randKs(rng, 2*n)
			FoldLow(dst, src, s)
			check("FoldLow", func(i int) E { return src[2*i].Add(s.Mul(src[2*i].Add(src[2*i+1]))) })
			FoldHigh(dst, src, s)
			check("FoldHigh", func(i int) E { return src[i].Add(s.Mul(src[i].Add(src[i+n]))) })
			FoldLowK(dst, srcK, s)
			check("FoldLowK", func(i int) E { return FromK(srcK[2*i]).Add(s.MulK(srcK[2*i] ^ srcK[2*i+1])) })
			FoldHighK(dst, srcK, s)
			check("FoldHighK", func(i int) E { return FromK(srcK[i]).Add(s.MulK(srcK[i] ^ srcK[i+n])) })
			want := make([]E, n)
			FoldLow(want, src, s)
			FoldLow(src[:n], src, s)
			for i := range want {
				if src[i] != want[i] {
					t.Fatalf("n=%d: in-place FoldLow entry %d", n, i)
				}
			}
		}
	})
}

func TestSumcheckRounds(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := testrand.New(t)
		for _, n := range []int{0, 2, 4, 6, 8, 10, 14, 64, 258, 600} {
			f, b, fk := randEs(rng, n), randEs(rng, n), randKs(rng, n)
			fe := make([]E, n)
			for i := range fk {
				fe[i] = FromK(fk[i])
			}
			quad := func(lo, hi func(i int) (E, E), m int) (q0, q1, qi E) {
				for i := range m {
					f0, b0 := lo(i)
					f1, b1 := hi(i)
					q0 = q0.Add(f0.Mul(b0))
					q1 = q1.Add(f1.Mul(b1))
					qi = qi.Add(f0.Add(f1).Mul(b0.Add(b1)))
				}
				return
			}
			h := n / 2
			w0, w1, wi := quad(func(i int) (E, E) { return f[2*i], b[2*i] }, func(i int) (E, E) { return f[2*i+1], b[2*i+1] }, h)
			if g0, g1, gi := SumcheckRoundLow(f, b); g0 != w0 || g1 != w1 || gi != wi {
				t.Fatalf("n=%d: SumcheckRoundLow", n)
			}
			w0, w1, wi = quad(func(i int) (E, E) { return f[i], b[i] }, func(i int) (E, E) { return f[i+h], b[i+h] }, h)
			if g0, g1, gi := SumcheckRoundHigh(f, b); g0 != w0 || g1 != w1 || gi != wi {
				t.Fatalf("n=%d: SumcheckRoundHigh", n)
			}
			w0, w1, wi = quad(func(i int) (E, E) { return fe[i], b[i] }, func(i int) (E, E) { return fe[i+h], b[i+h] }, h)
			if g0, g1, gi := SumcheckRoundHighKE(fk, b); g0 != w0 || g1 != w1 || gi != wi {
				t.Fatalf("n=%d: SumcheckRoundHighKE", n)
			}
		}
	})
}

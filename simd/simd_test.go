package simd

import (
	"github.com/leanpipe/leanpipe/cpu"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// mulKBitwise is the schoolbook K product, one bit at a time, independent of the kernels.
func mulKBitwise(a, b uint64) uint64 {
	var hi, lo uint64
	for i := range 64 {
		if b>>i&1 == 1 {
			lo ^= a << i
			if i > 0 {
				hi ^= a >> (64 - i)
			}
		}
	}
	// Fold bit by bit from the top: x^(64+j) = x^j·(x^4 + x^3 + x + 1).
	for j := 63; j >= 0; j-- {
		if hi>>j&1 == 1 {
			hi ^= 1 << j
			t := uint64(0x1b) << j
			lo ^= t
			if j > 59 {
				hi ^= uint64(0x1b) >> (64 - j)
			}
		}
	}
	return lo
}

func randWords(rng *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		switch rng.IntN(16) {
		case 0:
			out[i] = 0
		case 1:
			out[i] = ^uint64(0)
		default:
			out[i] = rng.Uint64()
		}
	}
	return out
}

// forEachLevel runs f at every level up to the detected one and logs the field
// kernels each level selects.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	var ran []string
	for _, l := range cpu.Levels() {
		t.Run(l.String(), func(t *testing.T) {
			defer cpu.SetLevel(l)()
			ran = append(ran, l.String()+"→"+Kernels.Level().String())
			f(t)
		})
	}
	t.Logf("levels run (selected → field kernels): %v", ran)
}

var testLengths = func() []int {
	out := []int{}
	for n := 0; n <= 41; n++ {
		out = append(out, n)
	}
	return append(out, 64, 127, 128, 129, 1000, 1027)
}()

func TestScalar(t *testing.T) {
	rng := testrand.New(t)
	forEachLevel(t, func(t *testing.T) {
		for i := range 2000 {
			a, b := randWords(rng, 3), randWords(rng, 3)
			if got, want := MulK(a[0], b[0]), mulKBitwise(a[0], b[0]); got != want {
				t.Fatalf("%d: MulK(%#x, %#x) = %#x, want %#x", i, a[0], b[0], got, want)
			}
			var got, want [3]uint64
			MulE(&got, (*[3]uint64)(a), (*[3]uint64)(b))
			// Schoolbook in E with bitwise K products.
			m := func(x, y uint64) uint64 { return mulKBitwise(x, y) }
			p0 := m(a[0], b[0])
			p1 := m(a[0], b[1]) ^ m(a[1], b[0])
			p2 := m(a[0], b[2]) ^ m(a[1], b[1]) ^ m(a[2], b[0])
			p3 := m(a[1], b[2]) ^ m(a[2], b[1])
			p4 := m(a[2], b[2])
			want = [3]uint64{p0 ^ p3, p1 ^ p3 ^ p4, p2 ^ p4}
			if got != want {
				t.Fatalf("%d: MulE = %x, want %x", i, got, want)
			}
			var ek [3]uint64
			MulEKScalar(&ek, (*[3]uint64)(a), b[1])
			if ek != [3]uint64{m(a[0], b[1]), m(a[1], b[1]), m(a[2], b[1])} {
				t.Fatalf("%d: MulEKScalar = %x", i, ek)
			}
			MulE((*[3]uint64)(a), (*[3]uint64)(a), (*[3]uint64)(b))
			if [3]uint64(a) != want {
				t.Fatalf("%d: in-place MulE", i)
			}
		}
	})
}

// kernelCase runs one vector kernel at the active level and with the portable twin on
// the same inputs, for every test length.
type kernelCase struct {
	name string
	// run fills outputs from inputs of n elements; gen says whether to use the twin.
	run func(rng *rand.Rand, n int, generic bool) []uint64
}

func TestVectorKernels(t *testing.T) {
	cases := []kernelCase{
		{"MulKK", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, b, dst := randWords(rng, n), randWords(rng, n), randWords(rng, n)
			if g {
				mulKKGeneric(dst, a, b)
			} else {
				MulKK(dst, a, b)
			}
			inPlace := slices.Clone(a)
			if g {
				mulKKGeneric(inPlace, inPlace, b)
			} else {
				MulKK(inPlace, inPlace, b)
			}
			return append(dst, inPlace...)
		}},
		{"MulEK", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, b, dst := randWords(rng, 3*n), randWords(rng, n), randWords(rng, 3*n)
			if g {
				mulEKGeneric(dst, a, b)
			} else {
				MulEK(dst, a, b)
			}
			return dst
		}},
		{"ScaleEK", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, s, dst := randWords(rng, 3*n), rng.Uint64(), randWords(rng, 3*n)
			if g {
				scaleEKGeneric(dst, a, s)
			} else {
				ScaleEK(dst, a, s)
			}
			return dst
		}},
		{"MulEE", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, b, dst := randWords(rng, 3*n), randWords(rng, 3*n), randWords(rng, 3*n)
			if g {
				mulEEGeneric(dst, a, b)
				mulEEGeneric(a, a, b)
			} else {
				MulEE(dst, a, b)
				MulEE(a, a, b)
			}
			return append(dst, a...)
		}},
		{"ScaleE", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, dst := randWords(rng, 3*n), randWords(rng, 3*n)
			s := [3]uint64(randWords(rng, 3))
			if g {
				scaleEGeneric(dst, a, &s)
			} else {
				ScaleE(dst, a, &s)
			}
			return dst
		}},
		{"AxpyE", func(rng *rand.Rand, n int, g bool) []uint64 {
			src, dst := randWords(rng, 3*n), randWords(rng, 3*n)
			s := [3]uint64(randWords(rng, 3))
			if g {
				axpyEGeneric(dst, src, &s)
			} else {
				AxpyE(dst, src, &s)
			}
			return dst
		}},
		{"AxpyKE", func(rng *rand.Rand, n int, g bool) []uint64 {
			src, dst := randWords(rng, n), randWords(rng, 3*n)
			s := [3]uint64(randWords(rng, 3))
			if g {
				axpyKEGeneric(dst, src, &s)
			} else {
				AxpyKE(dst, src, &s)
			}
			return dst
		}},
		{"DotKE", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, b := randWords(rng, n), randWords(rng, 3*n)
			var out [3]uint64
			if g {
				out = dotKEGeneric(a, b)
			} else {
				out = DotKE(a, b)
			}
			return out[:]
		}},
		{"DotEE", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, b := randWords(rng, 3*n), randWords(rng, 3*n)
			var out [3]uint64
			if g {
				out = dotEEGeneric(a, b)
			} else {
				out = DotEE(a, b)
			}
			return out[:]
		}},
		{"DotPairsEE", func(rng *rand.Rand, n int, g bool) []uint64 {
			f, b := randWords(rng, 6*n), randWords(rng, 6*n)
			var q0, q1, qi [3]uint64
			if g {
				q0, q1, qi = dotPairsEEGeneric(f, b)
			} else {
				q0, q1, qi = DotPairsEE(f, b)
			}
			return append(append(q0[:], q1[:]...), qi[:]...)
		}},
		{"FoldE", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, b, dst := randWords(rng, 3*n), randWords(rng, 3*n), randWords(rng, 3*n)
			r := [3]uint64(randWords(rng, 3))
			if g {
				foldEGeneric(dst, a, b, &r)
				foldEGeneric(a, a, b, &r)
			} else {
				FoldE(dst, a, b, &r)
				FoldE(a, a, b, &r)
			}
			return append(dst, a...)
		}},
		{"FoldPairsE", func(rng *rand.Rand, n int, g bool) []uint64 {
			src, dst := randWords(rng, 6*n), randWords(rng, 3*n)
			r := [3]uint64(randWords(rng, 3))
			if g {
				foldPairsEGeneric(dst, src, &r)
				foldPairsEGeneric(src[:3*n], src, &r)
			} else {
				FoldPairsE(dst, src, &r)
				FoldPairsE(src[:3*n], src, &r)
			}
			return append(dst, src...)
		}},
		{"FoldK", func(rng *rand.Rand, n int, g bool) []uint64 {
			a, b, dst := randWords(rng, n), randWords(rng, n), randWords(rng, 3*n)
			r := [3]uint64(randWords(rng, 3))
			if g {
				foldKGeneric(dst, a, b, &r)
			} else {
				FoldK(dst, a, b, &r)
			}
			return dst
		}},
		{"FoldPairsK", func(rng *rand.Rand, n int, g bool) []uint64 {
			src, dst := randWords(rng, 2*n), randWords(rng, 3*n)
			r := [3]uint64(randWords(rng, 3))
			if g {
				foldPairsKGeneric(dst, src, &r)
			} else {
				FoldPairsK(dst, src, &r)
			}
			return dst
		}},
	}
	forEachLevel(t, func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				for _, n := range testLengths {
					seed := uint64(n)*0x9e3779b97f4a7c15 ^ uint64(len(c.name))
					base := testrand.New(t).Uint64()
					want := c.run(rand.New(rand.NewPCG(seed, base)), n, true)
					got := c.run(rand.New(rand.NewPCG(seed, base)), n, false)
					if !slices.Equal(got, want) {
						t.Fatalf("n=%d: level %v disagrees with the portable twin", n, Kernels.Level())
					}
				}
			})
		}
	})
}

func TestLengthPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic on mismatched lengths", name)
			}
		}()
		f()
	}
	var s [3]uint64
	mustPanic("MulEE", func() { MulEE(make([]uint64, 6), make([]uint64, 3), make([]uint64, 6)) })
	mustPanic("MulEK", func() { MulEK(make([]uint64, 6), make([]uint64, 6), make([]uint64, 3)) })
	mustPanic("DotKE", func() { DotKE(make([]uint64, 2), make([]uint64, 3)) })
	mustPanic("ScaleE", func() { ScaleE(make([]uint64, 4), make([]uint64, 4), &s) })
	mustPanic("FoldPairsE", func() { FoldPairsE(make([]uint64, 3), make([]uint64, 3), &s) })
}

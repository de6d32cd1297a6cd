//go:build !purego

package simd

import (
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

// foldNaive returns Σ_{bit e of x[c]} w_e for every column c: the sums the bit-fold
// kernels compute (w: E elements as words, one per bit).
func foldNaive(x [][]bool, w []uint64) []uint64 {
	out := make([]uint64, 3*len(x))
	for c, bitsOf := range x {
		for e, set := range bitsOf {
			if set {
				for l := range 3 {
					out[3*c+l] ^= w[3*e+l]
				}
			}
		}
	}
	return out
}

// aligned64 returns n bytes starting on a 64-byte boundary.
func aligned64(n int) []byte { return Align64(make([]byte, n+64))[:n] }

func needGFNI(t *testing.T) {
	if cpu.Detected() < cpu.AVX512GFNI {
		t.Skipf("the bit-fold kernels need %v; this machine runs %v", cpu.AVX512GFNI, cpu.Detected())
	}
}

// BitFoldRows, BitFoldApply and BitFoldOut fold bit rows (groups of 8 slots, every
// word count up to 8, odd and even group counts, two passes into one accumulator)
// to the naive sums.
func TestBitFoldRows(t *testing.T) {
	needGFNI(t)
	rng := testrand.New(t)
	for _, tc := range []struct{ words, nw, groups int }{
		{8, 8, 1}, {8, 8, 2}, {8, 3, 5}, {11, 8, BitFoldTile}, {16, 7, 9}, {1, 1, 4},
	} {
		slots := 8 * tc.groups
		q := make([]uint64, slots*tc.words)
		for i := range q {
			q[i] = rng.Uint64()
		}
		w := make([]uint64, 3*slots)
		for i := range w {
			w[i] = rng.Uint64()
		}
		mats := make([]uint64, len(w))
		BitMatrices(mats, w)
		tb := aligned64(8 * BitFoldTileBytes)
		acc := aligned64(8 * BitFoldAccBytes)
		// Two passes over the same rows: the sums cancel to zero and then double
		// back, so the accumulators are read and written.
		for pass := range 3 {
			BitFoldRows(&tb[0], &q[0], 8*tc.words, tc.nw, tc.groups)
			BitFoldApply(&acc[0], &tb[0], tc.nw, tc.groups, &mats[0])
			got := make([]uint64, 3*64*tc.nw)
			BitFoldOut(&got[0], &acc[0], tc.nw)
			x := make([][]bool, 64*tc.nw)
			for c := range x {
				x[c] = make([]bool, slots)
				for s := range slots {
					x[c][s] = q[s*tc.words+c/64]>>(c%64)&1 == 1
				}
			}
			want := foldNaive(x, w)
			if pass == 1 {
				clear(want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%+v pass %d: word %d of the sums differs", tc, pass, i)
				}
			}
		}
	}
}

// BytePlanes with BitFoldApply over 24 groups applies a 192-bit linear map to 64
// elements; BitFoldOutPairs interleaves two such maps.
func TestBitFoldPlanes(t *testing.T) {
	needGFNI(t)
	rng := testrand.New(t)
	src := make([]uint64, 3*64)
	for i := range src {
		src[i] = rng.Uint64()
	}
	x := make([][]bool, 64)
	for c := range x {
		x[c] = make([]bool, 192)
		for j := range 192 {
			x[c][j] = src[3*c+j/64]>>(j%64)&1 == 1
		}
	}
	tb := aligned64(24 * 64)
	BytePlanes(&tb[0], &src[0])
	var folds [2][]uint64
	var accs [2][]byte
	for a := range folds {
		w := make([]uint64, 3*192)
		for i := range w {
			w[i] = rng.Uint64()
		}
		mats := make([]uint64, len(w))
		BitMatrices(mats, w)
		accs[a] = aligned64(BitFoldAccBytes)
		BitFoldApply(&accs[a][0], &tb[0], 1, 24, &mats[0])
		folds[a] = make([]uint64, 3*64)
		BitFoldOut(&folds[a][0], &accs[a][0], 1)
		want := foldNaive(x, w)
		for i := range want {
			if folds[a][i] != want[i] {
				t.Fatalf("fold %d: word %d differs", a, i)
			}
		}
	}
	got := make([]uint64, 3*128)
	BitFoldOutPairs(&got[0], &accs[0][0], &accs[1][0])
	for c := range 64 {
		for a := range 2 {
			for l := range 3 {
				if got[3*(2*c+a)+l] != folds[a][3*c+l] {
					t.Fatalf("pairs: element %d differs", 2*c+a)
				}
			}
		}
	}
}

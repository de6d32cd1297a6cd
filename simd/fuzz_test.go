package simd

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzEKernels checks the detected level against the portable twins on arbitrary words
// (lengths from 0 elements up, through the ymm and zmm main loops and their tails).
func FuzzEKernels(f *testing.F) {
	f.Add(make([]byte, 24*9))
	f.Add([]byte{1, 2, 3})
	seed := make([]byte, 8*(3+6*19)) // 19 elements: a zmm step, a ymm step and a scalar tail
	for i := range seed {
		seed[i] = byte(i*131 + i>>3)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		w := make([]uint64, len(data)/8)
		for i := range w {
			w[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
		if len(w) < 3 {
			return
		}
		s := [3]uint64(w[:3])
		n := (len(w) - 3) / 6
		a, b := w[3:3+3*n], w[3+3*n:3+6*n]
		dst, want := make([]uint64, 3*n), make([]uint64, 3*n)
		MulEE(dst, a, b)
		mulEEGeneric(want, a, b)
		if !slices.Equal(dst, want) {
			t.Fatal("MulEE")
		}
		AxpyE(dst, a, &s)
		axpyEGeneric(want, a, &s)
		if !slices.Equal(dst, want) {
			t.Fatal("AxpyE")
		}
		ScaleE(dst, a, &s)
		scaleEGeneric(want, a, &s)
		if !slices.Equal(dst, want) {
			t.Fatal("ScaleE")
		}
		FoldE(dst, a, b, &s)
		foldEGeneric(want, a, b, &s)
		if !slices.Equal(dst, want) {
			t.Fatal("FoldE")
		}
		h := 3 * (n / 2)
		FoldPairsE(dst[:h], a[:2*h], &s)
		foldPairsEGeneric(want[:h], a[:2*h], &s)
		if !slices.Equal(dst, want) {
			t.Fatal("FoldPairsE")
		}
		FoldK(dst, b[:n], b[n:2*n], &s)
		foldKGeneric(want, b[:n], b[n:2*n], &s)
		if !slices.Equal(dst, want) {
			t.Fatal("FoldK")
		}
		if DotEE(a, b) != dotEEGeneric(a, b) {
			t.Fatal("DotEE")
		}
		if DotKE(b[:n], a) != dotKEGeneric(b[:n], a) {
			t.Fatal("DotKE")
		}
	})
}

package simd

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzEKernels checks the detected level against the portable twins on arbitrary words.
func FuzzEKernels(f *testing.F) {
	f.Add(make([]byte, 24*9))
	f.Add([]byte{1, 2, 3})
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
		if DotEE(a, b) != dotEEGeneric(a, b) {
			t.Fatal("DotEE")
		}
		if DotKE(b[:n], a) != dotKEGeneric(b[:n], a) {
			t.Fatal("DotKE")
		}
	})
}

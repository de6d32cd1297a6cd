package field

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/simd"
)

// The slice kernels hand E and K slices to package simd as raw words. E is a struct of
// three K fields and K is a uint64, so an E occupies exactly three consecutive words
// (c0, c1, c2) with no padding and the alignment of uint64; the array assertions below
// stop the build if that ever changes.
var (
	_ [unsafe.Sizeof(E{}) - 24]byte
	_ [24 - unsafe.Sizeof(E{})]byte
	_ [unsafe.Alignof(E{}) - unsafe.Alignof(uint64(0))]byte
	_ [unsafe.Alignof(uint64(0)) - unsafe.Alignof(E{})]byte
	_ [unsafe.Offsetof(E{}.C2) - 16]byte
)

// eWords returns v as its 3·len(v) words, sharing memory.
func eWords(v []E) []uint64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), 3*len(v))
}

// Words returns v as its 3·len(v) words, sharing memory: E vectors as the raw
// kernels of package simd take them.
func Words(v []E) []uint64 { return eWords(v) }

// kWords returns v as its words, sharing memory.
func kWords(v []K) []uint64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&v[0])), len(v))
}

// KSlice returns the words w as K values, sharing memory (K is a uint64).
func KSlice(w []uint64) []K {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*K)(unsafe.Pointer(&w[0])), len(w))
}

// words3 returns *a as its three words.
func words3(a *E) *[3]uint64 { return (*[3]uint64)(unsafe.Pointer(a)) }

// BitMatrices writes, for each group of 8 elements w[8g : 8g+8], the 24 GF(2) 8x8
// matrices of the map from the group's bits x (bit e weighs w[8g+e]) to byte o of
// Σ_e x_e·w[8g+e], as the bit-fold kernels take them (simd.BitMatrices). It panics
// unless len(m) = 3·len(w) and len(w) is a multiple of 8.
func BitMatrices(m []uint64, w []E) {
	if len(w)%8 != 0 {
		panic("field: BitMatrices needs groups of 8 elements")
	}
	simd.BitMatrices(m, eWords(w))
}

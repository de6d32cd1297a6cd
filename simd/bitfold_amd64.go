//go:build !purego

package simd

// The GFNI bit-fold kernels (bitfold_amd64.s; layouts in bitfold.go). They need
// AVX-512 F/BW/VL with VBMI and GFNI: callers run them only at cpu.AVX512GFNI.
// Pointers need no alignment (64-byte aligned scratch avoids split lines).

// BitFoldRows writes the x bytes of groups ≥ 1 groups (≤ BitFoldTile) of 8 bit rows
// each, group g's row e at q + (8g+e)·stride bytes, for words [0, nw) of the rows
// (1 ≤ nw ≤ 8; words 8 and past are read as zero), to tb; it also prefetches
// the rows' next 8 words.
//
//go:noescape
func BitFoldRows(tb *byte, q *uint64, stride, nw, groups int)

// BitFoldApply adds, for words [0, nw) (nw ≥ 1) and groups ≥ 1 groups, each group's
// x bytes (tb) through its matrices (mats) into the accumulators at acc.
//
//go:noescape
func BitFoldApply(acc, tb *byte, nw, groups int, mats *uint64)

// BitFoldOut writes nw ≥ 1 words' accumulators to dst: 64·nw E elements (words).
//
//go:noescape
func BitFoldOut(dst *uint64, acc *byte, nw int)

// BitFoldOutPairs writes two folds' accumulators of one word (64 columns each) to
// dst interleaved: element 2c+a is column c of fold a (128 E elements).
//
//go:noescape
func BitFoldOutPairs(dst *uint64, acc0, acc1 *byte)

// BytePlanes writes the x bytes of 64 E elements (src, 192 words) as one word of 24
// groups: group g's byte c is byte g of element c (bytes 0..7 of limb 0 first).
//
//go:noescape
func BytePlanes(tb *byte, src *uint64)

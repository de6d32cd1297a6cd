package circuit

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/simd"
)

// The tensor row accumulators in unreduced form. A window's flush adds h·a_j and
// h·b_j (h the window's High factor, a_j and b_j its rows' operand values) into the
// accumulators of slot j. The product of two E values is three limbs of 128 bits
// (Karatsuba) before the reduction modulo the K polynomial; the reduction is linear,
// so the accumulators keep the unreduced limbs and reduce once, when the sums are
// taken (uaccSums). A flush then costs the six carry-less products of each row
// value and their Karatsuba sums, no reduction.
//
// Layout (uaccGroupWords words per group of eight slots, A's 48 words then B's):
// for slot 8g+e of group g, limb i's 128-bit value (low word first) is at
// 96g + 48·part + 16i + 8·(l mod 2) + 2·(l div 2), where l = uaccLane[e] is the
// lane the vector kernel holds slot e in (it reads eight E values as three limb
// vectors whose lane l holds element 3l mod 8).

// uaccGroupWords is the words of one group of eight slots (A and B).
const uaccGroupWords = 96

// uaccLane[e] is the lane of element e of a group: the l with 3l ≡ e (mod 8).
var uaccLane = [8]int{0, 3, 6, 1, 4, 7, 2, 5}

// uaccWord is the index, in a group's part, of slot e's limb i low word.
func uaccWord(e, i int) int {
	l := uaccLane[e]
	return 16*i + 8*(l&1) + 2*(l>>1)
}

// clmulGo returns the 128-bit carry-less product of x and y as (hi, lo).
func clmulGo(x, y uint64) (hi, lo uint64) {
	for i := range 64 {
		if y>>i&1 != 0 {
			lo ^= x << i
			if i > 0 {
				hi ^= x >> (64 - i)
			}
		}
	}
	return hi, lo
}

// mulEUnreducedGo adds the unreduced limbs of a·h into c (c[2i] the low word of limb
// i, c[2i+1] its high word), as the vector kernel forms them (Karatsuba: c0 = p0 +
// p11 + p22 + q12, c1 = p0 + q01 + q12, c2 = p0 + p11 + q02 with pij = a_i·h_j and qij =
// (a_i + a_j)(h_i + h_j)).
func mulEUnreducedGo(c *[6]uint64, a, h field.E) {
	a0, a1, a2 := uint64(a.C0), uint64(a.C1), uint64(a.C2)
	h0, h1, h2 := uint64(h.C0), uint64(h.C1), uint64(h.C2)
	p0h, p0l := clmulGo(a0, h0)
	p1h, p1l := clmulGo(a1, h1)
	p2h, p2l := clmulGo(a2, h2)
	q01h, q01l := clmulGo(a0^a1, h0^h1)
	q12h, q12l := clmulGo(a1^a2, h1^h2)
	q02h, q02l := clmulGo(a0^a2, h0^h2)
	c[0] ^= p0l ^ p1l ^ p2l ^ q12l
	c[1] ^= p0h ^ p1h ^ p2h ^ q12h
	c[2] ^= p0l ^ q01l ^ q12l
	c[3] ^= p0h ^ q01h ^ q12h
	c[4] ^= p0l ^ p1l ^ q02l
	c[5] ^= p0h ^ p1h ^ q02h
}

// flushAccGo is the portable twin of the flush kernel: it adds h·a[j] and h·b[j]
// into the unreduced accumulators acc of slots j < len(a) (len(a) = len(b) a
// multiple of 8, len(acc) = len(a)/8·uaccGroupWords).
func flushAccGo(acc []uint64, a, b []field.E, h field.E) {
	for j := range a {
		g := acc[j/8*uaccGroupWords:][:uaccGroupWords]
		for part, v := range [2]field.E{a[j], b[j]} {
			var c [6]uint64
			mulEUnreducedGo(&c, v, h)
			for i := range 3 {
				w := 48*part + uaccWord(j%8, i)
				g[w] ^= c[2*i]
				g[w+1] ^= c[2*i+1]
			}
		}
	}
}

// uaccSums reduces the accumulators of n slots into dstA, dstB (n entries each).
func uaccSums(dstA, dstB []field.E, acc []uint64) {
	for j := range dstA {
		g := acc[j/8*uaccGroupWords:][:uaccGroupWords]
		var v [2][3]uint64
		for part := range 2 {
			for i := range 3 {
				w := 48*part + uaccWord(j%8, i)
				v[part][i] = simd.Reduce(g[w+1], g[w])
			}
		}
		dstA[j] = field.E{C0: field.K(v[0][0]), C1: field.K(v[0][1]), C2: field.K(v[0][2])}
		dstB[j] = field.E{C0: field.K(v[1][0]), C1: field.K(v[1][1]), C2: field.K(v[1][2])}
	}
}

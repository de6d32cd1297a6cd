package field

import (
	"encoding/binary"
	"fmt"

	"github.com/leanpipe/leanpipe/simd"
)

// E is an element c0 + c1·y + c2·y² of K[y]/(y^3 + y + 1).
type E struct{ C0, C1, C2 K }

// Common constants.
var (
	Zero = E{}
	One  = E{C0: 1}
)

// FromK lifts a K element into E.
func FromK(a K) E { return E{C0: a} }

// Add returns a + b.
func (a E) Add(b E) E { return E{a.C0 ^ b.C0, a.C1 ^ b.C1, a.C2 ^ b.C2} }

// MulK returns a·b for b in K.
func (a E) MulK(b K) E {
	var c E
	simd.MulEKScalar(words3(&c), words3(&a), uint64(b))
	return c
}

// Mul returns a·b.
func (a E) Mul(b E) E {
	var c E
	simd.MulE(words3(&c), words3(&a), words3(&b))
	return c
}

// Square returns a². Squaring is additive: (c0 + c1·y + c2·y²)² = c0² + c1²·y² + c2²·(y² + y).
func (a E) Square() E {
	s0, s1, s2 := a.C0.Square(), a.C1.Square(), a.C2.Square()
	return E{s0, s2, s1 ^ s2}
}

// Pow returns a^n.
func (a E) Pow(n uint64) E {
	out := One
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			out = out.Mul(a)
		}
		a = a.Square()
	}
	return out
}

// frobY[k] = y^(2^k) and frobY2[k] = y^(2·2^k) for 0 ≤ k < 192.
var frobY, frobY2 = func() (y1, y2 [192]E) {
	a, b := E{C1: 1}, E{C2: 1}
	for k := range 192 {
		y1[k], y2[k] = a, b
		a, b = a.Square(), b.Square()
	}
	return
}()

// Frobenius returns a^(2^k) for any integer k (the map has order 192). Since
// c^(2^64) = c on K, a^(2^k) = c0^(2^r) + c1^(2^r)·y^(2^k) + c2^(2^r)·y^(2·2^k)
// with r = k mod 64, and the powers of y are precomputed.
func (a E) Frobenius(k int) E {
	k %= 192
	if k < 0 {
		k += 192
	}
	if k == 0 {
		return a
	}
	r := k % 64
	c0, c1, c2 := a.C0, a.C1, a.C2
	for range r {
		c0, c1, c2 = c0.Square(), c1.Square(), c2.Square()
	}
	return FromK(c0).Add(frobY[k].MulK(c1)).Add(frobY2[k].MulK(c2))
}

// Inv returns a⁻¹, and 0 for a = 0. With σ(a) = a^(2^64), the norm N = a·σ(a)·σ²(a)
// lies in K and a⁻¹ = σ(a)·σ²(a)·N⁻¹.
func (a E) Inv() E {
	if a.IsZero() {
		return Zero
	}
	t := a.Frobenius(64).Mul(a.Frobenius(128))
	// Only the constant limb of a·t is nonzero.
	n := a.C0.Mul(t.C0) ^ a.C1.Mul(t.C2) ^ a.C2.Mul(t.C1)
	return t.MulK(n.Inv())
}

// IsZero reports whether a = 0.
func (a E) IsZero() bool { return a == Zero }

// Bytes returns the 24-byte transport image: c0, c1, c2 as little-endian words.
func (a E) Bytes() [24]byte {
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(a.C0))
	binary.LittleEndian.PutUint64(b[8:], uint64(a.C1))
	binary.LittleEndian.PutUint64(b[16:], uint64(a.C2))
	return b
}

// EFromBytes decodes the 24-byte transport image.
func EFromBytes(b []byte) (E, error) {
	if len(b) != 24 {
		return Zero, fmt.Errorf("field: an E element is 24 bytes, got %d", len(b))
	}
	return E{
		K(binary.LittleEndian.Uint64(b[0:])),
		K(binary.LittleEndian.Uint64(b[8:])),
		K(binary.LittleEndian.Uint64(b[16:])),
	}, nil
}

// String prints the element as the reference does: E(0x c2 c1 c0).
func (a E) String() string { return fmt.Sprintf("E(0x%016x%016x%016x)", a.C2, a.C1, a.C0) }

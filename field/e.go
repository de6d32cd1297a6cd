package field

import (
	"encoding/binary"
	"fmt"
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
func (a E) MulK(b K) E { return E{a.C0.Mul(b), a.C1.Mul(b), a.C2.Mul(b)} }

// Mul returns a·b.
func (a E) Mul(b E) E {
	p0 := a.C0.Mul(b.C0)
	p1 := a.C0.Mul(b.C1) ^ a.C1.Mul(b.C0)
	p2 := a.C0.Mul(b.C2) ^ a.C1.Mul(b.C1) ^ a.C2.Mul(b.C0)
	p3 := a.C1.Mul(b.C2) ^ a.C2.Mul(b.C1)
	p4 := a.C2.Mul(b.C2)
	return E{p0 ^ p3, p1 ^ p3 ^ p4, p2 ^ p4}
}

// Square returns a².
func (a E) Square() E { return a.Mul(a) }

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

// Frobenius returns a^(2^k).
func (a E) Frobenius(k int) E {
	for i := 0; i < k%192; i++ {
		a = a.Square()
	}
	return a
}

// Inv returns a⁻¹, and 0 for a = 0.
func (a E) Inv() E {
	// a^(2^192 - 2) = Π_{i=1}^{191} a^(2^i).
	out := One
	s := a
	for i := 1; i < 192; i++ {
		s = s.Square()
		out = out.Mul(s)
	}
	return out
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

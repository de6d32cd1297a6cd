package field

import "github.com/leanpipe/leanpipe/simd"

// K is an element of GF(2^64) modulo x^64 + x^4 + x^3 + x + 1.
type K uint64

// Add returns a + b.
func (a K) Add(b K) K { return a ^ b }

// Mul returns a·b.
func (a K) Mul(b K) K { return K(simd.MulK(uint64(a), uint64(b))) }

// Square returns a². Squaring is additive: it spreads bit i to bit 2i, then reduces.
func (a K) Square() K {
	x := uint64(a)
	return K(simd.Reduce(spread32(x>>32), spread32(x&0xffffffff)))
}

// spread32 moves bit i of the 32-bit x to bit 2i.
func spread32(x uint64) uint64 {
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// sqrN returns a^(2^n).
func (a K) sqrN(n int) K {
	for range n {
		a = a.Square()
	}
	return a
}

// Pow returns a^n.
func (a K) Pow(n uint64) K {
	out := K(1)
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			out = out.Mul(a)
		}
		a = a.Square()
	}
	return out
}

// Inv returns a⁻¹, and 0 for a = 0: a^(2^64-2) = (a^(2^63-1))², with b_m = a^(2^m-1)
// built by the Itoh–Tsujii chain b_{i+j} = b_i^(2^j)·b_j along 1,2,3,6,7,14,15,30,31,62,63.
func (a K) Inv() K {
	b1 := a
	b2 := b1.Square().Mul(b1)
	b3 := b2.Square().Mul(b1)
	b6 := b3.sqrN(3).Mul(b3)
	b7 := b6.Square().Mul(b1)
	b14 := b7.sqrN(7).Mul(b7)
	b15 := b14.Square().Mul(b1)
	b30 := b15.sqrN(15).Mul(b15)
	b31 := b30.Square().Mul(b1)
	b62 := b31.sqrN(31).Mul(b31)
	b63 := b62.Square().Mul(b1)
	return b63.Square()
}

// IsZero reports whether a = 0.
func (a K) IsZero() bool { return a == 0 }

package field

// K is an element of GF(2^64) modulo x^64 + x^4 + x^3 + x + 1.
type K uint64

// Add returns a + b.
func (a K) Add(b K) K { return a ^ b }

// Mul returns a·b.
func (a K) Mul(b K) K { return K(mulWord(uint64(a), uint64(b))) }

// Square returns a².
func (a K) Square() K { return a.Mul(a) }

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

// Inv returns a⁻¹, and 0 for a = 0.
func (a K) Inv() K { return a.Pow(^uint64(0) - 1) }

// IsZero reports whether a = 0.
func (a K) IsZero() bool { return a == 0 }

// clmulGeneric returns the 128-bit carry-less product of x and y as (hi, lo).
func clmulGeneric(x, y uint64) (hi, lo uint64) {
	// 4-bit window over y with a 16-entry table of x·i (i < 16) held as 67-bit values.
	var tl, th [16]uint64
	for i := 1; i < 16; i++ {
		if i&1 != 0 {
			tl[i] = tl[i^1] ^ x
			th[i] = th[i^1]
		} else {
			tl[i] = tl[i>>1] << 1
			th[i] = th[i>>1]<<1 | tl[i>>1]>>63
		}
	}
	for s := 60; s >= 0; s -= 4 {
		hi = hi<<4 | lo>>60
		lo <<= 4
		n := (y >> uint(s)) & 15
		lo ^= tl[n]
		hi ^= th[n]
	}
	return hi, lo
}

// reduce folds a 128-bit carry-less product modulo x^64 + x^4 + x^3 + x + 1.
func reduce(hi, lo uint64) uint64 {
	folded := lo ^ hi ^ hi<<1 ^ hi<<3 ^ hi<<4
	over := hi>>63 ^ hi>>61 ^ hi>>60
	return folded ^ over ^ over<<1 ^ over<<3 ^ over<<4
}

func mulGeneric(x, y uint64) uint64 { return reduce(clmulGeneric(x, y)) }

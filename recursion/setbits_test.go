package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

// setBitsByBit is setBits one bit at a time (the reference).
func setBitsByBit(row []uint64, base int, v uint64, n int) {
	for k := range n {
		if v>>k&1 == 1 {
			row[(base+k)/64] |= 1 << ((base + k) % 64)
		}
	}
}

// TestSetBitsMatchesBitwise pins the word-level setBits to the bitwise form at
// every offset and length, over rows with bits already set.
func TestSetBitsMatchesBitwise(t *testing.T) {
	r := testrand.New(t)
	for base := 0; base < 130; base++ {
		for n := 0; n <= 64; n++ {
			v := r.Uint64()
			got, want := make([]uint64, 4), make([]uint64, 4)
			for i := range got {
				got[i] = r.Uint64() & r.Uint64()
				want[i] = got[i]
			}
			setBits(got, base, v, n)
			setBitsByBit(want, base, v, n)
			if [4]uint64(got) != [4]uint64(want) {
				t.Fatalf("setBits(base %d, v %#x, n %d) = %x, want %x", base, v, n, got, want)
			}
		}
	}
}

package simd

import (
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
)

func TestTranspose8x8(t *testing.T) {
	rng := testrand.New(t)
	for range 200 {
		x := rng.Uint64()
		y := Transpose8x8(x)
		for i := 0; i < 8; i++ {
			for j := 0; j < 8; j++ {
				if x>>(8*i+j)&1 != y>>(8*j+i)&1 {
					t.Fatalf("Transpose8x8(%#x) wrong at (%d, %d)", x, i, j)
				}
			}
		}
	}
}

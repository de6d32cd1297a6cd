package zerocheck

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/simd"
)

// Every dispatch level must give the portable kernels' output.
func TestKernelLevels(t *testing.T) {
	rng := testrand.New(t)
	d := domain()
	in := randInput(rng, 17, 14, 1)
	var want []string
	for _, l := range simd.Levels() {
		restore := simd.SetLevel(l)
		for range 200 {
			a, b, c := rng.Uint64(), rng.Uint64(), rng.Uint64()
			var got, ref [3][8]uint64
			d.extend3(a, b, c, &got)
			d.extend3Generic(a, b, c, &ref)
			if got != ref {
				restore()
				t.Fatalf("level %v: extend3 differs from the generic kernel", l)
			}
		}
		stream, _ := proveStream(t, in, 2)
		restore()
		var s []string
		for _, v := range stream {
			s = append(s, fmt.Sprint(v))
		}
		if want == nil {
			want = s
			continue
		}
		if fmt.Sprint(s) != fmt.Sprint(want) {
			t.Fatalf("level %v: proof stream differs from the generic level's", l)
		}
	}
}

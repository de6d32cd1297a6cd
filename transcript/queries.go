package transcript

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
)

// QueriesFrom turns challenges into count positions in [0, blockLen), as a transcript
// draws queries: each challenge (from next), read as the
// 192-bit integer c0 + 2^64·c1 + 2^128·c2, yields ⌊192/d⌋ positions of d = log2(blockLen)
// bits, lowest bits first.
func QueriesFrom(blockLen, count int, next func() field.E) []int {
	if blockLen <= 1 || blockLen&(blockLen-1) != 0 || count < 0 {
		panic(fmt.Sprintf("transcript: SampleQueries(%d, %d): need a power-of-two block length > 1", blockLen, count))
	}
	depth := 0
	for 1<<depth < blockLen {
		depth++
	}
	perWord := 192 / depth
	mask := uint64(blockLen - 1)
	out := make([]int, 0, count)
	for len(out) < count {
		x := next()
		w := [3]uint64{uint64(x.C0), uint64(x.C1), uint64(x.C2)}
		for c := 0; c < perWord && len(out) < count; c++ {
			shift := c * depth
			word, off := shift/64, uint(shift%64)
			v := w[word] >> off
			if off != 0 && word+1 < 3 {
				v |= w[word+1] << (64 - off)
			}
			out = append(out, int(v&mask))
		}
	}
	return out
}

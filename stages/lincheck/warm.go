package lincheck

import (
	"runtime"

	"github.com/leanpipe/leanpipe/field"
)

// warm reads one word of every cache line of each run, so that the field kernels
// that follow find them in cache. Those kernels read an E vector with masked
// blend loads, which on cold data ran 4-5x slower than a plain read of it on the
// AMD Zen 5 machine (a 2^20-entry inner product 7.8 ns per entry from memory, 2.0
// with each 256-entry chunk read this way first; a fold 11.3 against 2.2): the plain
// loads here are many independent misses in flight, which the kernels' are not.
func warm(runs ...[]field.E) {
	var s uint64
	for _, v := range runs {
		w := field.Words(v)
		for i := 0; i < len(w); i += 8 {
			s ^= w[i]
		}
	}
	// The loads are the point; the sum only keeps the compiler from dropping them.
	runtime.KeepAlive(s)
}

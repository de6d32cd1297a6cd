// Package testrand is the one seeded source of randomness for tests; failures print the seed.
package testrand

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// New returns a generator seeded from $LEANPIPE_SEED (or a fixed default) and logs
// the seed so that a failing run can be replayed.
func New(t testing.TB) *rand.Rand {
	t.Helper()
	seed := uint64(0x1ea9_91be)
	if s := os.Getenv("LEANPIPE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("testrand: LEANPIPE_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("testrand: seed %#x (set LEANPIPE_SEED to replay)", seed)
		}
	})
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

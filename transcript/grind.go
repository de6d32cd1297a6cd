package transcript

import (
	"encoding/binary"
	"math"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/par"
)

// Grinding scans nonces in chunks claimed in increasing order; inside a chunk it hashes
// batches of candidate blocks base ‖ (n, 0, 0, DS_POW_NONCE) with the many-lane hasher.
const (
	grindChunk = 1 << 12
	grindBatch = 64
)

// grindSearch returns the smallest u64 nonce n with the low bits of word 0 of
// compress(base, (n, 0, 0, DS_POW_NONCE)) zero (0 < bits < 64), on the workers. The
// result does not depend on the worker count. Once the workers are stopped (their
// context is done or a chunk panicked) the search ends early and its result is
// meaningless: the caller reads workers.Err().
func grindSearch(base [4]uint64, bits int, workers par.Workers) uint64 {
	mask := uint64(1)<<bits - 1
	var next atomic.Uint64 // next chunk to claim
	var best atomic.Uint64 // smallest passing nonce found so far
	best.Store(math.MaxUint64)

	work := func(int) {
		var msgs [grindBatch * 64]byte
		var out [grindBatch]blake2s.Digest
		for i := 0; i < grindBatch; i++ {
			m := msgs[64*i : 64*i+64]
			for j := 0; j < 4; j++ {
				binary.LittleEndian.PutUint64(m[8*j:], base[j])
			}
			binary.LittleEndian.PutUint64(m[56:], dsPowNonce)
		}
		for {
			start := next.Add(1) - 1
			lo := start * grindChunk
			if start > math.MaxUint64/grindChunk || lo >= best.Load() || workers.Stopped() {
				return
			}
		chunk:
			for b := lo; b < lo+grindChunk; b += grindBatch {
				if b >= best.Load() {
					break
				}
				for i := 0; i < grindBatch; i++ {
					binary.LittleEndian.PutUint64(msgs[64*i+32:], b+uint64(i))
				}
				blake2s.SumMany(out[:], msgs[:], 64)
				for i := range out {
					if binary.LittleEndian.Uint64(out[i][:8])&mask == 0 {
						n := b + uint64(i)
						for cur := best.Load(); n < cur && !best.CompareAndSwap(cur, n); cur = best.Load() {
						}
						break chunk
					}
				}
			}
		}
	}

	workers.Run(work)
	return best.Load()
}

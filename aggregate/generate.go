package aggregate

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/internal/cachedir"
	"github.com/leanpipe/leanpipe/xmss"
)

// Generated signers (tests, examples, benchmarks). Generate(n, seed) is a pure
// function of (n, seed): signer i's key seed, the message, the epoch and each
// signature's ρ search are drawn from seed, so the same call always returns the same
// input, and the first n signers of a larger call are the n signers of a smaller one.
// Keys are made with the short activation range [epoch, epoch+1] (key generation is
// then about a third of a millisecond); signing's encoding search dominates (about
// 5 ms a signature), so generated signers are cached on disk.

// GenEpochRange is the activation range's length of generated keys.
const GenEpochRange = 2

// Cache is where generated signers are kept between runs: a directory, or "" for
// none.
type Cache string

// DefaultCache is $LEANPIPE_CACHE_DIR, else the user cache directory's leanpipe
// folder, else no cache.
func DefaultCache() Cache { return Cache(cachedir.Dir()) }

func (c Cache) path(seed uint64) string {
	if c == "" {
		return ""
	}
	return filepath.Join(string(c), fmt.Sprintf("xmss-signers-v0-%016x.json", seed))
}

// genStream returns the deterministic random stream for (seed, purpose, index).
func genStream(seed uint64, purpose string, index uint64) *rand.ChaCha8 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], seed)
	binary.LittleEndian.PutUint64(b[8:], index)
	return rand.NewChaCha8(sha256.Sum256(append([]byte("leanpipe/xmss-aggregate/generate/"+purpose+"/"), b[:]...)))
}

// genHeader returns the message and epoch of seed's signers.
func genHeader(seed uint64) (xmss.Message, uint32) {
	r := genStream(seed, "header", 0)
	var m xmss.Message
	_, _ = r.Read(m[:])
	return m, uint32(r.Uint64()%(1<<20)) + 1000
}

// Generate returns n generated signers for seed, read from the cache when it holds
// at least n of them (every cached signature is verified again), otherwise made and
// written to it (a cache that cannot be written is skipped silently).
func Generate(n int, seed uint64, cache Cache) (*Input, error) {
	if n < 1 || n > MaxSigners {
		return nil, fmt.Errorf("aggregate: generate %d signers (want 1..%d)", n, MaxSigners)
	}
	msg, epoch := genHeader(seed)
	if p := cache.path(seed); p != "" {
		if data, err := os.ReadFile(p); err == nil {
			if in, err := ParseInput(data); err == nil && in.Message == msg && in.Epoch == epoch && in.Len() >= n {
				in.Signers = in.Signers[:n]
				if in.Invalid() == nil {
					return in, nil
				}
			}
		}
	}
	in := &Input{Message: msg, Epoch: epoch, Signers: make([]Signer, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				in.Signers[i], errs[i] = genSigner(seed, i, msg, epoch)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("aggregate: generate signer %d: %w", i, err)
		}
	}
	if p := cache.path(seed); p != "" {
		if data, err := in.MarshalJSON(); err == nil && os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			_ = atomicfile.Write(p, data)
		}
	}
	return in, nil
}

// genSigner makes signer i of seed: a key over [epoch, epoch+GenEpochRange) and its
// signature on (msg, epoch), ρ searched from a stream of its own.
func genSigner(seed uint64, i int, msg xmss.Message, epoch uint32) (Signer, error) {
	var ks [xmss.SeedSize]byte
	_, _ = genStream(seed, "key", uint64(i)).Read(ks[:])
	sk, pk, err := xmss.GenerateKey(ks, epoch, epoch+GenEpochRange-1)
	if err != nil {
		return Signer{}, err
	}
	sig, err := sk.Sign(epoch, msg, genStream(seed, "rho", uint64(i)))
	if err != nil {
		return Signer{}, err
	}
	return Signer{PublicKey: pk, Signature: sig}, nil
}

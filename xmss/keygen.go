package xmss

import (
	"encoding/binary"
	"fmt"

	"github.com/leanpipe/leanpipe/blake2s"
)

// SecretKey is a signer's key for the epochs of its activation range [EpochStart, EpochEnd]:
// the seed, P and the band of real Merkle nodes (every node whose subtree contains an
// in-range epoch), about 2·R nodes for a range of R epochs.
//
// It holds no record of the epochs already signed: the scheme is stateful, and never
// signing twice at one epoch is the caller's job (docs/xmss.md §8).
type SecretKey struct {
	seed       [SeedSize]byte
	epochStart uint32
	epochEnd   uint32
	p          PublicParam
	prf        prfKeyed
	// band[ℓ][j − (epochStart >> ℓ)] = node (ℓ, j) for epochStart>>ℓ ≤ j ≤ epochEnd>>ℓ.
	band [LogLifetime + 1][]Digest
}

// MaxEpochs is the longest activation range GenerateKey accepts: the key keeps its band of
// about 2·R nodes in memory (32 bytes per epoch, 2 GiB at this bound). The reference has no
// such bound; its key holds O(√R) nodes.
const MaxEpochs = 1 << 26

// GenerateKey derives the key pair of seed for the activation range [epochStart, epochEnd]
// (inclusive; docs/xmss.md §7). The root, and so the public key, depends on the range. It costs
// about 389 compressions per epoch of the range; the leaves are hashed many lanes at a time.
func GenerateKey(seed [SeedSize]byte, epochStart, epochEnd uint32) (*SecretKey, PublicKey, error) {
	if epochStart > epochEnd {
		return nil, PublicKey{}, fmt.Errorf("%w: epoch_start %d > epoch_end %d", ErrInvalidRange, epochStart, epochEnd)
	}
	if r := uint64(epochEnd) - uint64(epochStart) + 1; r > MaxEpochs {
		return nil, PublicKey{}, fmt.Errorf("%w: %d epochs, at most %d", ErrRangeTooLarge, r, MaxEpochs)
	}
	sk := &SecretKey{seed: seed, epochStart: epochStart, epochEnd: epochEnd}
	sk.prf = newPRF(&sk.seed)
	sk.p = sk.prf.eval(domainPublicParam, 0, 0)

	r := uint64(epochEnd) - uint64(epochStart) + 1
	sk.band[0] = make([]Digest, r)
	var lb leafBuffers
	for e := uint64(0); e < r; e += leafBatch {
		n := min(leafBatch, r-e)
		sk.leaves(sk.band[0][e:e+n], epochStart+uint32(e), &lb)
	}
	sk.buildBand()
	return sk, sk.PublicKey(), nil
}

// PublicKey returns root ‖ P.
func (sk *SecretKey) PublicKey() PublicKey {
	return PublicKey{Root: sk.band[LogLifetime][0], P: sk.p}
}

// EpochStart is the first epoch of the activation range.
func (sk *SecretKey) EpochStart() uint32 { return sk.epochStart }

// EpochEnd is the last epoch of the activation range (inclusive).
func (sk *SecretKey) EpochEnd() uint32 { return sk.epochEnd }

// Seed returns the key-generation seed: with the range, all a secret key is.
func (sk *SecretKey) Seed() [SeedSize]byte { return sk.seed }

// secret returns position 0 of chain i at epoch e: PRF(seed, 1000, e, i).
func (sk *SecretKey) secret(epoch uint32, i int) Digest {
	return sk.prf.eval(domainWotsSecret, uint64(epoch), uint64(i))
}

// filler returns the out-of-band node (ℓ, j): PRF(seed, 1002, ℓ, j).
func (sk *SecretKey) filler(level int, index uint64) Digest {
	return sk.prf.eval(domainFiller, uint64(level), index)
}

// isReal reports whether node (ℓ, j) is in the band: its subtree meets the activation range.
func (sk *SecretKey) isReal(level int, index uint64) bool {
	return uint64(sk.epochStart)>>level <= index && index <= uint64(sk.epochEnd)>>level
}

// node returns node (ℓ, j) from the band, or its filler outside it.
func (sk *SecretKey) node(level int, index uint64) Digest {
	if sk.isReal(level, index) {
		return sk.band[level][index-uint64(sk.epochStart)>>level]
	}
	return sk.filler(level, index)
}

// leafBatch is the number of epochs whose chains are hashed together (42 lanes each).
const leafBatch = 64

// chainInputLen is the length of a chain step's input: tweak ‖ P ‖ x.
const chainInputLen = TweakLen + PublicParamLen + N

type leafBuffers struct {
	x     []Digest // x[V·b + i] = chain i of epoch e0+b at the current position
	src   []byte
	dst   []blake2s.Digest
	leafs []byte
}

// leaves sets dst[b] to the leaf of epoch e0+b: the 42 chains of every epoch are walked
// from their PRF secrets to position 7 in 7 rounds of len(dst)·42 lanes, then the leaves
// are hashed len(dst) lanes at a time.
func (sk *SecretKey) leaves(dst []Digest, e0 uint32, lb *leafBuffers) {
	n := len(dst)
	lanes := V * n
	if len(lb.x) < lanes {
		lb.x = make([]Digest, lanes)
		lb.src = make([]byte, lanes*chainInputLen)
		lb.dst = make([]blake2s.Digest, lanes)
		lb.leafs = make([]byte, n*leafInputLen)
	}
	x, src, out := lb.x[:lanes], lb.src[:lanes*chainInputLen], lb.dst[:lanes]
	for b := 0; b < n; b++ {
		for i := 0; i < V; i++ {
			x[V*b+i] = sk.secret(e0+uint32(b), i)
		}
	}
	for b := 0; b < n; b++ {
		for i := 0; i < V; i++ {
			m := src[(V*b+i)*chainInputLen:]
			putTweak(m, TweakChain, uint32(ChainLength*i), e0+uint32(b))
			copy(m[16:], sk.p[:])
			copy(m[32:], x[V*b+i][:])
		}
	}
	for k := 0; k < ChainLength-1; k++ {
		if k > 0 {
			// Only the sub-position 8i+k and the input change from one round to the next.
			for l := range x {
				m := src[l*chainInputLen:]
				binary.LittleEndian.PutUint32(m[1:], uint32(ChainLength*(l%V)+k))
				copy(m[32:], out[l][:N])
			}
		}
		blake2s.SumMany(out, src, chainInputLen)
	}
	for l := range x {
		x[l] = Digest(out[l][:N])
	}
	leafs := lb.leafs[:n*leafInputLen]
	for b := 0; b < n; b++ {
		putLeafInput(leafs[b*leafInputLen:], &sk.p, e0+uint32(b), (*[V]Digest)(x[V*b:V*b+V]))
	}
	blake2s.SumMany(out[:n], leafs, leafInputLen)
	for b := range dst {
		dst[b] = Digest(out[b][:N])
	}
}

// merkleInputLen is the length of a Merkle node's input: tweak ‖ P ‖ left ‖ right.
const merkleInputLen = TweakLen + PublicParamLen + 2*N

// buildBand hashes levels 1..32 of the band from band[0], a level at a time; a child outside
// the band is its filler.
func (sk *SecretKey) buildBand() {
	lo, hi := uint64(sk.epochStart), uint64(sk.epochEnd)
	var src []byte
	var out []blake2s.Digest
	for level := 1; level <= LogLifetime; level++ {
		base, top := lo>>level, hi>>level
		n := int(top - base + 1)
		if cap(out) < n {
			src = make([]byte, n*merkleInputLen)
			out = make([]blake2s.Digest, n)
		}
		src, out = src[:n*merkleInputLen], out[:n]
		for j := base; j <= top; j++ {
			m := src[int(j-base)*merkleInputLen:]
			putTweak(m, TweakMerkle, uint32(level), uint32(j))
			copy(m[16:], sk.p[:])
			l, r := sk.node(level-1, 2*j), sk.node(level-1, 2*j+1)
			copy(m[32:], l[:])
			copy(m[48:], r[:])
		}
		blake2s.SumMany(out, src, merkleInputLen)
		sk.band[level] = make([]Digest, n)
		for j := range out {
			sk.band[level][j] = Digest(out[j][:N])
		}
	}
}

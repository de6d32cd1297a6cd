package xmss

import (
	"encoding/binary"

	"github.com/leanpipe/leanpipe/blake2s"
)

// MakeTweak returns the tweak type ‖ LE32(subPosition) ‖ LE32(index) ‖ 0^7 (docs/xmss.md §2).
func MakeTweak(typ byte, subPosition, index uint32) Tweak {
	var t Tweak
	t[0] = typ
	binary.LittleEndian.PutUint32(t[1:], subPosition)
	binary.LittleEndian.PutUint32(t[5:], index)
	return t
}

// putTweak writes MakeTweak(typ, subPosition, index) to b[:16].
func putTweak(b []byte, typ byte, subPosition, index uint32) {
	b[0] = typ
	binary.LittleEndian.PutUint32(b[1:], subPosition)
	binary.LittleEndian.PutUint32(b[5:], index)
	clear(b[9:TweakLen])
}

// Th is the tweakable hash: the first 16 bytes of BLAKE2s-256(tweak ‖ P ‖ payload).
func Th(p *PublicParam, tweak Tweak, payload []byte) Digest {
	buf := make([]byte, 0, TweakLen+PublicParamLen+len(payload))
	buf = append(buf, tweak[:]...)
	buf = append(buf, p[:]...)
	buf = append(buf, payload...)
	d := blake2s.Sum256(buf)
	return Digest(d[:N])
}

// ChainStep returns position k+1 of chain i at epoch e from position k:
// Th(P, tweak(0, 8i+k, e), x).
func ChainStep(p *PublicParam, epoch uint32, i, k int, x *Digest) Digest {
	var buf [TweakLen + PublicParamLen + N]byte
	putTweak(buf[:], TweakChain, uint32(ChainLength*i+k), epoch)
	copy(buf[16:], p[:])
	copy(buf[32:], x[:])
	d := blake2s.Sum256(buf[:])
	return Digest(d[:N])
}

// walkChain returns chain i at position from+steps, starting from x at position from.
func walkChain(p *PublicParam, epoch uint32, i, from, steps int, x Digest) Digest {
	for k := from; k < from+steps; k++ {
		x = ChainStep(p, epoch, i, k, &x)
	}
	return x
}

// MerkleNode returns the parent (level, index) of left and right:
// Th(P, tweak(2, level, index), left ‖ right).
func MerkleNode(p *PublicParam, level int, index uint32, left, right *Digest) Digest {
	var buf [TweakLen + PublicParamLen + 2*N]byte
	putTweak(buf[:], TweakMerkle, uint32(level), index)
	copy(buf[16:], p[:])
	copy(buf[32:], left[:])
	copy(buf[48:], right[:])
	d := blake2s.Sum256(buf[:])
	return Digest(d[:N])
}

// leafInputLen is the length of the leaf hash's input: tweak ‖ P ‖ 42 chain ends.
const leafInputLen = TweakLen + PublicParamLen + V*N

// Leaf returns the Merkle leaf of epoch e from the 42 chain ends:
// Th(P, tweak(1, 0, e), end_0 ‖ … ‖ end_41).
func Leaf(p *PublicParam, epoch uint32, ends *[V]Digest) Digest {
	var buf [leafInputLen]byte
	putLeafInput(buf[:], p, epoch, ends)
	d := blake2s.Sum256(buf[:])
	return Digest(d[:N])
}

func putLeafInput(b []byte, p *PublicParam, epoch uint32, ends *[V]Digest) {
	putTweak(b, TweakLeaf, 0, epoch)
	copy(b[16:], p[:])
	for i := range ends {
		copy(b[32+N*i:], ends[i][:])
	}
}

// prfKeyed is the chaining value of keyed BLAKE2s-256 (key = a 32-byte seed) after its key
// block: every PRF call under one seed continues from it with a single compression.
type prfKeyed [8]uint32

// prfParam0 is the parameter word of keyed BLAKE2s-256 with a 32-byte key.
const prfParam0 = 0x01010000 ^ SeedSize<<8 ^ 32

// newPRF absorbs the zero-padded key block of seed (t = 64, not final).
func newPRF(seed *[SeedSize]byte) prfKeyed {
	h := blake2s.IV
	h[0] ^= prfParam0
	var m [16]uint32
	for i := 0; i < SeedSize/4; i++ {
		m[i] = binary.LittleEndian.Uint32(seed[4*i:])
	}
	blake2s.Compress(&h, &m, blake2s.BlockSize, 0, 0)
	return prfKeyed(h)
}

// prfMessageLen is the length of a PRF message LE32(domain) ‖ LE64(a) ‖ LE64(b).
const prfMessageLen = 20

// full returns the 32-byte keyed BLAKE2s-256 output PRF(seed, domain, a, b) before truncation.
func (k *prfKeyed) full(domain uint32, a, b uint64) [8]uint32 {
	h := [8]uint32(*k)
	var m [16]uint32
	m[0] = domain
	m[1], m[2] = uint32(a), uint32(a>>32)
	m[3], m[4] = uint32(b), uint32(b>>32)
	blake2s.Compress(&h, &m, blake2s.BlockSize+prfMessageLen, 0xFFFFFFFF, 0)
	return h
}

// eval returns PRF(seed, domain, a, b), the first 16 bytes of the keyed digest.
func (k *prfKeyed) eval(domain uint32, a, b uint64) Digest {
	h := k.full(domain, a, b)
	var d Digest
	for i := 0; i < N/4; i++ {
		binary.LittleEndian.PutUint32(d[4*i:], h[i])
	}
	return d
}

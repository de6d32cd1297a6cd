package blake2s

import "github.com/leanpipe/leanpipe/cpu"

import "fmt"

// Size is the digest length in bytes.
const Size = 32

// BlockSize is the compression block length in bytes.
const BlockSize = 64

// final is the f0 flag of a last block.
const final = 0xFFFFFFFF

// Digest is a 32-byte BLAKE2s-256 output.
type Digest = [Size]byte

// Sum256 returns the unkeyed BLAKE2s-256 digest of data.
func Sum256(data []byte) Digest {
	var d Digest
	if Kernels.Level() >= cpu.AVX2 {
		sum256AVX(&d, data)
	} else {
		sum256Generic(&d, data)
	}
	return d
}

// Node returns BLAKE2s-256(left ‖ right), the Merkle and transcript node hash.
func Node(left, right *Digest) Digest {
	var d Digest
	if Kernels.Level() >= cpu.AVX2 {
		nodeAVX(&d, left, right)
	} else {
		nodeGeneric(&d, left, right)
	}
	return d
}

// Compress applies the BLAKE2s compression function F of RFC 7693 §3.2 to the chaining
// value h in place: 10 rounds over the block m (16 little-endian words), with byte counter t
// and finalization flags f0 (0xFFFFFFFF on the last block, else 0) and f1 (last-node flag, 0
// outside tree modes).
func Compress(h *[8]uint32, m *[16]uint32, t uint64, f0, f1 uint32) {
	if Kernels.Level() >= cpu.AVX2 {
		compressAVX(h, m, t, f0, f1)
	} else {
		compressGeneric(h, m, t, f0, f1)
	}
}

// SumMany sets dst[i] = Sum256(src[i*msgLen : (i+1)*msgLen]) for every i.
// It panics unless msgLen >= 0 and len(src) == len(dst)*msgLen.
func SumMany(dst []Digest, src []byte, msgLen int) {
	if msgLen < 0 || len(src) != len(dst)*msgLen {
		panic(fmt.Sprintf("blake2s: SumMany: len(src) = %d, want %d digests × %d bytes", len(src), len(dst), msgLen))
	}
	sumMany(dst, src, msgLen, nil, 0)
}

// SumManyZeroPrefix sets dst[i] = Sum256(Z ‖ src[i*msgLen : (i+1)*msgLen]) for every i, where
// Z is zeroBlocks·64 zero bytes: the leaf hash of zero-padded rows without hashing the common
// all-zero blocks once per message (their chaining value is computed once per call).
// It panics unless msgLen >= 0, zeroBlocks >= 0 and len(src) == len(dst)*msgLen.
func SumManyZeroPrefix(dst []Digest, src []byte, msgLen, zeroBlocks int) {
	if msgLen < 0 || zeroBlocks < 0 || len(src) != len(dst)*msgLen {
		panic(fmt.Sprintf("blake2s: SumManyZeroPrefix: len(src) = %d, want %d digests × %d bytes (zero blocks %d)", len(src), len(dst), msgLen, zeroBlocks))
	}
	if zeroBlocks == 0 || len(dst) == 0 {
		sumMany(dst, src, msgLen, nil, 0)
		return
	}
	// The prefix's chaining value; when the messages are empty, the last zero block is the
	// final block and every digest is the same.
	h := initState()
	var zero [16]uint32
	absorb := zeroBlocks
	if msgLen == 0 {
		absorb--
	}
	for b := 0; b < absorb; b++ {
		Compress(&h, &zero, uint64(BlockSize*(b+1)), 0, 0)
	}
	if msgLen == 0 {
		Compress(&h, &zero, uint64(BlockSize*zeroBlocks), final, 0)
		var d Digest
		storeDigest(&d, &h)
		for i := range dst {
			dst[i] = d
		}
		return
	}
	sumMany(dst, src, msgLen, &h, uint64(BlockSize*zeroBlocks))
}

// sumMany is SumMany continuing every message from the chaining value h0 after t0 bytes
// (h0 = nil: the initial value, t0 = 0). With h0 ≠ nil, msgLen must be positive.
func sumMany(dst []Digest, src []byte, msgLen int, h0 *[8]uint32, t0 uint64) {
	n := len(dst)
	i := 0
	if Kernels.Level() >= cpu.AVX512VPCLMUL {
		var h16 *[8][16]uint32
		var hb [8][16]uint32
		if h0 != nil {
			for j := range hb {
				for k := range hb[j] {
					hb[j][k] = h0[j]
				}
			}
			h16 = &hb
		}
		for ; i+16 <= n; i += 16 {
			sum16AVX512((*[16]Digest)(dst[i:i+16]), h16, t0, src[i*msgLen:(i+16)*msgLen], msgLen)
		}
	}
	if Kernels.Level() >= cpu.AVX2 && i+8 <= n {
		var h8 *[8][8]uint32
		var hb [8][8]uint32
		if h0 != nil {
			for j := range hb {
				for k := range hb[j] {
					hb[j][k] = h0[j]
				}
			}
			h8 = &hb
		}
		for ; i+8 <= n; i += 8 {
			sum8AVX2((*[8]Digest)(dst[i:i+8]), h8, t0, src[i*msgLen:(i+8)*msgLen], msgLen)
		}
	}
	for ; i < n; i++ {
		h := initState()
		if h0 != nil {
			h = *h0
		}
		if Kernels.Level() >= cpu.AVX2 {
			sumFromAVX(&dst[i], &h, t0, src[i*msgLen:(i+1)*msgLen])
		} else {
			sumFromGeneric(&dst[i], &h, t0, src[i*msgLen:(i+1)*msgLen])
		}
	}
}

// NodeMany sets dst[i] = Node(&children[2i], &children[2i+1]) for every i.
// dst may alias children[:len(dst)], so a Merkle layer can be folded in place.
// It panics unless len(children) == 2*len(dst).
func NodeMany(dst []Digest, children []Digest) {
	if len(children) != 2*len(dst) {
		panic(fmt.Sprintf("blake2s: NodeMany: len(children) = %d, want 2 × %d", len(children), len(dst)))
	}
	n := len(dst)
	i := 0
	if Kernels.Level() >= cpu.AVX512VPCLMUL {
		for ; i+16 <= n; i += 16 {
			node16AVX512((*[16]Digest)(dst[i:i+16]), (*[32]Digest)(children[2*i:2*i+32]))
		}
	}
	if Kernels.Level() >= cpu.AVX2 {
		for ; i+8 <= n; i += 8 {
			node8AVX2((*[8]Digest)(dst[i:i+8]), (*[16]Digest)(children[2*i:2*i+16]))
		}
	}
	for ; i < n; i++ {
		if Kernels.Level() >= cpu.AVX2 {
			nodeAVX(&dst[i], &children[2*i], &children[2*i+1])
		} else {
			nodeGeneric(&dst[i], &children[2*i], &children[2*i+1])
		}
	}
}

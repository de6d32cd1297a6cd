package blake2s

import "fmt"

// Size is the digest length in bytes.
const Size = 32

// BlockSize is the compression block length in bytes.
const BlockSize = 64

// Digest is a 32-byte BLAKE2s-256 output.
type Digest = [Size]byte

// Sum256 returns the unkeyed BLAKE2s-256 digest of data.
func Sum256(data []byte) Digest {
	var d Digest
	if level >= levelAVX2 {
		sum256AVX(&d, data)
	} else {
		sum256Generic(&d, data)
	}
	return d
}

// Node returns BLAKE2s-256(left ‖ right), the Merkle and transcript node hash.
func Node(left, right *Digest) Digest {
	var d Digest
	if level >= levelAVX2 {
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
	if level >= levelAVX2 {
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
	n := len(dst)
	i := 0
	if level >= levelAVX2 {
		for ; i+8 <= n; i += 8 {
			sum8AVX2((*[8]Digest)(dst[i:i+8]), src[i*msgLen:(i+8)*msgLen], msgLen)
		}
	}
	for ; i < n; i++ {
		if level >= levelAVX2 {
			sum256AVX(&dst[i], src[i*msgLen:(i+1)*msgLen])
		} else {
			sum256Generic(&dst[i], src[i*msgLen:(i+1)*msgLen])
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
	if level >= levelAVX2 {
		for ; i+8 <= n; i += 8 {
			node8AVX2((*[8]Digest)(dst[i:i+8]), (*[16]Digest)(children[2*i:2*i+16]))
		}
	}
	for ; i < n; i++ {
		if level >= levelAVX2 {
			nodeAVX(&dst[i], &children[2*i], &children[2*i+1])
		} else {
			nodeGeneric(&dst[i], &children[2*i], &children[2*i+1])
		}
	}
}

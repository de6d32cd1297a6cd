package blake2s

import (
	"encoding/binary"
	"math/bits"
)

// iv is the BLAKE2s initialization vector (RFC 7693 §2.6), the first 32 bits of the
// fractional parts of the square roots of the first eight primes.
var iv = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// param0 is the first parameter-block word for an unkeyed 32-byte digest:
// digest length 32, key length 0, fanout 1, depth 1.
const param0 = 0x01010020

// sigma is the message schedule of RFC 7693 §2.7.
var sigma = [10][16]uint8{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
}

// compressGeneric is the portable compression function F.
func compressGeneric(h *[8]uint32, m *[16]uint32, t uint64, f0, f1 uint32) {
	v0, v1, v2, v3 := h[0], h[1], h[2], h[3]
	v4, v5, v6, v7 := h[4], h[5], h[6], h[7]
	v8, v9, v10, v11 := iv[0], iv[1], iv[2], iv[3]
	v12, v13 := iv[4]^uint32(t), iv[5]^uint32(t>>32)
	v14, v15 := iv[6]^f0, iv[7]^f1

	for r := range sigma {
		s := &sigma[r]

		v0 += v4 + m[s[0]&15]
		v12 = bits.RotateLeft32(v12^v0, -16)
		v8 += v12
		v4 = bits.RotateLeft32(v4^v8, -12)
		v0 += v4 + m[s[1]&15]
		v12 = bits.RotateLeft32(v12^v0, -8)
		v8 += v12
		v4 = bits.RotateLeft32(v4^v8, -7)

		v1 += v5 + m[s[2]&15]
		v13 = bits.RotateLeft32(v13^v1, -16)
		v9 += v13
		v5 = bits.RotateLeft32(v5^v9, -12)
		v1 += v5 + m[s[3]&15]
		v13 = bits.RotateLeft32(v13^v1, -8)
		v9 += v13
		v5 = bits.RotateLeft32(v5^v9, -7)

		v2 += v6 + m[s[4]&15]
		v14 = bits.RotateLeft32(v14^v2, -16)
		v10 += v14
		v6 = bits.RotateLeft32(v6^v10, -12)
		v2 += v6 + m[s[5]&15]
		v14 = bits.RotateLeft32(v14^v2, -8)
		v10 += v14
		v6 = bits.RotateLeft32(v6^v10, -7)

		v3 += v7 + m[s[6]&15]
		v15 = bits.RotateLeft32(v15^v3, -16)
		v11 += v15
		v7 = bits.RotateLeft32(v7^v11, -12)
		v3 += v7 + m[s[7]&15]
		v15 = bits.RotateLeft32(v15^v3, -8)
		v11 += v15
		v7 = bits.RotateLeft32(v7^v11, -7)

		v0 += v5 + m[s[8]&15]
		v15 = bits.RotateLeft32(v15^v0, -16)
		v10 += v15
		v5 = bits.RotateLeft32(v5^v10, -12)
		v0 += v5 + m[s[9]&15]
		v15 = bits.RotateLeft32(v15^v0, -8)
		v10 += v15
		v5 = bits.RotateLeft32(v5^v10, -7)

		v1 += v6 + m[s[10]&15]
		v12 = bits.RotateLeft32(v12^v1, -16)
		v11 += v12
		v6 = bits.RotateLeft32(v6^v11, -12)
		v1 += v6 + m[s[11]&15]
		v12 = bits.RotateLeft32(v12^v1, -8)
		v11 += v12
		v6 = bits.RotateLeft32(v6^v11, -7)

		v2 += v7 + m[s[12]&15]
		v13 = bits.RotateLeft32(v13^v2, -16)
		v8 += v13
		v7 = bits.RotateLeft32(v7^v8, -12)
		v2 += v7 + m[s[13]&15]
		v13 = bits.RotateLeft32(v13^v2, -8)
		v8 += v13
		v7 = bits.RotateLeft32(v7^v8, -7)

		v3 += v4 + m[s[14]&15]
		v14 = bits.RotateLeft32(v14^v3, -16)
		v9 += v14
		v4 = bits.RotateLeft32(v4^v9, -12)
		v3 += v4 + m[s[15]&15]
		v14 = bits.RotateLeft32(v14^v3, -8)
		v9 += v14
		v4 = bits.RotateLeft32(v4^v9, -7)
	}

	h[0] ^= v0 ^ v8
	h[1] ^= v1 ^ v9
	h[2] ^= v2 ^ v10
	h[3] ^= v3 ^ v11
	h[4] ^= v4 ^ v12
	h[5] ^= v5 ^ v13
	h[6] ^= v6 ^ v14
	h[7] ^= v7 ^ v15
}

// initState returns the chaining value of an unkeyed 32-byte BLAKE2s before the first block.
func initState() [8]uint32 {
	h := iv
	h[0] ^= param0
	return h
}

// loadBlock reads a 64-byte block as 16 little-endian words.
func loadBlock(m *[16]uint32, p *[BlockSize]byte) {
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(p[4*i:])
	}
}

// storeDigest writes the chaining value as a little-endian digest.
func storeDigest(d *Digest, h *[8]uint32) {
	for i, w := range h {
		binary.LittleEndian.PutUint32(d[4*i:], w)
	}
}

// sum256Generic writes the BLAKE2s-256 digest of data to d on the portable path.
func sum256Generic(d *Digest, data []byte) {
	h := initState()
	var m [16]uint32
	var t uint64
	// Every block but the last is compressed without the final flag; the last block
	// (possibly partial, zero-padded, or an all-zero block when data is empty) with it.
	for len(data) > BlockSize {
		loadBlock(&m, (*[BlockSize]byte)(data[:BlockSize]))
		t += BlockSize
		compressGeneric(&h, &m, t, 0, 0)
		data = data[BlockSize:]
	}
	var last [BlockSize]byte
	copy(last[:], data)
	t += uint64(len(data))
	loadBlock(&m, &last)
	compressGeneric(&h, &m, t, 0xFFFFFFFF, 0)
	storeDigest(d, &h)
}

// nodeGeneric writes BLAKE2s-256(left ‖ right) to d on the portable path.
func nodeGeneric(d *Digest, left, right *Digest) {
	h := initState()
	var m [16]uint32
	for i := 0; i < 8; i++ {
		m[i] = binary.LittleEndian.Uint32(left[4*i:])
		m[8+i] = binary.LittleEndian.Uint32(right[4*i:])
	}
	compressGeneric(&h, &m, BlockSize, 0xFFFFFFFF, 0)
	storeDigest(d, &h)
}

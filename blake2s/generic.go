package blake2s

//go:generate go run ./_gen

import (
	"encoding/binary"
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

// sigma is the message schedule of RFC 7693 §2.7 (compress_generic.go resolves it at
// generation time; _gen/main.go holds the same table).
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

// IV and Sigma are copies of the initialization vector and the message schedule,
// for code that models the compression function (the circuit); changing them does
// not change the hash.
var (
	IV    = iv
	Sigma = sigma
)

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
	sumFromGeneric(d, &h, 0, data)
}

// sumFromGeneric finishes a message on the portable path: h is the chaining value after the
// first t bytes (a multiple of 64), data the rest (non-empty when t > 0). h is clobbered.
func sumFromGeneric(d *Digest, h *[8]uint32, t uint64, data []byte) {
	var m [16]uint32
	// Every block but the last is compressed without the final flag; the last block
	// (possibly partial, zero-padded, or an all-zero block when data is empty) with it.
	for len(data) > BlockSize {
		loadBlock(&m, (*[BlockSize]byte)(data[:BlockSize]))
		t += BlockSize
		compressGeneric(h, &m, t, 0, 0)
		data = data[BlockSize:]
	}
	var last [BlockSize]byte
	copy(last[:], data)
	t += uint64(len(data))
	loadBlock(&m, &last)
	compressGeneric(h, &m, t, 0xFFFFFFFF, 0)
	storeDigest(d, h)
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

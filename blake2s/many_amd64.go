//go:build amd64 && !purego

package blake2s

import "encoding/binary"

// blocks8 is the 8-lane AVX2 kernel (many_amd64.s); see its comment for the contract.
//
//go:noescape
func blocks8(h *[8][8]uint32, src *byte, stride uintptr, nblocks uintptr, t uint64, f0 uint32)

// initState8 returns the transposed initial chaining values of 8 lanes.
func initState8() (h [8][8]uint32) {
	h0 := initState()
	for j := range h {
		for i := range h[j] {
			h[j][i] = h0[j]
		}
	}
	return h
}

// storeDigests8 writes the 8 transposed chaining values as digests.
func storeDigests8(dst *[8]Digest, h *[8][8]uint32) {
	for i := range dst {
		d := &dst[i]
		for j := range h {
			binary.LittleEndian.PutUint32(d[4*j:], h[j][i])
		}
	}
}

// sum8AVX2 hashes 8 messages of msgLen bytes each, src = m0 ‖ … ‖ m7.
func sum8AVX2(dst *[8]Digest, src []byte, msgLen int) {
	h := initState8()
	full := msgLen / BlockSize
	if msgLen%BlockSize == 0 && full > 0 {
		blocks8(&h, &src[0], uintptr(msgLen), uintptr(full), BlockSize, 0xFFFFFFFF)
	} else {
		// Every whole block but a partial (or, for msgLen = 0, empty) last one goes straight
		// from src; the last is zero-padded into tail and carries the true length as counter.
		if full > 0 {
			blocks8(&h, &src[0], uintptr(msgLen), uintptr(full), BlockSize, 0)
		}
		var tail [8 * BlockSize]byte
		for i := 0; i < 8; i++ {
			copy(tail[i*BlockSize:], src[i*msgLen+full*BlockSize:(i+1)*msgLen])
		}
		blocks8(&h, &tail[0], BlockSize, 1, uint64(msgLen), 0xFFFFFFFF)
	}
	storeDigests8(dst, &h)
}

// node8AVX2 computes dst[i] = Node(children[2i], children[2i+1]) for i < 8.
func node8AVX2(dst *[8]Digest, children *[16]Digest) {
	h := initState8()
	blocks8(&h, &children[0][0], 2*Size, 1, BlockSize, 0xFFFFFFFF)
	storeDigests8(dst, &h)
}

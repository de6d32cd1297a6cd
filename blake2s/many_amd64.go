//go:build amd64 && !purego

package blake2s

// hash8 is the 8-lane AVX2 kernel (blake2s_amd64.s); see its comment for the contract.
//
//go:noescape
func hash8(dst *[8]Digest, h *[8][8]uint32, src *byte, stride, nblocks uintptr, t uint64, f0, fresh uint32)

// sum8AVX2 hashes 8 messages of msgLen bytes each, src = m0 ‖ … ‖ m7, continuing from the
// transposed chaining values h0 after t0 bytes (h0 = nil: the initial value, t0 = 0; with
// h0 ≠ nil, msgLen must be positive). h0 is not modified.
func sum8AVX2(dst *[8]Digest, h0 *[8][8]uint32, t0 uint64, src []byte, msgLen int) {
	fresh := uint32(1)
	if h0 != nil {
		fresh = 0
	}
	full := msgLen / BlockSize
	if msgLen%BlockSize == 0 && full > 0 {
		hash8(dst, h0, &src[0], uintptr(msgLen), uintptr(full), t0+BlockSize, final, fresh)
		return
	}
	// Every whole block goes straight from src; the partial (or, for msgLen = 0, empty) last
	// block is zero-padded into tail and carries the true length as its counter.
	var h [8][8]uint32
	if h0 != nil {
		h = *h0
	}
	if full > 0 {
		hash8(nil, &h, &src[0], uintptr(msgLen), uintptr(full), t0+BlockSize, 0, fresh)
		fresh = 0
	}
	var tail [8 * BlockSize]byte
	for i := 0; i < 8; i++ {
		copy(tail[i*BlockSize:], src[i*msgLen+full*BlockSize:(i+1)*msgLen])
	}
	hash8(dst, &h, &tail[0], BlockSize, 1, t0+uint64(msgLen), final, fresh)
}

// node8AVX2 computes dst[i] = Node(children[2i], children[2i+1]) for i < 8.
func node8AVX2(dst *[8]Digest, children *[16]Digest) {
	hash8(dst, nil, &children[0][0], 2*Size, 1, BlockSize, final, 1)
}

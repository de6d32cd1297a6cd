//go:build amd64 && !purego

package blake2s

// hash16 is the 16-lane AVX-512 kernel (many16_amd64.s); see its comment for the contract.
// dst, h and src need no alignment; src must cover 16 lanes of nblocks blocks at stride.
//
//go:noescape
func hash16(dst *[16]Digest, h *[8][16]uint32, src *byte, stride, nblocks uintptr, t uint64, f0, fresh uint32)

// sum16AVX512 hashes 16 messages of msgLen bytes each, src = m0 ‖ … ‖ m15, continuing from
// the transposed chaining values h0 after t0 bytes (h0 = nil: the initial value, t0 = 0;
// with h0 ≠ nil, msgLen must be positive). h0 is not modified.
func sum16AVX512(dst *[16]Digest, h0 *[8][16]uint32, t0 uint64, src []byte, msgLen int) {
	_ = src[:16*msgLen]
	fresh := uint32(1)
	if h0 != nil {
		fresh = 0
	}
	full := msgLen / BlockSize
	if msgLen%BlockSize == 0 && full > 0 {
		hash16(dst, h0, &src[0], uintptr(msgLen), uintptr(full), t0+BlockSize, final, fresh)
		return
	}
	// Every whole block goes straight from src; the partial (or, for msgLen = 0, empty) last
	// block is zero-padded into tail and carries the true length as its counter.
	var h [8][16]uint32
	if h0 != nil {
		h = *h0
	}
	if full > 0 {
		hash16(nil, &h, &src[0], uintptr(msgLen), uintptr(full), t0+BlockSize, 0, fresh)
		fresh = 0
	}
	var tail [16 * BlockSize]byte
	for i := 0; i < 16; i++ {
		copy(tail[i*BlockSize:], src[i*msgLen+full*BlockSize:(i+1)*msgLen])
	}
	hash16(dst, &h, &tail[0], BlockSize, 1, t0+uint64(msgLen), final, fresh)
}

// node16AVX512 computes dst[i] = Node(children[2i], children[2i+1]) for i < 16.
func node16AVX512(dst *[16]Digest, children *[32]Digest) {
	hash16(dst, nil, &children[0][0], 2*Size, 1, BlockSize, final, 1)
}

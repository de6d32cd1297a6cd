//go:build amd64 && !purego

package blake2s

import "unsafe"

// compress1 is the single-message AVX kernel (blake2s_amd64.s); see its comment for the contract.
//
//go:noescape
func compress1(h *[8]uint32, src *byte, nblocks uintptr, t uint64, f0, f1 uint32)

func compressAVX(h *[8]uint32, m *[16]uint32, t uint64, f0, f1 uint32) {
	// On amd64 (little-endian) the 16 words are the block's 64 bytes.
	compress1(h, (*byte)(unsafe.Pointer(m)), 1, t, f0, f1)
}

func sum256AVX(d *Digest, data []byte) {
	h := initState()
	sumFromAVX(d, &h, 0, data)
}

// sumFromAVX is sumFromGeneric with the single-message kernel.
func sumFromAVX(d *Digest, h *[8]uint32, t uint64, data []byte) {
	full := len(data) / BlockSize
	if len(data)%BlockSize == 0 && full > 0 {
		compress1(h, &data[0], uintptr(full), t+BlockSize, final, 0)
	} else {
		if full > 0 {
			compress1(h, &data[0], uintptr(full), t+BlockSize, 0, 0)
		}
		var last [BlockSize]byte
		copy(last[:], data[full*BlockSize:])
		compress1(h, &last[0], 1, t+uint64(len(data)), final, 0)
	}
	storeDigest(d, h)
}

func nodeAVX(d *Digest, left, right *Digest) {
	var buf [BlockSize]byte
	copy(buf[:Size], left[:])
	copy(buf[Size:], right[:])
	h := initState()
	compress1(&h, &buf[0], 1, BlockSize, final, 0)
	storeDigest(d, &h)
}

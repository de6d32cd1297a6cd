//go:build !amd64 || purego

package blake2s

import "github.com/leanpipe/leanpipe/cpu"

// archLevels is empty: without assembly only the portable kernels exist.
var archLevels []cpu.Level

// The AVX2-level kernels are never called in this build: Kernels implements no level above portable.
func sum8AVX2(dst *[8]Digest, h0 *[8][8]uint32, t0 uint64, src []byte, msgLen int) {
	panic("blake2s: no AVX2 in this build")
}

func node8AVX2(dst *[8]Digest, children *[16]Digest) { panic("blake2s: no AVX2 in this build") }

// The AVX-512-level kernels are never called in this build either.
func sum16AVX512(dst *[16]Digest, h0 *[8][16]uint32, t0 uint64, src []byte, msgLen int) {
	panic("blake2s: no AVX-512 in this build")
}

func node16AVX512(dst *[16]Digest, children *[32]Digest) { panic("blake2s: no AVX-512 in this build") }

func compressAVX(h *[8]uint32, m *[16]uint32, t uint64, f0, f1 uint32) {
	panic("blake2s: no AVX in this build")
}

func sum256AVX(d *Digest, data []byte) { panic("blake2s: no AVX in this build") }

func sumFromAVX(d *Digest, h *[8]uint32, t uint64, data []byte) {
	panic("blake2s: no AVX in this build")
}

func nodeAVX(d *Digest, left, right *Digest) { panic("blake2s: no AVX in this build") }

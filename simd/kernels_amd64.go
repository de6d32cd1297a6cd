//go:build !purego

package simd

import "github.com/klauspost/cpuid/v2"

func detect() Level {
	switch {
	case cpuid.CPU.Supports(cpuid.AVX2, cpuid.VPCLMULQDQ, cpuid.CLMUL):
		return AVX2VPCLMUL
	case cpuid.CPU.Supports(cpuid.CLMUL):
		return PCLMUL
	}
	return Generic
}

// Scalar kernels; they need PCLMULQDQ (SSE2 is part of amd64).

//go:noescape
func mulKPCLMUL(a, b uint64) uint64

//go:noescape
func mulEPCLMUL(dst, a, b *[3]uint64)

func mulKArch(a, b uint64) uint64   { return mulKPCLMUL(a, b) }
func mulEArch(dst, a, b *[3]uint64) { mulEPCLMUL(dst, a, b) }

// The *Arch hooks process a prefix of the vectors with the active level's kernel and
// return how many elements they did; the caller finishes with the portable twin.

func mulKKArch(dst, a, b []uint64) int {
	if level < PCLMUL {
		return 0
	}
	for i := range dst {
		dst[i] = mulKPCLMUL(a[i], b[i])
	}
	return len(dst)
}

func mulEKArch(dst, a, b []uint64) int {
	if level < PCLMUL {
		return 0
	}
	for i, k := range b {
		dst[3*i] = mulKPCLMUL(a[3*i], k)
		dst[3*i+1] = mulKPCLMUL(a[3*i+1], k)
		dst[3*i+2] = mulKPCLMUL(a[3*i+2], k)
	}
	return len(b)
}

func scaleEKArch(dst, a []uint64, s uint64) int {
	if level < PCLMUL {
		return 0
	}
	for i := range dst {
		dst[i] = mulKPCLMUL(a[i], s)
	}
	return len(dst) / 3
}

func mulEEArch(dst, a, b []uint64) int {
	if level < PCLMUL {
		return 0
	}
	for i := 0; i < len(dst); i += 3 {
		mulEPCLMUL((*[3]uint64)(dst[i:]), (*[3]uint64)(a[i:]), (*[3]uint64)(b[i:]))
	}
	return len(dst) / 3
}

func scaleEArch(dst, a []uint64, s *[3]uint64) int {
	if level < PCLMUL {
		return 0
	}
	for i := 0; i < len(dst); i += 3 {
		mulEPCLMUL((*[3]uint64)(dst[i:]), (*[3]uint64)(a[i:]), s)
	}
	return len(dst) / 3
}

func axpyEArch(dst, src []uint64, s *[3]uint64) int {
	if level < PCLMUL {
		return 0
	}
	var t [3]uint64
	for i := 0; i < len(dst); i += 3 {
		mulEPCLMUL(&t, (*[3]uint64)(src[i:]), s)
		dst[i] ^= t[0]
		dst[i+1] ^= t[1]
		dst[i+2] ^= t[2]
	}
	return len(dst) / 3
}

func axpyKEArch(dst, src []uint64, s *[3]uint64) int {
	if level < PCLMUL {
		return 0
	}
	for i, k := range src {
		dst[3*i] ^= mulKPCLMUL(k, s[0])
		dst[3*i+1] ^= mulKPCLMUL(k, s[1])
		dst[3*i+2] ^= mulKPCLMUL(k, s[2])
	}
	return len(src)
}

func dotKEArch(a, b []uint64) [3]uint64 {
	if level < PCLMUL {
		return dotKEGeneric(a, b)
	}
	var out [3]uint64
	for i, k := range a {
		out[0] ^= mulKPCLMUL(k, b[3*i])
		out[1] ^= mulKPCLMUL(k, b[3*i+1])
		out[2] ^= mulKPCLMUL(k, b[3*i+2])
	}
	return out
}

func dotEEArch(a, b []uint64) [3]uint64 {
	if level < PCLMUL {
		return dotEEGeneric(a, b)
	}
	var out, t [3]uint64
	for i := 0; i < len(a); i += 3 {
		mulEPCLMUL(&t, (*[3]uint64)(a[i:]), (*[3]uint64)(b[i:]))
		out[0] ^= t[0]
		out[1] ^= t[1]
		out[2] ^= t[2]
	}
	return out
}

func foldEArch(dst, a, b []uint64, r *[3]uint64) int {
	if level < PCLMUL {
		return 0
	}
	var d [3]uint64
	for i := 0; i < len(dst); i += 3 {
		a0, a1, a2 := a[i], a[i+1], a[i+2]
		d = [3]uint64{a0 ^ b[i], a1 ^ b[i+1], a2 ^ b[i+2]}
		mulEPCLMUL(&d, &d, r)
		dst[i], dst[i+1], dst[i+2] = a0^d[0], a1^d[1], a2^d[2]
	}
	return len(dst) / 3
}

func foldPairsEArch(dst, src []uint64, r *[3]uint64) int {
	if level < PCLMUL {
		return 0
	}
	var d [3]uint64
	for i := 0; i < len(dst); i += 3 {
		j := 2 * i
		a0, a1, a2 := src[j], src[j+1], src[j+2]
		d = [3]uint64{a0 ^ src[j+3], a1 ^ src[j+4], a2 ^ src[j+5]}
		mulEPCLMUL(&d, &d, r)
		dst[i], dst[i+1], dst[i+2] = a0^d[0], a1^d[1], a2^d[2]
	}
	return len(dst) / 3
}

func foldKArch(dst, a, b []uint64, r *[3]uint64) int {
	if level < PCLMUL {
		return 0
	}
	for i, k := range a {
		d := k ^ b[i]
		dst[3*i] = k ^ mulKPCLMUL(d, r[0])
		dst[3*i+1] = mulKPCLMUL(d, r[1])
		dst[3*i+2] = mulKPCLMUL(d, r[2])
	}
	return len(a)
}

func foldPairsKArch(dst, src []uint64, r *[3]uint64) int {
	if level < PCLMUL {
		return 0
	}
	n := len(src) / 2
	for i := range n {
		k := src[2*i]
		d := k ^ src[2*i+1]
		dst[3*i] = k ^ mulKPCLMUL(d, r[0])
		dst[3*i+1] = mulKPCLMUL(d, r[1])
		dst[3*i+2] = mulKPCLMUL(d, r[2])
	}
	return n
}

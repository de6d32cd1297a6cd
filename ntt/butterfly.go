package ntt

import (
	"github.com/klauspost/cpuid/v2"

	"github.com/leanpipe/leanpipe/field"
)

// Kernel levels. The level in use is chosen once, in detectLevel; tests force each.
const (
	levelGeneric = iota // portable Go
	levelVPCLMUL        // amd64 AVX2 + VPCLMULQDQ (ymm)
)

// kernelLevel is the dispatch level of the butterfly kernels.
var kernelLevel = detectLevel()

// detectLevel is the one place the CPU features are read.
func detectLevel() int {
	if haveAsm && cpuid.CPU.Supports(cpuid.AVX2, cpuid.VPCLMULQDQ, cpuid.CLMUL) {
		return levelVPCLMUL
	}
	return levelGeneric
}

// KernelName names the butterfly kernels in use, for version output and logs.
func KernelName() string {
	if kernelLevel == levelVPCLMUL {
		return "avx2+vpclmulqdq"
	}
	return "generic"
}

// fwd applies the forward butterfly u ← u + λ·v, v ← v + u word by word
// (len(u) == len(v)).
func fwd(u, v []uint64, lambda uint64) {
	if kernelLevel == levelVPCLMUL {
		fwdAsm(u, v, lambda)
		return
	}
	fwdGeneric(u, v, lambda)
}

// inv applies the inverse butterfly v ← v + u, u ← u + λ·v word by word.
func inv(u, v []uint64, lambda uint64) {
	if kernelLevel == levelVPCLMUL {
		invAsm(u, v, lambda)
		return
	}
	invGeneric(u, v, lambda)
}

func fwdGeneric(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	if lambda == 0 {
		for i := range u {
			v[i] ^= u[i]
		}
		return
	}
	l := field.K(lambda)
	for i := range u {
		y := v[i]
		x := u[i] ^ uint64(field.K(y).Mul(l))
		u[i] = x
		v[i] = y ^ x
	}
}

func invGeneric(u, v []uint64, lambda uint64) {
	v = v[:len(u)]
	if lambda == 0 {
		for i := range u {
			v[i] ^= u[i]
		}
		return
	}
	l := field.K(lambda)
	for i := range u {
		y := v[i] ^ u[i]
		v[i] = y
		u[i] ^= uint64(field.K(y).Mul(l))
	}
}

//go:build amd64 && !purego

package cpu

import "github.com/klauspost/cpuid/v2"

func detect() Level {
	c := cpuid.CPU
	l := Portable
	if !c.Supports(cpuid.SSE2, cpuid.CLMUL) {
		return l
	}
	l = PCLMUL
	if !c.Supports(cpuid.AVX, cpuid.AVX2) {
		return l
	}
	l = AVX2
	if !c.Supports(cpuid.VPCLMULQDQ) {
		return l
	}
	l = AVX2VPCLMUL
	if !c.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL) {
		return l
	}
	l = AVX512VPCLMUL
	if !c.Supports(cpuid.GFNI, cpuid.AVX512VBMI) {
		return l
	}
	return AVX512GFNI
}

//go:build amd64 && !purego

package blake2s

import "github.com/klauspost/cpuid/v2"

func detectLevel() impl {
	if cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2) {
		return levelAVX2
	}
	return levelGeneric
}

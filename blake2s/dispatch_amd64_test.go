//go:build amd64 && !purego

package blake2s

import (
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// On an AVX2 machine the avx2 level must be selected, so the level tests really run the kernels.
func TestDetectAVX2(t *testing.T) {
	if cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2) != (detected == levelAVX2) {
		t.Fatalf("CPU AVX2 = %v, detected level %s", cpuid.CPU.Supports(cpuid.AVX2), levelNames[detected])
	}
	t.Logf("detected level %s", Implementation())
}

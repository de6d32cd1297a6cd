//go:build amd64 && !purego

package blake2s

import (
	"testing"

	"github.com/klauspost/cpuid/v2"

	"github.com/leanpipe/leanpipe/cpu"
)

// On an AVX2 (AVX-512) machine with no cap the avx2 (avx512-vpclmul) level must be in use,
// so the level tests really run the kernels.
func TestDetectAVX2(t *testing.T) {
	has := cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.CLMUL)
	has512 := has && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.VPCLMULQDQ)
	switch {
	case has512 && cpu.Detected() >= cpu.AVX512VPCLMUL:
		if Kernels.Level() != cpu.AVX512VPCLMUL {
			t.Fatalf("CPU has AVX-512 and the cap allows it, but blake2s runs %v", Kernels.Level())
		}
	case has && cpu.Detected() >= cpu.AVX2:
		if Kernels.Level() != cpu.AVX2 {
			t.Fatalf("CPU has AVX2 and the cap allows it, but blake2s runs %v", Kernels.Level())
		}
	case !has:
		if Kernels.Level() != cpu.Portable {
			t.Fatalf("no AVX2 on this CPU, but blake2s runs %v", Kernels.Level())
		}
	}
	t.Logf("blake2s level %v", Kernels.Level())
}

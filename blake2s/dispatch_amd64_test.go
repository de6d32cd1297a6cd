//go:build amd64 && !purego

package blake2s

import (
	"testing"

	"github.com/klauspost/cpuid/v2"

	"github.com/leanpipe/leanpipe/cpu"
)

// On an AVX2 machine with no cap the avx2 level must be in use, so the level tests
// really run the kernels.
func TestDetectAVX2(t *testing.T) {
	has := cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.CLMUL)
	if has && cpu.Detected() >= cpu.AVX2 && Kernels.Level() != cpu.AVX2 {
		t.Fatalf("CPU has AVX2 and the cap allows it, but blake2s runs %v", Kernels.Level())
	}
	if !has && Kernels.Level() != cpu.Portable {
		t.Fatalf("no AVX2 on this CPU, but blake2s runs %v", Kernels.Level())
	}
	t.Logf("blake2s level %v", Kernels.Level())
}

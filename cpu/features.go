package cpu

import "github.com/klauspost/cpuid/v2"

// Features lists the CPU features the levels are built from that this CPU has, in
// level order (for version output); a purego build lists them too, though it runs
// none of them.
func Features() []string {
	var out []string
	for _, f := range []struct {
		name string
		id   cpuid.FeatureID
	}{
		{"pclmulqdq", cpuid.CLMUL}, {"avx2", cpuid.AVX2}, {"vpclmulqdq", cpuid.VPCLMULQDQ},
		{"avx512f", cpuid.AVX512F}, {"avx512bw", cpuid.AVX512BW}, {"avx512vl", cpuid.AVX512VL},
		{"gfni", cpuid.GFNI},
	} {
		if cpuid.CPU.Supports(f.id) {
			out = append(out, f.name)
		}
	}
	return out
}

// Brand is the CPU's model name.
func Brand() string { return cpuid.CPU.BrandName }

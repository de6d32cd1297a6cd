//go:build !purego

package zerocheck

import "github.com/leanpipe/leanpipe/simd"

// extend3AVX2 writes the coset planes of a, b and c (see skipDomain.extend) with
// AVX2 loads and XORs. tab and out need no alignment.
//
//go:noescape
func extend3AVX2(tab *[8][256][8]uint64, a, b, c uint64, out *[3][8]uint64)

// useAVX2 reports whether the AVX2 kernels run; simd's level (detected once from
// cpuid, lowered by tests) decides.
func useAVX2() bool { return simd.Active() >= simd.AVX2VPCLMUL }

func (d *skipDomain) extend3(a, b, c uint64, out *[3][8]uint64) {
	if useAVX2() {
		extend3AVX2(&d.extPlanes, a, b, c, out)
		return
	}
	d.extend3Generic(a, b, c, out)
}

//go:build !purego

package zerocheck

import (
	"sync"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// extend3AVX2 writes the coset planes of a, b and c (see skipDomain.extend) with
// AVX2 loads and XORs. tab and out need no alignment.
//
//go:noescape
func extend3AVX2(tab *[8][256][8]uint64, a, b, c uint64, out *[3][8]uint64)

// archLevels are the kernels this build has beyond the portable ones: AVX2 loads,
// shuffles and XORs (no carry-less products), and the AVX-512 + GFNI group kernel.
var archLevels = []cpu.Level{cpu.AVX2, cpu.AVX512GFNI}

// useAVX2 reports whether the AVX2 kernels run (Kernels' level decides).
func useAVX2() bool { return Kernels.Level() >= cpu.AVX2 }

func (d *skipDomain) extend3(a, b, c uint64, out *[3][8]uint64) {
	if useAVX2() {
		extend3AVX2(&d.extPlanes, a, b, c, out)
		return
	}
	d.extend3Generic(a, b, c, out)
}

// evalSplitAVX2 writes odd_l = tab(src[2l+1]) and, unless sum is nil, sum_l =
// tab(src[2l] ^ src[2l+1]) for n E elements.
//
//go:noescape
func evalSplitAVX2(tab *byteTables, src *field.K, odd, sum *field.E, n int)

// evalSplit writes odd[l] = t(src[2l+1]) and, when sum is not nil, sum[l] =
// t(src[2l] ^ src[2l+1]) = t(src[2l]) + t(src[2l+1]).
func (t *byteTables) evalSplit(odd, sum []field.E, src []field.K) {
	n := len(odd)
	if 2*n != len(src) || (sum != nil && len(sum) != n) {
		panic("zerocheck: evalSplit length mismatch")
	}
	if useAVX2() && n > 0 {
		var sp *field.E
		if sum != nil {
			sp = &sum[0]
		}
		evalSplitAVX2(t, &src[0], &odd[0], sp, n)
		return
	}
	t.evalSplitGeneric(odd, sum, src)
}

// groupPlanesAVX2 is groupPlanesGeneric on four medium indices at a time (one per
// 64-bit lane), for small eq weights smallNorm[i] = t^i: a, b, c point at the group's
// 128 words, scratch is working space.
//
//go:noescape
func groupPlanesAVX2(tab *[8][256][8]uint64, a, b, c *field.K, out *[1 << nMedium][8]uint64, scratch *[47][4]uint64)

// groupBytesGFNI is groupPlanesGeneric with the coset values as bytes: tab is
// extBytesTable(d), a, b, c point at the group's 128 words, norm is d.smallNorm (any
// weights). Needs AVX-512 F and BW and GFNI; no alignment needed.
//
//go:noescape
func groupBytesGFNI(tab *[8][256][64]byte, a, b, c *field.K, norm *[1 << nSmall]byte, out *[1 << nMedium][8]uint64)

// extBytes caches extBytesTable per domain.
var extBytes sync.Map // *skipDomain → *[8][256][64]byte

// extBytesTable returns d.extPlanes in byte form: row [i][v] holds the 64 coset bytes
// (byte j = Σ_p (bit j of extPlanes[i][v][p]) << p) with the eight bytes of each qword
// in reverse order (byte 8g+r at 8g+7-r), the order groupBytesGFNI's bit transpose
// undoes.
func extBytesTable(d *skipDomain) *[8][256][64]byte {
	if t, ok := extBytes.Load(d); ok {
		return t.(*[8][256][64]byte)
	}
	t := new([8][256][64]byte)
	for i := range d.extPlanes {
		for v := range d.extPlanes[i] {
			pl := &d.extPlanes[i][v]
			for j := 0; j < skipSize; j++ {
				var x byte
				for p := range pl {
					x |= byte(pl[p]>>j&1) << p
				}
				t[i][v][j&^7|7-j&7] = x
			}
		}
	}
	got, _ := extBytes.LoadOrStore(d, t)
	return got.(*[8][256][64]byte)
}

func (d *skipDomain) groupPlanes(a, b, c []field.K, planes *[1 << nMedium][8]uint64) {
	if Kernels.Level() >= cpu.AVX512GFNI {
		a, b, c = a[:groupSize], b[:groupSize], c[:groupSize]
		groupBytesGFNI(extBytesTable(d), &a[0], &b[0], &c[0], &d.smallNorm, planes)
		return
	}
	if useAVX2() && d.normPowers {
		var scratch [47][4]uint64
		a, b, c = a[:groupSize], b[:groupSize], c[:groupSize]
		groupPlanesAVX2(&d.extPlanes, &a[0], &b[0], &c[0], planes, &scratch)
		return
	}
	d.groupPlanesGeneric(a, b, c, planes)
}

// planesBytesAVX2 is planesToBytes on each of the 16 plane sets.
//
//go:noescape
func planesBytesAVX2(planes *[1 << nMedium][8]uint64, out *[1 << nMedium][skipSize]byte)

func planesBytes(planes *[1 << nMedium][8]uint64, out *[1 << nMedium][skipSize]byte) {
	if useAVX2() {
		planesBytesAVX2(planes, out)
		return
	}
	planesBytesGeneric(planes, out)
}

// mediumAVX2 writes out_j = Σ_k tab[k][bytes[k][j]] for the 64 E elements at out.
//
//go:noescape
func mediumAVX2(tab *[1 << nMedium][256][4]uint64, bytes *[1 << nMedium][skipSize]byte, out *field.E)

func (d *skipDomain) mediumSum(bytes *[1 << nMedium][skipSize]byte, out *[skipSize]field.E) {
	if useAVX2() {
		mediumAVX2(&d.mediumPad, bytes, &out[0])
		return
	}
	d.mediumSumGeneric(bytes, out)
}

// evalHalvesAVX2 writes, for n E elements, even_l = T_{2l}, odd_l = T_{2l+1} and (sum
// not nil) sum_l = T_{2l} + T_{2l+1}, T_m = tab0(src[2m]) + tab1(src[2m+1]).
//
//go:noescape
func evalHalvesAVX2(tab0, tab1 *byteTables, src *field.K, even, odd, sum *field.E, n int)

// evalHalves writes even[l] = T_{2l}, odd[l] = T_{2l+1} and, when sum is not nil,
// sum[l] = T_{2l} + T_{2l+1}, for T_m = t0(src[2m]) + t1(src[2m+1]).
func evalHalves(t0, t1 *byteTables, even, odd, sum []field.E, src []field.K) {
	n := len(even)
	if len(odd) != n || 4*n != len(src) || (sum != nil && len(sum) != n) {
		panic("zerocheck: evalHalves length mismatch")
	}
	if useAVX2() && n > 0 {
		var sp *field.E
		if sum != nil {
			sp = &sum[0]
		}
		evalHalvesAVX2(t0, t1, &src[0], &even[0], &odd[0], sp, n)
		return
	}
	evalHalvesGeneric(t0, t1, even, odd, sum, src)
}

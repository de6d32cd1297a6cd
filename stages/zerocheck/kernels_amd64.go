//go:build !purego

package zerocheck

import (
	"math/bits"
	"sync"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/simd"
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

// gfniMatrices writes the GFNI form of the linear map t: m[i][q][L] is the 8×8 bit
// matrix (VGF2P8AFFINEQB's layout: row 7-r gives output bit r) from byte i of a word to
// byte L of limb q of its value. t must be linear (t[i][0] = 0), as fill makes it.
func gfniMatrices(t *[8][256][4]uint64, m *[8][3][8]uint64) {
	for i := range m {
		for q := range m[i] {
			for l := range m[i][q] {
				var g uint64
				for b := range 8 {
					g |= (t[i][1<<b][q] >> (8 * l) & 0xff) << (8 * b)
				}
				m[i][q][l] = bits.ReverseBytes64(simd.Transpose8x8(g))
			}
		}
	}
}

// fillArch writes the GFNI matrices of freshly filled tables (a few thousand
// operations, once per table, so they are ready whatever level later evaluates them).
func (t *byteTables) fillArch() { gfniMatrices(&t.t, &t.gfni) }

// evalSplitGFNI and evalHalvesGFNI are evalSplitAVX2 and evalHalvesAVX2 with the
// tables given as gfniMatrices, for n a positive multiple of 8. Need AVX-512 F and BW
// and GFNI; no alignment needed (mat 64-byte aligned avoids split loads).
//
//go:noescape
func evalSplitGFNI(mat *[8][3][8]uint64, src *field.K, odd, sum *field.E, n int)

//go:noescape
func evalHalvesGFNI(mat0, mat1 *[8][3][8]uint64, src *field.K, even, odd, sum *field.E, n int)

// useGFNI reports whether the AVX512GFNI kernels run.
func useGFNI() bool { return Kernels.Level() >= cpu.AVX512GFNI }

// evalSplit writes odd[l] = t(src[2l+1]) and, when sum is not nil, sum[l] =
// t(src[2l] ^ src[2l+1]) = t(src[2l]) + t(src[2l+1]).
func (t *byteTables) evalSplit(odd, sum []field.E, src []field.K) {
	n := len(odd)
	if 2*n != len(src) || (sum != nil && len(sum) != n) {
		panic("zerocheck: evalSplit length mismatch")
	}
	if z := n &^ 7; useGFNI() && z > 0 {
		m := &t.gfni
		var sp *field.E
		if sum != nil {
			sp = &sum[0]
		}
		evalSplitGFNI(m, &src[0], &odd[0], sp, z)
		odd, src = odd[z:], src[2*z:]
		if sum != nil {
			sum = sum[z:]
		}
		n -= z
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

// planesBytesGFNI is planesBytesAVX2 with GFNI bit transposes; needs AVX-512 F and BW
// and GFNI.
//
//go:noescape
func planesBytesGFNI(planes *[1 << nMedium][8]uint64, out *[1 << nMedium][skipSize]byte)

func planesBytes(planes *[1 << nMedium][8]uint64, out *[1 << nMedium][skipSize]byte) {
	if useGFNI() {
		planesBytesGFNI(planes, out)
		return
	}
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

// mediumGFNI is mediumAVX2 with the medium tables given as gfniMatrices (k < 8, then
// k ≥ 8). Needs AVX-512 F and BW and GFNI; no alignment needed.
//
//go:noescape
func mediumGFNI(mat *[2][8][3][8]uint64, bytes *[1 << nMedium][skipSize]byte, out *field.E)

// mediumMats caches the medium tables' gfniMatrices per domain (fixed once built).
var mediumMats sync.Map // *skipDomain → *[2][8][3][8]uint64

func mediumMatrices(d *skipDomain) *[2][8][3][8]uint64 {
	if m, ok := mediumMats.Load(d); ok {
		return m.(*[2][8][3][8]uint64)
	}
	m := new([2][8][3][8]uint64)
	gfniMatrices((*[8][256][4]uint64)(d.mediumPad[:8]), &m[0])
	gfniMatrices((*[8][256][4]uint64)(d.mediumPad[8:]), &m[1])
	got, _ := mediumMats.LoadOrStore(d, m)
	return got.(*[2][8][3][8]uint64)
}

func (d *skipDomain) mediumSum(bytes *[1 << nMedium][skipSize]byte, out *[skipSize]field.E) {
	if useGFNI() {
		mediumGFNI(mediumMatrices(d), bytes, &out[0])
		return
	}
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
	if z := n &^ 7; useGFNI() && z > 0 {
		m0, m1 := &t0.gfni, &t1.gfni
		var sp *field.E
		if sum != nil {
			sp = &sum[0]
		}
		evalHalvesGFNI(m0, m1, &src[0], &even[0], &odd[0], sp, z)
		even, odd, src = even[z:], odd[z:], src[4*z:]
		if sum != nil {
			sum = sum[z:]
		}
		n -= z
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

//go:build purego || !amd64

package zerocheck

import (
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// archLevels is empty: without assembly only the portable kernels exist.
var archLevels []cpu.Level

func useAVX2() bool { return false }

// fillArch does nothing: without assembly there are no GFNI matrices to build.
func (t *byteTables) fillArch() {}

func (d *skipDomain) extend3(a, b, c uint64, out *[3][8]uint64) {
	d.extend3Generic(a, b, c, out)
}

func (t *byteTables) evalSplit(odd, sum []field.E, src []field.K) {
	t.evalSplitGeneric(odd, sum, src)
}

func (d *skipDomain) groupPlanes(a, b, c []field.K, planes *[1 << nMedium][8]uint64) {
	d.groupPlanesGeneric(a, b, c, planes)
}

func (d *skipDomain) mediumSum(bytes *[1 << nMedium][skipSize]byte, out *[skipSize]field.E) {
	d.mediumSumGeneric(bytes, out)
}

func planesBytes(planes *[1 << nMedium][8]uint64, out *[1 << nMedium][skipSize]byte) {
	planesBytesGeneric(planes, out)
}

func evalHalves(t0, t1 *byteTables, even, odd, sum []field.E, src []field.K) {
	evalHalvesGeneric(t0, t1, even, odd, sum, src)
}

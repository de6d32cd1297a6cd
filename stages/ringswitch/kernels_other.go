//go:build purego || !amd64

package ringswitch

import (
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// archLevels is empty: without assembly only the portable kernels exist.
var archLevels []cpu.Level

func useAVX2() bool { return false }

func useGFNI() bool { return false }

// ringPairsGFNI is never called without the GFNI kernels.
func ringPairsGFNI(*ringMatrices, []field.E, []field.E) {
	panic("ringswitch: no GFNI kernels in this build")
}

// ringPairs writes dst[2i+a] = Σ_g tab[g][byte g of src[i]][a].
func ringPairs(tab *ringPairTable, dst, src []field.E) {
	if len(dst) != 2*len(src) {
		panic("ringswitch: ringPairs needs two outputs per source element")
	}
	ringPairsGeneric(tab, dst, src)
}

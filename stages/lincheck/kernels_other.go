//go:build purego || !amd64

package lincheck

import (
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// archLevels is empty: without assembly only the portable kernels exist.
var archLevels []cpu.Level

func useAVX2() bool { return false }

func useGFNI() bool { return false }

// runGFNI is never called without the GFNI kernel.
func (f *foldJob) runGFNI(*foldTables, int, int) { panic("lincheck: no GFNI kernel in this build") }

// foldTileFull adds a full tile (foldTile groups at slot g0) over words
// [jlo, jhi) into out.
func foldTileFull(out []field.E, q []field.K, words, g0, jlo, jhi int, tables *foldTables) {
	foldTile8(out, q, words, g0, foldTile, jlo, jhi, &tables.t)
}

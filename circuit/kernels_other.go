//go:build purego || !amd64

package circuit

import (
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// archLevels is empty: without assembly only the portable transpose and walk exist.
var archLevels []cpu.Level

// transposeMany transposes the first n matrices of m.
func transposeMany(m *[8][64]uint64, n int) {
	for t := range n {
		Transpose64(&m[t])
	}
}

// solveWalkArch reports that SolveMany's walk has no assembly here.
func solveWalkArch(*Circuit, []instr, []uint64, [][]uint64, [][]uint64, [][]uint64) bool {
	return false
}

// bilinearKernel is the portable walk kernel: there is no assembly here.
func bilinearKernel(bw *bilinearWalk, code []instr, pc int) (int, int) {
	return bilinearGo(bw, code, pc)
}

// flushAcc is flushAccGo: there is no assembly here.
func flushAcc(acc []uint64, a, b []field.E, h field.E) { flushAccGo(acc, a, b, h) }

// uaccFast reports that the walk's flush has no vector kernel here.
func uaccFast() bool { return false }

// reverseWalk is reverseGo: there is no assembly here.
func reverseWalk(dst []field.E, adj []uint64, code []instr, ea, eb []field.E) {
	reverseGo(dst, adj, code, ea, eb)
}

// storeLanesArch reports that the packed rows' streaming stores have no assembly
// here.
func storeLanesArch([]field.K, int, *[64][64]uint64, int, int, int) bool { return false }

//go:build !purego

package circuit

import "github.com/leanpipe/leanpipe/cpu"

// solveWalk4AVX2 and solveWalk2AVX2 run the n instructions at code over the
// register file r for 4 or 2 bit-sliced vectors (solve_amd64.s): register i is
// the g words at r[i·g:(i+1)·g]; columns are read from, and every row's product
// written to, the vectors whose pointers are w[0..g-1]; each row's A and B values
// are written to a[k] and b[k]. Preconditions (what a compiled program and
// SolveMany's checks guarantee): r holds NumRegs·g words, every w[k], a[k], b[k]
// holds Size words, and every column, row and register the code names is in
// range. No alignment is needed. The caller tells the race detector what the
// walk reads and writes (once per walk, not once per chunk of steps).
//
//go:noescape
func solveWalk4AVX2(code *instr, n int, r *uint64, w, a, b *[4]*uint64)

//go:noescape
func solveWalk2AVX2(code *instr, n int, r *uint64, w, a, b *[4]*uint64)

// solveWalk1 is the walk for one vector, in general registers.
//
//go:noescape
func solveWalk1(code *instr, n int, r *uint64, w, a, b *[4]*uint64)

// solveWalkArch runs the steps code of SolveMany's walk in assembly when the
// family's level and the shape allow (1, 2 or 4 vectors, both row-value sides
// wanted) and reports whether it did.
func solveWalkArch(c *Circuit, code []instr, r []uint64, ws, dstA, dstB [][]uint64) bool {
	g := len(ws)
	if Kernels.Level() < cpu.AVX2 || (g != 1 && g != 2 && g != 4) || dstA == nil || dstB == nil || len(code) == 0 {
		return false
	}
	if len(r) != c.nregs*g {
		panic("circuit: solveWalkArch: register file size")
	}
	var w, a, b [4]*uint64
	for k := range g {
		w[k], a[k], b[k] = &ws[k][0], &dstA[k][0], &dstB[k][0]
	}
	switch g {
	case 4:
		solveWalk4AVX2(&code[0], len(code), &r[0], &w, &a, &b)
	case 2:
		solveWalk2AVX2(&code[0], len(code), &r[0], &w, &a, &b)
	default:
		solveWalk1(&code[0], len(code), &r[0], &w, &a, &b)
	}
	return true
}

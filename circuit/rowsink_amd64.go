//go:build !purego

package circuit

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// revState is what transposeAVX2 reads, and pc what it writes back (the offsets
// are fixed in rowsink_amd64.s).
type revState struct {
	code  *instr   // 0: the program
	pc    int      // 8: in, the steps [0, pc) to run (from pc−1 down); out, the step it stopped at (0: done)
	adj   *uint64  // 16: adjoint register i at words [4i, 4i+4)
	dst   *field.E // 24: the column sums
	ea    *field.E // 32: the row window's A weights
	eb    *field.E // 40: its B weights
	wbase int      // 48
	wn    int      // 56
}

// transposeAVX2 is revWalk.runGo's loop in assembly (rowsink_amd64.s): it runs the
// steps [0, pc) of code backward from step pc−1 until a row falls outside the
// window [wbase, wbase+wn), writes that step (or 0 when done) to pc and returns 1
// (a row miss) or 0 (done). An adjoint register is 32 bytes (an E and 8 bytes of
// padding, which it may overwrite); column sums and the windows hold 24-byte E
// values. Preconditions (a compiled program and the walker guarantee them): every
// register the code names is below len(adj)/4, every column below len(dst), ea and
// eb hold wn values each followed by 8 readable bytes, 0 < pc ≤ len(code). No
// alignment is needed. It needs AVX2.
//
//go:noescape
func transposeAVX2(st *revState) int

// runArch runs code backward by the assembly kernel, rows outside the window
// served in Go; it reports false when the kernel level has no assembly.
func (rw *revWalk) runArch(dst []field.E, code []instr) bool {
	if Kernels.Level() < cpu.AVX2 {
		return false
	}
	raceRead(unsafe.Pointer(&code[0]), 8*len(code))
	raceReadWrite(unsafe.Pointer(&rw.adj[0]), 8*len(rw.adj))
	raceReadWrite(unsafe.Pointer(&dst[0]), 24*len(dst))
	raceRead(unsafe.Pointer(&rw.buf[0][0]), 24*len(rw.buf[0]))
	raceRead(unsafe.Pointer(&rw.buf[1][0]), 24*len(rw.buf[1]))
	pc := len(code)
	for pc > 0 {
		st := revState{code: &code[0], pc: pc, adj: &rw.adj[0], dst: &dst[0], ea: &rw.buf[0][0], eb: &rw.buf[1][0],
			wbase: rw.wbase, wn: len(rw.ea)}
		if transposeAVX2(&st) == 0 {
			return true
		}
		pc = st.pc
		rw.row(code[pc])
	}
	return true
}

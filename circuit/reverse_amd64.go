//go:build !purego

package circuit

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// reverseAVX2 is reverseGo in assembly (reverse_amd64.s) over the n steps at code.
// adj holds 4 words per register (the fourth is padding it may overwrite); dst,
// ea and eb are E vectors (ea, eb nil for no weight). Preconditions (a compiled
// program and its caller guarantee them): every register the code names is below
// len(adj)/4, every column below len(dst), every row below len(ea) and len(eb)
// when they are given. No alignment is needed. It needs AVX2.
//
//go:noescape
func reverseAVX2(code *instr, n int, adj *uint64, dst, ea, eb *field.E)

// reverseWalk runs the backward walk (reverseGo) at the family's level.
func reverseWalk(dst []field.E, adj []uint64, code []instr, ea, eb []field.E) {
	if Kernels.Level() < cpu.AVX2 || len(code) == 0 {
		reverseGo(dst, adj, code, ea, eb)
		return
	}
	var pa, pb *field.E
	if ea != nil {
		pa = &ea[0]
		raceRead(unsafe.Pointer(pa), 24*len(ea))
	}
	if eb != nil {
		pb = &eb[0]
		raceRead(unsafe.Pointer(pb), 24*len(eb))
	}
	raceRead(unsafe.Pointer(&code[0]), 8*len(code))
	raceReadWrite(unsafe.Pointer(&adj[0]), 8*len(adj))
	raceReadWrite(unsafe.Pointer(&dst[0]), 24*len(dst))
	reverseAVX2(&code[0], len(code), &adj[0], &dst[0], pa, pb)
}

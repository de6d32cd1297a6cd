//go:build !amd64 || purego

package ntt

import "github.com/leanpipe/leanpipe/cpu"

// archLevels is empty: without assembly only the portable kernels exist.
var archLevels []cpu.Level

func fwdAsm(u, v []uint64, lambda uint64) { fwdGeneric(u, v, lambda) }

func invAsm(u, v []uint64, lambda uint64) { invGeneric(u, v, lambda) }

func fwdPCLMUL(u, v []uint64, lambda uint64) { fwdGeneric(u, v, lambda) }

func invPCLMUL(u, v []uint64, lambda uint64) { invGeneric(u, v, lambda) }

func transposeTileAsm(out []uint64, s int, msg []uint64, n, rows, r0, tile int) {
	transposeTileGeneric(out, s, msg, n, rows, r0, tile, 0)
}

func fwd4Asm(a, b, c, d []uint64, t0, t1, t2 uint64) { fwd4Generic(a, b, c, d, t0, t1, t2) }

func fwd4ioAsm(o, in *[4][]uint64, t0, t1, t2 uint64) { fwd4ioGeneric(o, in, t0, t1, t2) }

func fwdioAsm(uo, vo, ui, vi []uint64, lambda uint64) { fwdioGeneric(uo, vo, ui, vi, lambda) }

func fwd4BlocksAsm(buf []uint64, s int, tw []uint64) { fwd4BlocksGeneric(buf, s, tw) }

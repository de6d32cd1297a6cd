//go:build purego || !amd64

package simd

import "github.com/leanpipe/leanpipe/cpu"

// archLevels is empty: without assembly only the portable kernels exist.
var archLevels []cpu.Level

// Without assembly the level is always portable and these hooks do nothing.

func mulKArch(a, b uint64) uint64                        { return mulKGeneric(a, b) }
func mulEArch(dst, a, b *[3]uint64)                      { mulEGeneric(dst, a, b) }
func mulEKScalarArch(dst, a *[3]uint64, k uint64)        { mulEKScalarGeneric(dst, a, k) }
func mulKKArch(dst, a, b []uint64) int                   { return 0 }
func mulEKArch(dst, a, b []uint64) int                   { return 0 }
func scaleEKArch(dst, a []uint64, s uint64) int          { return 0 }
func mulEEArch(dst, a, b []uint64) int                   { return 0 }
func scaleEArch(dst, a []uint64, s *[3]uint64) int       { return 0 }
func axpyEArch(dst, src []uint64, s *[3]uint64) int      { return 0 }
func axpyKEArch(dst, src []uint64, s *[3]uint64) int     { return 0 }
func dotKEArch(a, b []uint64) [3]uint64                  { return dotKEGeneric(a, b) }
func dotEEArch(a, b []uint64) [3]uint64                  { return dotEEGeneric(a, b) }
func foldEArch(dst, a, b []uint64, r *[3]uint64) int     { return 0 }
func foldPairsEArch(dst, src []uint64, r *[3]uint64) int { return 0 }
func foldKArch(dst, a, b []uint64, r *[3]uint64) int     { return 0 }
func foldPairsKArch(dst, src []uint64, r *[3]uint64) int { return 0 }

func dotPairsEEArch(f, b []uint64) (q0, q1, qInf [3]uint64) { return dotPairsEEGeneric(f, b) }

//go:build amd64 && !purego

package blake2s

import "github.com/leanpipe/leanpipe/cpu"

// archLevels are the kernels this build has beyond the portable ones.
var archLevels = []cpu.Level{cpu.AVX2, cpu.AVX512VPCLMUL}

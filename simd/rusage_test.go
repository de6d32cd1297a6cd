package simd

import "github.com/leanpipe/leanpipe/internal/rusage"

// threadCPU is the calling thread's CPU time, reported next to wall time.
var threadCPU = rusage.Thread

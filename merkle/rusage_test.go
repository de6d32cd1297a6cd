package merkle

import "github.com/leanpipe/leanpipe/internal/rusage"

// cpuTime is the process CPU time benchmarks report next to wall time.
var cpuTime = rusage.Process

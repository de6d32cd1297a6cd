package witness

import "github.com/leanpipe/leanpipe/internal/rusage"

// cpuTime is the process CPU time in ns, reported next to wall time.
func cpuTime() int64 { return int64(rusage.Process()) }

//go:build unix

package merkle

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time; with GOMAXPROCS=1 it tracks the benchmark's
// own work even when other processes share the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

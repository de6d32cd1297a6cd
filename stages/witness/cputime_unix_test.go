//go:build unix

package witness

import "syscall"

// cpuTime is the process's user+system CPU time in ns (steadier than wall time on
// a loaded machine).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

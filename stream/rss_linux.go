//go:build linux

package stream

import "syscall"

// PeakRSS is the process's peak resident set size in bytes (0 where not measured).
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

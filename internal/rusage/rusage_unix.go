//go:build unix

package rusage

import (
	"runtime"
	"syscall"
	"time"
)

func process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	if runtime.GOOS == "linux" {
		return ru.Maxrss * 1024 // kilobytes on Linux
	}
	return ru.Maxrss // bytes on the BSDs and macOS
}

//go:build unix

package rusage

import (
	"os"
	"runtime"
	"strconv"
	"strings"
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
	if runtime.GOOS == "linux" {
		// The rusage high-water mark of an exec'd process also counts the image
		// the exec replaced, which shares its parent's memory until then: a small
		// child of a large parent would report the parent's size. VmHWM is this
		// image's own.
		if v, ok := vmHWM(); ok {
			return v
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	if runtime.GOOS == "linux" {
		return ru.Maxrss * 1024 // kilobytes on Linux
	}
	return ru.Maxrss // bytes on the BSDs and macOS
}

// vmHWM reads the peak resident size of this process image from /proc/self/status.
func vmHWM() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

//go:build !linux

package stream

import "time"

// PeakRSS is the process's peak resident set size in bytes (0 where not measured).
func PeakRSS() int64 { return 0 }

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }

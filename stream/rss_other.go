//go:build !linux

package stream

// PeakRSS is the process's peak resident set size in bytes (0 where not measured).
func PeakRSS() int64 { return 0 }

// Package rusage reads the process's resource usage: CPU time, which benchmarks report
// next to wall time because wall time is unreliable on a shared machine, and peak
// resident memory, which runs and metrics report; RunChild and PrintPeak measure one
// test's peak in a child process of its own (the memory estimates' tests).
package rusage

import "time"

// Process returns the user + system CPU time the process has used so far (0 where
// the platform does not say).
func Process() time.Duration { return process() }

// PeakRSS returns the process's peak resident set size in bytes (0 where the
// platform does not say).
func PeakRSS() int64 { return peakRSS() }

// Thread returns the CPU time of the calling OS thread, and false where the platform
// cannot tell it apart from the process's.
func Thread() (time.Duration, bool) { return thread() }

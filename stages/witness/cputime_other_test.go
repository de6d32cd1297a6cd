//go:build !unix

package witness

// cpuTime is unavailable here; the cpu-ns metric then reads 0.
func cpuTime() int64 { return 0 }

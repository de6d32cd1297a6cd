//go:build !linux

package simd

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }

//go:build !unix

package rusage

import "time"

func process() time.Duration { return 0 }

func peakRSS() int64 { return 0 }

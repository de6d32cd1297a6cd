// Package benchutil holds helpers for benchmarks only; it imports testing, so it
// is kept apart from internal/rusage, which the command line links.
package benchutil

import (
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/internal/rusage"
)

// ReportCPUPerOp reports the process CPU time per benchmark operation since start
// (a rusage.Process reading) as cpu-ms/op.
func ReportCPUPerOp(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(rusage.Process()-start)/1e6/float64(b.N), "cpu-ms/op")
}

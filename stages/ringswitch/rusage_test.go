package ringswitch

import (
	"github.com/leanpipe/leanpipe/internal/benchutil"
	"github.com/leanpipe/leanpipe/internal/rusage"
)

// Benchmarks report CPU time next to wall time (internal/rusage).
var (
	processCPU = rusage.Process
	reportCPU  = benchutil.ReportCPUPerOp
)

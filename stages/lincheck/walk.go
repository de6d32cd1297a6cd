package lincheck

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/par"
)

// serialWalksFirst is how many of a circuit's transpose walks asked for by this
// package run on one worker before the walks get every worker.
const serialWalksFirst = 2

// walkCounts holds, per *circuit.Circuit (weakly: a dropped circuit's entry goes
// with it), the number of transpose walks this package has asked of it on two or
// more workers.
var walkCounts sync.Map // weak.Pointer[circuit.Circuit] → *atomic.Int64

// walkWorkers returns the workers c's transpose walk gets. A *circuit.Circuit's
// first walk on two or more workers plans its program's segments, which costs about
// three walks (0.26 s at 2^21 columns); a process proving one or two aggregates does
// not earn that back, so, as circuit.TransposeOn does for its own walks, the first
// serialWalksFirst walks run on one worker (beside the slot fold, which then has the
// other cores).
func walkWorkers(c Circuit, workers par.Workers) par.Workers {
	cc, ok := c.(*circuit.Circuit)
	if !ok || workers.N() < 2 {
		return workers
	}
	key := weak.Make(cc)
	v, ok := walkCounts.Load(key)
	if !ok {
		var loaded bool
		v, loaded = walkCounts.LoadOrStore(key, new(atomic.Int64))
		if !loaded {
			runtime.AddCleanup(cc, func(k weak.Pointer[circuit.Circuit]) { walkCounts.Delete(k) }, key)
		}
	}
	if v.(*atomic.Int64).Add(1) > serialWalksFirst {
		return workers
	}
	return workers.Limit(1)
}

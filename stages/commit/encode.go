package commit

import (
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/ntt"
	"github.com/leanpipe/leanpipe/par"
)

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

// PlanSource supplies NTT plans by dimension logD. An engine backs it with its
// shape cache (the one place plans are kept); the nil PlanSource builds a fresh plan
// on every use.
type PlanSource func(logD int) *ntt.Plan

// Plan returns the plan of dimension logD from the source.
func (ps PlanSource) Plan(logD int) *ntt.Plan {
	if ps == nil {
		return ntt.NewPlan(logD)
	}
	return ps(logD)
}

// EncodeE encodes an E message whose lanes are its low laneLog index bits
// (msg[col·2^laneLog + lane]) into rows of 3·2^laneLog words: lane l of row q is
// words 3l, 3l+1, 3l+2 (c0, c1, c2) of the lane's codeword at point q.
func EncodeE(dst []uint64, msg []field.E, laneLog, logInvRate int, workers par.Workers) {
	PlanSource(nil).EncodeE(dst, msg, laneLog, logInvRate, workers)
}

// EncodeE is the package's EncodeE with plans from ps.
func (ps PlanSource) EncodeE(dst []uint64, msg []field.E, laneLog, logInvRate int, workers par.Workers) {
	ps.Plan(log2(len(msg))-laneLog+logInvRate).EncodeE(dst, msg, laneLog, logInvRate, workers)
}

package reduce

import (
	"context"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/par"
)

// Prove runs the prover's whole reduction in protocol order: the lincheck on the
// zerocheck's claims (sending its rounds and the 64 slice values), then the ring
// switch (sampling Φ). weights receives the dense ring weight (2^len(Point)
// entries; nil allocates). See LincheckProve for q and live.
func Prove(tr ProverTranscript, c Circuit, q []field.K, live int, zc ZerocheckClaims, weights []field.E, workers par.Workers) (LincheckClaim, RingClaim) {
	lc := LincheckProve(tr, c, q, live, zc, workers)
	return lc, RingSwitchProve(tr, lc.Point, lc.S, weights, workers)
}

// Verify is the verifier twin of Prove: the lincheck, then the ring switch.
func Verify(tr VerifierTranscript, c Circuit, zc ZerocheckClaims) (LincheckClaim, RingClaim, error) {
	lc, err := LincheckVerify(tr, c, zc)
	if err != nil {
		return LincheckClaim{}, RingClaim{}, err
	}
	return lc, RingSwitchVerify(tr, lc.Point, lc.S), nil
}

// Job is the reduce stage's input: the proof transcript (positioned after the
// zerocheck), the circuit, the packed witness with its live slot count, the
// zerocheck's claims and an optional buffer for the ring weight.
type Job struct {
	Transcript ProverTranscript
	Circuit    Circuit
	W          []field.K
	Live       int
	Claims     ZerocheckClaims
	Weights    []field.E
}

// Reduced is the reduce stage's output: the slice claims and the ring claim the
// opening discharges.
type Reduced struct {
	Lincheck LincheckClaim
	Ring     RingClaim
}

// NewStage returns the graph stage that runs Prove with the granted worker count.
func NewStage() graph.Stage[Job, Reduced] {
	return graph.Stage[Job, Reduced]{
		Name:       "reduce",
		MinWorkers: 1,
		Run: func(_ context.Context, w graph.Workers, in Job) (Reduced, error) {
			lc, rc := Prove(in.Transcript, in.Circuit, in.W, in.Live, in.Claims, in.Weights, w)
			return Reduced{Lincheck: lc, Ring: rc}, nil
		},
	}
}

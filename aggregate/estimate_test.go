package aggregate

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/rusage"
)

// estimateChildEnv, when set to n in a child process, makes TestEstimateChild
// prove one aggregate of n generated signers on an Engine and exit.
const estimateChildEnv = "LEANPIPE_AGGREGATE_ESTIMATE_CHILD"

// TestEstimateChild is the child process of TestEstimateBoundsPeakRSS.
func TestEstimateChild(t *testing.T) {
	spec := os.Getenv(estimateChildEnv)
	if spec == "" {
		t.Skip("child process of TestEstimateBoundsPeakRSS")
	}
	n, err := strconv.Atoi(spec)
	if err != nil {
		t.Fatal(err)
	}
	in := genInput(t, n, 3)
	e, err := flows.NewEngine(flows.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Prove(context.Background(), flows.Request{Flow: Flow, Input: in, LogInvRate: 1}); err != nil {
		t.Fatal(err)
	}
	rusage.PrintPeak()
}

// TestEstimateBoundsPeakRSS proves one aggregate per child process (each peak RSS
// its own: the circuit's build, the signers and one proof) of 1, 16 and 64 signers
// (and 256 with LEANPIPE_HEAVY) and checks measured ≤ Estimate ≤ 1.5 × measured +
// 64 MiB, the bound the batch flow's estimate keeps: a memory budget must not admit
// an aggregate that outgrows it.
func TestEstimateBoundsPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("proves aggregates of up to 64 signers in child processes")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not the prover's")
	}
	points := []int{1, 16, 64}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		points = append(points, 256)
	}
	var ps []rusage.EstimatePoint
	for _, n := range points {
		ps = append(ps, rusage.EstimatePoint{Label: fmt.Sprintf("%d signers", n),
			Env: estimateChildEnv + "=" + strconv.Itoa(n), Estimate: Flow.Estimate(n, 1)})
	}
	rusage.CheckEstimates(t, "TestEstimateChild", ps)
}

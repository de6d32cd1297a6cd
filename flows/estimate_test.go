package flows

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/leanpipe/leanpipe/internal/rusage"
)

// estimateChildEnv, when set to "n,rate" in a child process, makes
// TestEstimateChild prove one batch of n compressions on an Engine and exit.
const estimateChildEnv = "LEANPIPE_ESTIMATE_CHILD"

// TestEstimateChild is the child process of TestEstimateBoundsPeakRSS.
func TestEstimateChild(t *testing.T) {
	spec := os.Getenv(estimateChildEnv)
	if spec == "" {
		t.Skip("child process of TestEstimateBoundsPeakRSS")
	}
	var n, rate int
	if _, err := fmt.Sscanf(spec, "%d,%d", &n, &rate); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Prove(context.Background(), Request{Input: Blocks(Generate(n, 1)), LogInvRate: rate}); err != nil {
		t.Fatal(err)
	}
	rusage.PrintPeak()
}

// TestEstimateBoundsPeakRSS proves one batch per child process (so that each peak
// RSS is its own) at 2^10..2^16 compressions at rate 1 and 2^10..2^13 at rate 4, and
// checks measured ≤ Estimate ≤ 1.5 × measured + 64 MiB.
func TestEstimateBoundsPeakRSS(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not the prover's")
	}
	type point struct{ logN, rate int }
	var points []point
	for k := 10; k <= 16; k++ {
		points = append(points, point{k, 1})
	}
	for k := 10; k <= 13; k++ {
		points = append(points, point{k, 4})
	}
	var ps []rusage.EstimatePoint
	for _, p := range points {
		n := 1 << p.logN
		ps = append(ps, rusage.EstimatePoint{Label: fmt.Sprintf("2^%d rate %d", p.logN, p.rate),
			Env: estimateChildEnv + "=" + strconv.Itoa(n) + "," + strconv.Itoa(p.rate), Estimate: Batch.Estimate(n, p.rate)})
	}
	rusage.CheckEstimates(t, "TestEstimateChild", ps)
}

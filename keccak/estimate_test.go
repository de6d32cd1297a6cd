package keccak

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/rusage"
)

// estimateChildEnv, when set to n in a child process, makes TestEstimateChild prove
// one batch of n generated permutations on an Engine and exit.
const estimateChildEnv = "LEANPIPE_KECCAK_ESTIMATE_CHILD"

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
	in, err := Flow.FromValue(GenerateInput(n, 3))
	if err != nil {
		t.Fatal(err)
	}
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

// TestEstimateBoundsPeakRSS proves one batch per child process of 24, 3·2^10 and
// 3·2^12 permutations (and 2^14 with LEANPIPE_HEAVY; the comma-separated counts in
// $LEANPIPE_KECCAK_ESTIMATE_N instead when set) and checks measured ≤ Estimate ≤
// 1.5 × measured + 64 MiB, the bound the other flows' estimates keep.
func TestEstimateBoundsPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("proves batches of up to 12,288 permutations in child processes")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not the prover's")
	}
	points := []int{24, 3 << 10, 3 << 12}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		points = append(points, 1<<14)
	}
	if env := os.Getenv("LEANPIPE_KECCAK_ESTIMATE_N"); env != "" {
		points = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				t.Fatalf("LEANPIPE_KECCAK_ESTIMATE_N: %q", f)
			}
			points = append(points, n)
		}
	}
	var ps []rusage.EstimatePoint
	for _, n := range points {
		ps = append(ps, rusage.EstimatePoint{Label: fmt.Sprintf("%d perms", n),
			Env: estimateChildEnv + "=" + strconv.Itoa(n), Estimate: Flow.Estimate((n+FlowLayout.Perms-1)/FlowLayout.Perms, 1)})
	}
	rusage.CheckEstimates(t, "TestEstimateChild", ps)
}

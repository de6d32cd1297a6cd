package flows

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

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
	var table strings.Builder
	fmt.Fprintf(&table, "%-5s %4s %12s %12s %6s %8s\n", "n", "rate", "estimate MiB", "peak RSS MiB", "ratio", "time")
	for _, p := range points {
		n := 1 << p.logN
		measured, took, out, err := rusage.RunChild("TestEstimateChild", estimateChildEnv+"="+strconv.Itoa(n)+","+strconv.Itoa(p.rate))
		if err != nil {
			t.Fatalf("child 2^%d rate %d: %v\n%s", p.logN, p.rate, err, out)
		}
		if measured == 0 {
			t.Skipf("the child could not read its peak RSS:\n%s", out)
		}
		est := Batch.Estimate(n, p.rate)
		fmt.Fprintf(&table, "2^%-3d %4d %12.1f %12.1f %6.2f %8s\n", p.logN, p.rate, float64(est)/(1<<20), float64(measured)/(1<<20),
			float64(est)/float64(measured), took.Round(10*time.Millisecond))
		if est < measured {
			t.Errorf("2^%d at rate %d: estimate %d bytes is below the measured peak RSS %d", p.logN, p.rate, est, measured)
		}
		if hi := measured + measured/2 + 64<<20; est > hi {
			t.Errorf("2^%d at rate %d: estimate %d bytes is over 1.5 × measured %d + 64 MiB", p.logN, p.rate, est, measured)
		}
	}
	t.Logf("estimate vs peak RSS, one child process per point:\n%s", table.String())
}

package rusage

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// EstimatePoint is one point of a memory-estimate test: a label for the table, the
// environment that makes the child test prove it, and the flow's estimate for it.
type EstimatePoint struct {
	Label    string
	Env      string
	Estimate int64
}

// CheckEstimates runs the test named child once per point in a child process of its
// own (RunChild) and checks measured ≤ Estimate ≤ 1.5 × measured + 64 MiB, the
// bound every flow's estimate keeps; it logs the table. A child that cannot read its
// peak skips the test.
func CheckEstimates(t testing.TB, child string, points []EstimatePoint) {
	t.Helper()
	var table strings.Builder
	fmt.Fprintf(&table, "%-14s %12s %12s %6s %8s\n", "point", "estimate MiB", "peak RSS MiB", "ratio", "time")
	for _, p := range points {
		measured, took, out, err := RunChild(child, p.Env)
		if err != nil {
			t.Fatalf("child %s: %v\n%s", p.Label, err, out)
		}
		if measured == 0 {
			t.Skipf("the child could not read its peak RSS:\n%s", out)
		}
		fmt.Fprintf(&table, "%-14s %12.1f %12.1f %6.2f %8s\n", p.Label, float64(p.Estimate)/(1<<20),
			float64(measured)/(1<<20), float64(p.Estimate)/float64(measured), took.Round(10*time.Millisecond))
		if p.Estimate < measured {
			t.Errorf("%s: estimate %d bytes is below the measured peak RSS %d", p.Label, p.Estimate, measured)
		}
		if hi := measured + measured/2 + 64<<20; p.Estimate > hi {
			t.Errorf("%s: estimate %d bytes is over 1.5 × measured %d + 64 MiB", p.Label, p.Estimate, measured)
		}
	}
	t.Logf("estimate vs peak RSS, one child process per point:\n%s", table.String())
}

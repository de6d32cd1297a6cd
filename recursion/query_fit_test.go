package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
)

// TestQueryBlockNRFits: no-reveal query blocks of long paths and points (a merged
// child of five leaves at rate 3 has them) get a block large enough for their rows:
// each describes without running out of columns, and the estimate that decides
// when to look stays within 1% of the rows described.
func TestQueryBlockNRFits(t *testing.T) {
	for _, l0 := range []bool{true, false} {
		for _, d := range []int{8, 14, 20, 24} {
			for _, p := range []int{6, 14, 22, 28} {
				qb := queryLayoutNR(l0, d, p)
				if !qb.fits() {
					t.Fatalf("level0 %v, depth %d, point %d: out of columns at 2^%d", l0, d, p, qb.logSize)
				}
				// fits runs a checker (nothing recorded): it agrees with a builder's run
				// at the chosen size and one below.
				for _, ls := range []int{qb.logSize, qb.logSize - 1} {
					q := queryLayoutNR(l0, d, p)
					q.logSize = ls
					if got, want := q.fits(), builderFits(q); got != want {
						t.Fatalf("level0 %v, depth %d, point %d at 2^%d: checker fits %v, builder %v", l0, d, p, ls, got, want)
					}
				}
				qb.logSize = maxQueryLogSize
				rows := describeRows(qb)
				if est := queryRowsEstimate(l0, d, p); est < rows-rows/100 || est > rows+rows/100 {
					t.Errorf("level0 %v, depth %d, point %d: estimate %d, described %d", l0, d, p, est, rows)
				}
			}
		}
	}
}

func describeRows(qb *QueryBlock) int {
	return describeQuery[circuit.Wire](circuit.NewBuilder(qb.name, qb.logSize, 0), qb)
}

// builderFits is fits on a recording builder.
func builderFits(qb *QueryBlock) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	describeRows(qb)
	return true
}

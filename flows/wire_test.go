package flows

import (
	"testing"

	"github.com/leanpipe/leanpipe/stages/open"
)

// PaddingLanes counts the level-0 lane blocks that hold only padding slots, and
// only where every lane block holds whole slots of a 64-lane stack.
func TestPaddingLanes(t *testing.T) {
	for _, c := range []struct{ logSize, n, want int }{
		{17, 21846, 21}, // 2^16 permutations of the keccak flow: lanes 43..63 are padding
		{17, 1 << 15, 0},
		{17, 1<<14 + 1, 31},
		{17, 40, 24}, // one slot per lane
		{17, 9, 0},   // a slot spans four lane blocks
		{17, 5, 0},   // 32 committed lanes
		{14, 100, 14},
		{14, 128, 0},
	} {
		f := &Flock{spec: FlockSpec{LogSize: c.logSize, MaxN: 1 << 20}}
		sh, err := f.Shape(c.n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := sh.PaddingLanes(); got != c.want {
			t.Errorf("2^%d blocks, n = %d: %d padding lanes, want %d", c.logSize, c.n, got, c.want)
		}
		want := open.Wire{RepeatedLanes: max(0, c.want-1)}
		if f.wire(sh) != (open.Wire{}) {
			t.Errorf("n = %d: a flow without RepeatPadding uses %+v", c.n, f.wire(sh))
		}
		f.spec.RepeatPadding = true
		if got := f.wire(sh); got != want {
			t.Errorf("n = %d: wire %+v, want %+v", c.n, got, want)
		}
	}
}

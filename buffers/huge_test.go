package buffers

import (
	"testing"
)

func TestHugeRange(t *testing.T) {
	const mb2 = 2 << 20
	for _, c := range []struct {
		p      uintptr
		size   int
		lo, hi uintptr
	}{
		{mb2, 2 * mb2, mb2, 3 * mb2},             // aligned both ends
		{mb2 + 8192, 3 * mb2, 2 * mb2, 4 * mb2},  // head trimmed
		{mb2 + 8192, mb2, 2 * mb2, 2 * mb2},      // no whole 2 MiB page
		{mb2 - 4096, mb2 + 8192, mb2, 2 * mb2},   // one page inside
		{3*mb2 + 1, 4*mb2 - 2, 4 * mb2, 6 * mb2}, // both ends trimmed
	} {
		lo, hi := hugeRange(c.p, c.size)
		if lo != c.lo || hi != c.hi {
			t.Errorf("hugeRange(%#x, %#x) = [%#x, %#x), want [%#x, %#x)", c.p, c.size, lo, hi, c.lo, c.hi)
		}
	}
}

func TestHugeWanted(t *testing.T) {
	for v, want := range map[string]bool{"": true, "on": true, "madvise": true, "off": false, "0": false, "false": false, "no": false, "never": false} {
		if got := hugeWanted(v, ""); got != want {
			t.Errorf("hugeWanted(%q, \"\") = %v, want %v", v, got, want)
		}
	}
	for g, want := range map[string]bool{"": true, "disablethp=0": true, "gctrace=1": true, "disablethp=1": false, "gctrace=1,disablethp=1": false} {
		if got := hugeWanted("", g); got != want {
			t.Errorf("hugeWanted(\"\", %q) = %v, want %v", g, got, want)
		}
	}
}

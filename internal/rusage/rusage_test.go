package rusage

import "testing"

func TestProcessAdvances(t *testing.T) {
	start := Process()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ (x >> 3)
	}
	if x == 42 {
		t.Log(x)
	}
	if Process() <= start {
		t.Fatalf("process CPU time did not advance: %v → %v", start, Process())
	}
	if d, ok := Thread(); ok && d <= 0 {
		t.Fatalf("thread CPU time %v", d)
	}
}

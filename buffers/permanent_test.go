package buffers

import (
	"runtime"
	"testing"
)

// Permanent returns zeroed, writable memory the collector leaves alone: two
// mappings do not overlap, a collection between writes and reads changes nothing,
// and a type with pointers is refused.
func TestPermanent(t *testing.T) {
	if s := Permanent[uint64](0); len(s) != 0 {
		t.Fatalf("Permanent(0): %d elements", len(s))
	}
	a, b := Permanent[uint64](1<<20), Permanent[uint32](3)
	for i, x := range a {
		if x != 0 {
			t.Fatalf("word %d = %#x, want 0", i, x)
		}
		a[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for i := range b {
		b[i] = ^uint32(i)
	}
	runtime.GC()
	for i, x := range a {
		if x != uint64(i)*0x9e3779b97f4a7c15 {
			t.Fatalf("word %d changed to %#x", i, x)
		}
	}
	for i, x := range b {
		if x != ^uint32(i) {
			t.Fatalf("the second mapping's word %d changed to %#x", i, x)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Permanent of a type with pointers did not panic")
		}
	}()
	Permanent[*int](4)
}

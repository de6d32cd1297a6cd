package buffers

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"
)

type plainTriple struct{ A, B, C uint64 }

func TestMakeUninitShape(t *testing.T) {
	for _, n := range []int{0, 1, 1000, uninitMin / 8, 3 * uninitMin, 2 * HugeBytes / 8} {
		s := MakeUninit[uint64](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("MakeUninit(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			s[i] = uint64(i) // every word is writable
		}
		if n > 0 && s[n-1] != uint64(n-1) {
			t.Fatalf("MakeUninit(%d): the last word did not keep its value", n)
		}
	}
	tr := MakeUninit[plainTriple](uninitMin)
	if len(tr) != uninitMin {
		t.Fatalf("MakeUninit of a struct: len %d", len(tr))
	}
}

// Below uninitMin bytes MakeUninit is make (zeros), but Poison fills those too: a
// test under it sees a user that reads before writing at every size.
func TestMakeUninitSmall(t *testing.T) {
	s := MakeUninit[uint64](uninitMin/8 - 1)
	for i, x := range s {
		if x != 0 {
			t.Fatalf("word %d = %#x, want 0", i, x)
		}
	}
	defer Poison(0xa5)()
	s = MakeUninit[uint64](5)
	for i, x := range s {
		if x != 0xa5a5a5a5a5a5a5a5 {
			t.Fatalf("poisoned small word %d = %#x", i, x)
		}
	}
}

func TestMakeUninitRefusesPointers(t *testing.T) {
	for name, f := range map[string]func(){
		"*int":   func() { MakeUninit[*int](uninitMin) },
		"string": func() { MakeUninit[string](uninitMin) },
		"struct": func() {
			MakeUninit[struct {
				A uint64
				P []byte
			}](uninitMin)
		},
		"neg": func() { MakeUninit[uint64](-1) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "buffers: MakeUninit") {
					t.Errorf("%s: recovered %v, want a MakeUninit panic", name, r)
				}
			}()
			f()
		}()
	}
}

// Poison fills what MakeUninit returns; restore turns it off again.
func TestPoison(t *testing.T) {
	restore := Poison(0x5a)
	s := MakeUninit[uint64](uninitMin)
	for i, x := range s {
		if x != 0x5a5a5a5a5a5a5a5a {
			t.Fatalf("poisoned word %d = %#x", i, x)
		}
	}
	restore()
	if poison.Load() != 0 {
		t.Fatalf("restore left poison %#x", poison.Load())
	}
	inner := Poison(0)
	if got := MakeUninit[byte](uninitMin); got[0] != 0 || got[len(got)-1] != 0 {
		t.Fatalf("Poison(0) filled %#x…%#x, want zeros", got[0], got[len(got)-1])
	}
	inner()
}

// Recycled memory keeps its bytes: MakeUninit does not clear, which is its point.
// The heap need not hand the same span back, and the runtime may return some of its
// pages to the kernel in between (they then read as zeros), so the test tries fifty
// times, freeing what it took each time: it passes when any page of a span handed back
// kept its old bytes, and fails when ten or more came back with every page zero (as
// every one does when the allocation clears).
func TestMakeUninitKeepsRecycledBytes(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(2000))
	const n = 4 << 20
	same := 0
	for range 50 {
		old := make([]byte, n)
		for i := range old {
			old[i] = 0xc3
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(old)))
		old = nil
		runtime.GC()
		runtime.GC()
		s := MakeUninit[byte](n)
		if uintptr(unsafe.Pointer(unsafe.SliceData(s))) == p {
			same++
			for i := 0; i < n; i += 4096 {
				if s[i] == 0xc3 {
					return
				}
			}
		}
		s = nil
		runtime.GC()
	}
	if same >= 10 {
		t.Fatalf("MakeUninit handed %d recycled spans back, every one cleared", same)
	}
	t.Skipf("the heap handed the same span back %d times in 50", same)
}

func TestGrowUninit(t *testing.T) {
	s := MakeUninit[uint64](uninitMin)
	s[3] = 7
	g := GrowUninit(s, uninitMin/2)
	if &g[0] != &s[0] || g[3] != 7 {
		t.Fatal("GrowUninit did not reuse a large enough array")
	}
	h := GrowUninit(g, 2*uninitMin)
	if len(h) != 2*uninitMin || &h[0] == &s[0] {
		t.Fatalf("GrowUninit past the capacity: len %d, same array %v", len(h), &h[0] == &s[0])
	}
}

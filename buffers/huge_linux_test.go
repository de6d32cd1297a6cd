package buffers

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of this process holding address a.
func vmFlags(t *testing.T, a uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping holds %#x", a)
	return nil
}

// TestMakeAdvisesHugePages checks that a large Make, and a large pooled buffer, lie in
// a mapping marked for huge pages (VmFlags "hg", MADV_HUGEPAGE), and that the advice
// changes no byte.
func TestMakeAdvisesHugePages(t *testing.T) {
	if !HugePages() {
		t.Skipf("huge-page advice is off here (%s=%q, THP support %v)", hugeEnv, os.Getenv(hugeEnv), hugeSupported())
	}
	s := Make[uint64](2 * HugeBytes / 8)
	for i, x := range s {
		if x != 0 {
			t.Fatalf("Make: word %d = %#x, want 0", i, x)
		}
	}
	p := uintptr(unsafe.Pointer(&s[0]))
	lo, hi := hugeRange(p, 8*len(s))
	if lo >= hi {
		t.Fatalf("no 2 MiB page inside %d bytes", 8*len(s))
	}
	if fl := vmFlags(t, lo); !slices.Contains(fl, "hg") {
		t.Errorf("Make(%d words): mapping flags %v lack hg", len(s), fl)
	}
	pool := NewPool[uint64](1)
	b := pool.Get(HugeBytes)
	d := b.Data()
	lo, _ = hugeRange(uintptr(unsafe.Pointer(&d[0])), 8*len(d))
	if fl := vmFlags(t, lo); !slices.Contains(fl, "hg") {
		t.Errorf("Pool.Get(%d): mapping flags %v lack hg", len(d), fl)
	}
	b.Release()
}

// A large Permanent lies outside the Go heap's arenas in a mapping of its own marked
// for huge pages, zeroed and writable.
func TestPermanentAdvisesHugePages(t *testing.T) {
	if !HugePages() {
		t.Skipf("huge-page advice is off here (%s=%q, THP support %v)", hugeEnv, os.Getenv(hugeEnv), hugeSupported())
	}
	s := Permanent[uint64](3 * HugeBytes / 8)
	lo, hi := hugeRange(uintptr(unsafe.Pointer(&s[0])), 8*len(s))
	if lo >= hi {
		t.Fatalf("no 2 MiB page inside %d bytes", 8*len(s))
	}
	if fl := vmFlags(t, lo); !slices.Contains(fl, "hg") {
		t.Errorf("Permanent(%d words): mapping flags %v lack hg", len(s), fl)
	}
}

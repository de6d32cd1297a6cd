package buffers

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// HugeBytes is the smallest allocation Make asks the kernel to back with huge pages
// (transparent huge pages, 2 MiB on amd64): a proof's stacks, codewords and tables,
// whose streams otherwise take a TLB miss and a prefetcher restart every 4 KiB.
const HugeBytes = 4 << 20

// hugeEnv is the environment variable that turns the huge-page advice off
// (LEANPIPE_HUGEPAGES=off), for kernels or hosts where it costs (compaction stalls).
const hugeEnv = "LEANPIPE_HUGEPAGES"

var hugeOn = sync.OnceValue(func() bool {
	return hugeWanted(os.Getenv(hugeEnv), os.Getenv("GODEBUG")) && hugeSupported()
})

// hugeWanted reads LEANPIPE_HUGEPAGES and GODEBUG: the advice is on unless the first
// is off, 0, false, no or never, or the second asks the Go runtime to keep huge pages
// off its heap (disablethp=1, which Make would otherwise override).
func hugeWanted(env, godebug string) bool {
	switch env {
	case "off", "0", "false", "no", "never":
		return false
	}
	for _, kv := range strings.Split(godebug, ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return false
		}
	}
	return true
}

// HugePages reports whether Make advises its large allocations to be backed by huge
// pages: the kernel supports the advice and neither LEANPIPE_HUGEPAGES nor GODEBUG
// turns it off (hugeWanted). Whether
// the kernel then uses huge pages is its choice (THP mode, free memory).
func HugePages() bool { return hugeOn() }

// HugePageStatus describes the advice for people: "advised (kernel THP: madvise)",
// `off (LEANPIPE_HUGEPAGES="off", GODEBUG="")` or "unsupported".
func HugePageStatus() string {
	switch {
	case !hugeSupported():
		return "unsupported"
	case !hugeOn():
		return fmt.Sprintf("off (%s=%q, GODEBUG=%q)", hugeEnv, os.Getenv(hugeEnv), os.Getenv("GODEBUG"))
	}
	mode := kernelTHP()
	if mode == "" {
		mode = "unknown"
	}
	return "advised (kernel THP: " + mode + ")"
}

// Make returns a new slice of n zero elements of T; one of HugeBytes or more is
// advised to the kernel as huge-page memory before its first touch (so the pages
// are huge from the first fault). Every large, long-lived buffer of a proof is made
// here (through Grow, or a Pool).
func Make[T any](n int) []T {
	s := make([]T, n)
	advise(s)
	return s
}

// advise gives a new slice of HugeBytes or more the huge-page advice (when on).
func advise[T any](s []T) {
	if hugeOn() {
		size := int(unsafe.Sizeof(*new(T)))
		if n := len(s); n > 0 && size > 0 && n*size >= HugeBytes {
			adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), n*size)
		}
	}
}

// hugeRange returns the 2 MiB-aligned interior [lo, hi) of the bytes [p, p+size),
// empty (lo ≥ hi) when there is none.
func hugeRange(p uintptr, size int) (lo, hi uintptr) {
	const page = 2 << 20
	lo = (p + page - 1) &^ (page - 1)
	hi = (p + uintptr(size)) &^ (page - 1)
	return lo, hi
}

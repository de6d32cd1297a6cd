// Package sysmem reads how much memory the process may use — physical memory, the
// cgroup's memory limit and the address-space limit (RLIMIT_AS, `ulimit -v`) — and
// derives from them the default memory budget of the command line: the bound that a
// job's estimated memory (flows.Flow.Estimate) must fit before any work starts.
package sysmem

import (
	"fmt"
	"strings"
)

// Limits are the memory limits that apply to the process, in bytes; 0 means none or
// unknown.
type Limits struct {
	// Physical is the machine's memory (or 0 where it cannot be read).
	Physical int64
	// Cgroup is the memory limit of the process's cgroup (v2 memory.max, v1
	// memory.limit_in_bytes).
	Cgroup int64
	// AddressSpace is RLIMIT_AS; AddressUsed the address space already mapped when
	// the limits were read (the Go runtime reserves some ahead of use).
	AddressSpace, AddressUsed int64
}

// Margins kept back from each limit for the process itself and what else runs: an
// eighth of physical memory or of the cgroup limit (at least MinMargin), and
// MinMargin of the address space left.
const MinMargin = 256 << 20

// Budget is the default memory budget under l and what bounds it ("" and 0 when no
// limit is known): the smallest of physical memory and the cgroup limit less an
// eighth (at least MinMargin), and the address space not yet used less MinMargin.
func (l Limits) Budget() (int64, string) {
	var best int64
	var why string
	take := func(b int64, what string) {
		if b <= 0 {
			b = 1 // a limit already exceeded still bounds: nothing fits
		}
		if best == 0 || b < best {
			best, why = b, what
		}
	}
	if l.Physical > 0 {
		take(l.Physical-max(l.Physical/8, MinMargin), "physical memory "+Format(l.Physical))
	}
	if l.Cgroup > 0 {
		take(l.Cgroup-max(l.Cgroup/8, MinMargin), "cgroup memory limit "+Format(l.Cgroup))
	}
	if l.AddressSpace > 0 {
		take(l.AddressSpace-l.AddressUsed-MinMargin,
			fmt.Sprintf("address-space limit (ulimit -v) %s, %s mapped", Format(l.AddressSpace), Format(l.AddressUsed)))
	}
	return best, why
}

// Default reads the limits and returns Budget's result.
func Default() (int64, string) { return Read().Budget() }

// Format writes a byte count with a binary unit: 512 B, 3.5 MiB, 21.0 GiB.
func Format(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTP"[exp])
}

// parseLimit reads a cgroup limit file's contents: "max" or a number at or above
// 2^62 (v1's "no limit") is none.
func parseLimit(s string) int64 {
	s = strings.TrimSpace(s)
	if s == "" || s == "max" {
		return 0
	}
	var v int64
	if _, err := fmt.Sscanf(s, "%d", &v); err != nil || v <= 0 || v >= 1<<62 {
		return 0
	}
	return v
}

package sysmem

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Read returns the limits that apply to the calling process.
func Read() Limits {
	var l Limits
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		l.Physical = int64(si.Totalram) * int64(si.Unit)
	}
	l.Cgroup = cgroupLimit()
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != ^uint64(0) && rl.Cur < 1<<62 {
		l.AddressSpace = int64(rl.Cur)
		l.AddressUsed = vmSize()
	}
	return l
}

// cgroupLimit is the memory limit of the process's cgroup (v2, then v1), 0 if none.
func cgroupLimit() int64 {
	var v2, v1 []string
	if f, err := os.Open("/proc/self/cgroup"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), ":", 3)
			if len(parts) != 3 {
				continue
			}
			switch {
			case parts[0] == "0" && parts[1] == "":
				v2 = append(v2, filepath.Join("/sys/fs/cgroup", parts[2], "memory.max"))
			case strings.Contains(","+parts[1]+",", ",memory,"):
				v1 = append(v1, filepath.Join("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes"))
			}
		}
		f.Close()
	}
	// Inside a container the cgroup's own directory is usually mounted at the root.
	candidates := append(append(v2, "/sys/fs/cgroup/memory.max"), append(v1, "/sys/fs/cgroup/memory/memory.limit_in_bytes")...)
	var best int64
	for _, p := range candidates {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if v := parseLimit(string(b)); v > 0 && (best == 0 || v < best) {
			best = v
		}
	}
	return best
}

// vmSize is the process's mapped address space (VmSize in /proc/self/status).
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			if kb := parseLimit(strings.TrimSuffix(strings.TrimSpace(rest), " kB")); kb > 0 {
				return kb << 10
			}
		}
	}
	return 0
}

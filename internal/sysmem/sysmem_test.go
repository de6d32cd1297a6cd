package sysmem

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestBudgetTakesTheSmallestLimit(t *testing.T) {
	const gib = 1 << 30
	cases := []struct {
		l    Limits
		want int64
		why  string
	}{
		{Limits{}, 0, ""},
		{Limits{Physical: 24 * gib}, 21 * gib, "physical"},
		{Limits{Physical: 24 * gib, Cgroup: 8 * gib}, 7 * gib, "cgroup"},
		{Limits{Physical: 24 * gib, Cgroup: 1 * gib}, 1*gib - MinMargin, "cgroup"},
		{Limits{Physical: 24 * gib, AddressSpace: 3 * gib, AddressUsed: gib}, 2*gib - MinMargin, "address-space"},
		{Limits{Physical: 24 * gib, AddressSpace: gib, AddressUsed: 2 * gib}, 1, "address-space"},
	}
	for _, c := range cases {
		got, why := c.l.Budget()
		if got != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%+v: budget %d (%s), want %d (%s)", c.l, got, why, c.want, c.why)
		}
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int64{"max\n": 0, "9223372036854771712\n": 0, "1073741824\n": 1 << 30, "": 0, "x": 0} {
		if got := parseLimit(in); got != want {
			t.Errorf("parseLimit(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[int64]string{512: "512 B", 3 << 19: "1.5 MiB", 21 << 30: "21.0 GiB"} {
		if got := Format(in); got != want {
			t.Errorf("Format(%d) = %q, want %q", in, got, want)
		}
	}
}

// TestReadSeesAddressSpaceLimit re-runs the test binary under `ulimit -v` and checks
// that the child reads the limit.
func TestReadSeesAddressSpaceLimit(t *testing.T) {
	if os.Getenv("SYSMEM_CHILD") != "" {
		l := Read()
		os.Stdout.WriteString("AS=" + strconv.FormatInt(l.AddressSpace, 10) + " USED=" + strconv.FormatInt(l.AddressUsed, 10) + "\n")
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("limits are read on Linux")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	c := exec.Command("bash", "-c", `ulimit -v 4000000 && exec "$0" -test.run='^TestReadSeesAddressSpaceLimit$'`, os.Args[0])
	c.Env = append(os.Environ(), "SYSMEM_CHILD=1")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "AS=4096000000 ") || strings.Contains(string(out), "USED=0\n") {
		t.Fatalf("child read %s", out)
	}
	if l := Read(); l.Physical <= 0 {
		t.Fatalf("physical memory not read: %+v", l)
	}
}

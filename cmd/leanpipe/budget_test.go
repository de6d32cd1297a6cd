package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/sysmem"
)

// The reproduction: under a 3 GB address-space limit, a job the machine
// cannot hold between two small ones. With the default budget (derived from the
// limit) the big job is refused before any work, naming its estimate and the
// budget, and both small jobs prove; with --memory-budget 0 the process runs out of
// memory and the last job gets no result, which shows the limit is real.
func TestServeRefusesJobOverDerivedBudget(t *testing.T) {
	jobs := `{"id":"s1","n":8}` + "\n" + `{"id":"big","n":262144}` + "\n" + `{"id":"s2","n":8}` + "\n"
	dir := t.TempDir()
	start := time.Now()
	code, out, errs := cli(t, jobs, "3000000", "serve", "--out", dir, "--workers", "2")
	t.Logf("with the default budget: exit %d in %v", code, time.Since(start).Round(time.Millisecond))
	if code != 0 {
		t.Fatalf("serve under ulimit -v: exit %d\n%s\n%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 result lines, got %q", out)
	}
	var res [3]struct {
		ID    string
		OK    bool
		Error string
	}
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &res[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !res[0].OK || res[1].OK || !res[2].OK || res[2].ID != "s2" {
		t.Fatalf("results %+v", res)
	}
	est := "estimated " + sysmem.Format(flows.Batch.Estimate(262144, 1))
	for _, want := range []string{"262144 instances", est, "GiB", "memory budget of", "ulimit -v"} {
		if !strings.Contains(res[1].Error, want) {
			t.Errorf("refusal %q does not mention %q", res[1].Error, want)
		}
	}
	t.Logf("refusal: %s", res[1].Error)
	if _, err := os.Stat(filepath.Join(dir, "big.proof.bin")); err == nil {
		t.Fatal("the refused job left a proof file")
	}

	// prove refuses the same way, with the usage exit status.
	code, _, errs = cli(t, "", "3000000", "prove", "--n", "262144", "--out", filepath.Join(dir, "p.bin"))
	if code != 2 || !strings.Contains(errs, "memory budget of") || !strings.Contains(errs, "estimated") {
		t.Fatalf("prove over the budget: exit %d, %s", code, errs)
	}

	if testing.Short() {
		return
	}
	start = time.Now()
	code, out, errs = cli(t, jobs, "3000000", "serve", "--out", t.TempDir(), "--workers", "2", "--memory-budget", "0")
	t.Logf("with --memory-budget 0: exit %d in %v", code, time.Since(start).Round(time.Millisecond))
	if code == 0 || strings.Contains(out, `"s2"`) {
		t.Fatalf("without a budget the big job did not take the process down: exit %d\n%s", code, out)
	}
	if i := strings.Index(errs, "fatal error"); i >= 0 {
		t.Logf("child: %s", strings.SplitN(errs[i:], "\n", 2)[0])
	}
}

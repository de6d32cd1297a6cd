package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/internal/sysmem"
	"github.com/leanpipe/leanpipe/keccak"
)

// 2^17 Keccak permutations against the memory budget, without proving: the
// estimate, this machine's default budget and the verdict are logged; `prove --n
// 131072` under a budget below the estimate (an explicit one, and one derived from
// ulimit -v) is refused at once, naming the estimate, and writes nothing. Whether
// the default budget admits the batch is the comparison logged (on the 24 GiB
// development machine: estimate 16.2 GiB, budget 20.6 GiB, admitted).
func TestKeccak2To17AgainstBudget(t *testing.T) {
	const perms = 1 << 17
	blocks := (perms + keccak.FlowLayout.Perms - 1) / keccak.FlowLayout.Perms
	est := keccak.Flow.Estimate(blocks, 1)
	budget, why := sysmem.Default()
	verdict := "admitted: the prover starts"
	if budget > 0 && est > budget {
		verdict = "refused before any work"
	}
	t.Logf("2^17 permutations (%d blocks): estimate %s, default budget %s (%s): %s",
		blocks, sysmem.Format(est), sysmem.Format(budget), why, verdict)
	if est < 12<<30 || est > 20<<30 {
		t.Fatalf("estimate %s outside the 12..20 GiB the measured peaks support (docs/keccak-batch.md §1)", sysmem.Format(est))
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "k.bin")
	wantEst := "estimated " + sysmem.Format(est)
	start := time.Now()
	code, _, errs := run(t, "prove", "--flow", "keccak-batch", "--n", "131072", "--out", out,
		"--memory-budget", "12GiB")
	if code != 2 || !strings.Contains(errs, wantEst) || !strings.Contains(errs, "over the memory budget of 12.0 GiB") {
		t.Fatalf("prove under a 12 GiB budget: exit %d, %s", code, errs)
	}
	// Under a 14 GB address-space limit the default budget is derived from it.
	code, _, errs = cli(t, "", "14000000", "prove", "--flow", "keccak-batch", "--n", "131072", "--out", out)
	if code != 2 || !strings.Contains(errs, wantEst) || !strings.Contains(errs, "ulimit -v") {
		t.Fatalf("prove under ulimit -v 14 GB: exit %d, %s", code, errs)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Logf("the refusals took %v (a loaded machine?)", took)
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*")); len(matches) != 0 {
		t.Fatalf("a refused proof left files: %v", matches)
	}
	t.Logf("refusal: %s", strings.TrimSpace(errs))
}

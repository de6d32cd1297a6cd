package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
)

// skipProofs skips a test that proves merges or large segments under -short, and when
// the kernels are capped at the portable level (CI's portable and purego passes): the
// recursion package has no kernels of its own, the stages it runs are tested at every
// level in their packages, and its proofs take minutes on the portable kernels.
func skipProofs(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip(what)
	}
	if cpu.Detected() == cpu.Portable {
		t.Skip(what + " (kernels capped at the portable level: run at the top level)")
	}
}

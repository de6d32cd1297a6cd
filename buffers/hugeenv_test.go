package buffers

import (
	"strings"
	"testing"
)

// TestCheckHugePagesEnv: every off and on value is accepted, an unknown one is an
// error naming the variable, the value and the accepted values.
func TestCheckHugePagesEnv(t *testing.T) {
	for _, v := range append(append([]string{}, hugeOffValues...), hugeOnValues...) {
		t.Setenv(hugeEnv, v)
		if err := CheckHugePagesEnv(); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	t.Setenv(hugeEnv, "maybe")
	if err := CheckHugePagesEnv(); err == nil || !strings.Contains(err.Error(), `LEANPIPE_HUGEPAGES="maybe": want one of off, 0`) {
		t.Fatalf("unknown value: %v", err)
	}
}

package buffers

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// hugeOff and hugeOnValues are the values of LEANPIPE_HUGEPAGES: the first turn
// the huge-page advice off (hugeWanted), the second leave it on ("" is unset).
var (
	hugeOffValues = []string{"off", "0", "false", "no", "never"}
	hugeOnValues  = []string{"", "on", "1", "true", "yes", "always"}
)

// CheckHugePagesEnv reports a LEANPIPE_HUGEPAGES value that is neither an "off" nor
// an "on" value, naming the accepted ones. Programs call it before any work and
// refuse to start on an error (Make meanwhile treats an unknown value as on).
func CheckHugePagesEnv() error {
	v := os.Getenv(hugeEnv)
	if slices.Contains(hugeOffValues, v) || slices.Contains(hugeOnValues, v) {
		return nil
	}
	return fmt.Errorf("buffers: %s=%q: want one of %s (off) or %s (on)", hugeEnv, v,
		strings.Join(hugeOffValues, ", "), strings.Join(hugeOnValues[1:], ", "))
}

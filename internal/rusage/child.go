package rusage

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// peakMarker starts the line in which a child test reports its peak (PrintPeak).
const peakMarker = "peak-rss-bytes "

// PrintPeak prints this process's peak resident set size on a line of its own, for
// the parent that started it with RunChild.
func PrintPeak() { fmt.Printf("%s%d\n", peakMarker, PeakRSS()) }

// RunChild runs the test named test (an exact name) of the running test binary in a
// child process of its own, so that its peak resident memory is its own, with env
// added to this process's environment and GOGC and GOMEMLIMIT left at the runtime's
// defaults. It returns the peak the child printed with PrintPeak (0 when it printed
// none, as where the platform cannot tell), the child's wall time and its combined
// output; err is the child's failure.
func RunChild(test string, env ...string) (peak int64, took time.Duration, out []byte, err error) {
	c := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	c.Env = append(append(os.Environ(), env...), "GOGC=", "GOMEMLIMIT=")
	start := time.Now()
	out, err = c.CombinedOutput()
	took = time.Since(start)
	if err != nil {
		return 0, took, out, err
	}
	if _, rest, ok := strings.Cut(string(out), peakMarker); ok {
		fmt.Sscanf(rest, "%d", &peak)
	}
	return peak, took, out, nil
}

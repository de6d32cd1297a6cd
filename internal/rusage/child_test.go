package rusage

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// A child started by a large parent reports its own peak, not the parent's: on
// Linux the rusage high-water mark of an exec'd child counts the image it replaced,
// which shares the parent's memory until the exec.
func TestPeakRSSOfChild(t *testing.T) {
	if os.Getenv("RUSAGE_TEST_CHILD") != "" {
		os.Stdout.WriteString(strconv.FormatInt(PeakRSS(), 10))
		os.Exit(0)
	}
	if runtime.GOOS != "linux" {
		t.Skip("the inflation is Linux's")
	}
	const big = 512 << 20
	ballast := make([]byte, big)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestPeakRSSOfChild$")
	cmd.Env = append(os.Environ(), "RUSAGE_TEST_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(ballast)
	peak, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("child printed %q", out)
	}
	if peak <= 0 || peak > big/2 {
		t.Fatalf("child's peak RSS %d MiB, with a parent of %d MiB", peak>>20, big>>20)
	}
	if own := PeakRSS(); own < big {
		t.Fatalf("own peak RSS %d MiB below the %d MiB it touched", own>>20, big>>20)
	}
}

// RunChild reads the peak a child printed with PrintPeak: here a child that
// touches 64 MiB reports at least that, and a failing child is an error.
func TestRunChild(t *testing.T) {
	switch os.Getenv("RUSAGE_RUNCHILD") {
	case "peak":
		b := make([]byte, 64<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		runtime.KeepAlive(b)
		PrintPeak()
		return
	case "fail":
		t.Fatal("the child fails")
	}
	if runtime.GOOS != "linux" {
		t.Skip("PeakRSS is measured on Linux")
	}
	peak, _, out, err := RunChild("TestRunChild", "RUSAGE_RUNCHILD=peak")
	if err != nil || peak < 64<<20 {
		t.Fatalf("peak %d bytes, err %v, want at least 64 MiB; output:\n%s", peak, err, out)
	}
	if _, _, _, err := RunChild("TestRunChild", "RUSAGE_RUNCHILD=fail"); err == nil {
		t.Fatal("a failing child is not an error")
	}
}

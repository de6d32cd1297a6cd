package aggregate

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/cachedir"
	"github.com/leanpipe/leanpipe/internal/rusage"
)

// estimateChildEnv, when set to "n,dir" in a child process, makes TestEstimateChild
// prove one aggregate of n generated signers on an Engine, with dir as its cache
// directory (the compiled circuit read from it, or built and stored there), and
// exit.
const estimateChildEnv = "LEANPIPE_AGGREGATE_ESTIMATE_CHILD"

// TestEstimateChild is the child process of TestEstimateBoundsPeakRSS.
func TestEstimateChild(t *testing.T) {
	spec := os.Getenv(estimateChildEnv)
	if spec == "" {
		t.Skip("child process of TestEstimateBoundsPeakRSS")
	}
	ns, dir, ok := strings.Cut(spec, ",")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || dir == "" {
		t.Fatalf("$%s=%q: want n,dir", estimateChildEnv, spec)
	}
	// Both are read when the circuit is first needed (the cache's switch once),
	// which is below.
	t.Setenv(cachedir.Env, dir)
	t.Setenv(circuit.CacheEnv, "on")
	in := genInput(t, n, 3)
	e, err := flows.NewEngine(flows.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Prove(context.Background(), flows.Request{Flow: Flow, Input: in, LogInvRate: 1}); err != nil {
		t.Fatal(err)
	}
	rusage.PrintPeak()
}

// TestEstimateBoundsPeakRSS proves one aggregate per child process (each peak RSS
// its own: the circuit, the signers and one proof) of 1, 16 and 64 signers (and
// 256 with LEANPIPE_HEAVY) and checks measured ≤ Estimate ≤ 1.5 × measured +
// 64 MiB, the bound the batch flow's estimate keeps: a memory budget must not admit
// an aggregate that outgrows it. It does so twice: children whose cache directory
// starts empty (each records and compiles the circuit, as a machine's first process
// does), then children that read the circuit one of them stored.
func TestEstimateBoundsPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("proves aggregates of up to 64 signers in child processes, building the circuit in three")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is not the prover's")
	}
	sizes := []int{1, 16, 64}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		sizes = append(sizes, 256)
	}
	point := func(n int, kind, dir string) rusage.EstimatePoint {
		return rusage.EstimatePoint{Label: fmt.Sprintf("n=%d %s", n, kind),
			Env: fmt.Sprintf("%s=%d,%s", estimateChildEnv, n, dir), Estimate: Flow.Estimate(n, 1)}
	}
	// Every building child gets a fresh directory; the first one's is then the
	// warm cache the loading children read.
	warm := t.TempDir()
	var builds []rusage.EstimatePoint
	dirs := []string{warm}
	for i, n := range sizes {
		if i > 0 {
			dirs = append(dirs, t.TempDir())
		}
		builds = append(builds, point(n, "build", dirs[i]))
	}
	rusage.CheckEstimates(t, "TestEstimateChild", builds)
	// Each stored one: the child built it (its directory was empty).
	var before fs.FileInfo
	for i, d := range dirs {
		if fi := cachedCircuit(t, d); i == 0 {
			before = fi
		}
	}
	var loads []rusage.EstimatePoint
	for _, n := range sizes {
		loads = append(loads, point(n, "cached", warm))
	}
	rusage.CheckEstimates(t, "TestEstimateChild", loads)
	if after := cachedCircuit(t, warm); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("a loading child replaced the cached circuit %s: it built it", after.Name())
	}
}

// cachedCircuit returns the one compiled circuit file under the cache directory dir.
func cachedCircuit(t *testing.T, dir string) fs.FileInfo {
	t.Helper()
	var found []fs.FileInfo
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".circuit") {
			return err
		}
		fi, err := d.Info()
		found = append(found, fi)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Fatalf("cache directory %s holds %d compiled circuits, want the one a child stored", dir, len(found))
	}
	return found[0]
}

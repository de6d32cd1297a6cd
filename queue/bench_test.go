//go:build unix

package queue

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stream"
)

// BenchmarkNATSOverhead compares the NATS path with local serve on the same engine
// and worker settings: each iteration proves 16 leaves of 2^12 compressions
// (blake2s-batch, jobs {"id":…,"n":4096,"seed":i}) once through `serve`'s local
// pipeline (line source, Prover, proof files, result lines) and once through the
// queue (Submit → one Worker → proofs and statements in the object store → result
// messages → Submit has every result), back to back, alternating which goes first.
// The worker runs across iterations, as a fleet worker does; job ids are new each
// iteration so nothing is answered from the store. It reports the median wall time
// of each path (local-s, nats-s); from the median of the pairs' wall-time ratios,
// the NATS path's throughput as a share of local serve's (nats/local-%, 100 = no
// cost) and its cost (cost-%, the bound is 5); the cost from the fastest
// round of each (cost-fastest-%) and in process CPU time (cpu-cost-%).
//
// Settings are serve's defaults: --in-flight 2, every core (LEANPIPE_BENCH_IN_FLIGHT
// and LEANPIPE_BENCH_CORES change them). The server is embedded unless
// LEANPIPE_NATS_SERVER names a nats-server binary (then a real server process with
// its file store in a temporary directory). Rerun:
//
//	go test -run '^$' -bench NATSOverhead -benchtime 5x ./queue/
//	LEANPIPE_NATS_SERVER=/usr/sbin/nats-server go test -run '^$' -bench NATSOverhead -benchtime 5x ./queue/
func BenchmarkNATSOverhead(b *testing.B) {
	const leaves, n = 16, 4096
	inFlight, cores := envInt(b, "LEANPIPE_BENCH_IN_FLIGHT", 2), envInt(b, "LEANPIPE_BENCH_CORES", 0)
	eng, err := flows.NewEngine(flows.EngineOptions{Cores: cores, InFlight: inFlight})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(eng.Close)
	cores = eng.Scheduler().Cores()

	o := Options{InFlight: inFlight, Cores: cores}
	ts := startServer(b, o)
	_, jsW := ts.connect(b, "bench-worker")
	wo := o
	wo.Worker = "bench-worker"
	w := NewWorker(jsW, eng, wo)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := w.Run(ctx); done <- err }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	})
	_, js := ts.connect(b, "bench-submit")

	lines := func(prefix string) string {
		var s strings.Builder
		for i := range leaves {
			fmt.Fprintf(&s, `{"id":"%s%d","n":%d,"seed":%d}`+"\n", prefix, i, n, i+1)
		}
		return s.String()
	}
	local := func(round int) time.Duration {
		dir := b.TempDir()
		start := time.Now()
		p := stream.NewProver(ctx, eng, stream.Options{InFlight: inFlight, Cores: cores})
		files, err := stream.NewProofFiles(dir)
		if err != nil {
			b.Fatal(err)
		}
		sink := stream.NewJSONLines(io.Discard)
		m := stream.Run(stream.NewLineSource(ctx, strings.NewReader(lines(fmt.Sprintf("l%d-", round))), ""), p, files, sink)
		d := time.Since(start)
		if m.OK != leaves || files.Written() != leaves {
			b.Fatalf("local round %d: %d ok, %d files", round, m.OK, files.Written())
		}
		return d
	}
	queued := func(round int) time.Duration {
		jobs, err := ReadJobs(ctx, strings.NewReader(lines(fmt.Sprintf("q%d-", round))), "")
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		rs, err := Submit(ctx, js, jobs, Options{})
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rs {
			if !r.OK {
				b.Fatalf("queued round %d: job %s: %s", round, r.ID, r.Error)
			}
		}
		return d
	}
	// Warm both paths (shape cache, buffer pools, JetStream objects).
	local(-1)
	queued(-1)

	var ls, qs []time.Duration
	var lcpu, qcpu time.Duration
	timed := func(f func(int) time.Duration, i int, wall *[]time.Duration, cpu *time.Duration) {
		c := cpuTime(b)
		*wall = append(*wall, f(i))
		*cpu += cpuTime(b) - c
	}
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			timed(local, i, &ls, &lcpu)
			timed(queued, i, &qs, &qcpu)
		} else {
			timed(queued, i, &qs, &qcpu)
			timed(local, i, &ls, &lcpu)
		}
	}
	b.StopTimer()
	// The machine may be shared: each pair ran back to back, so the median of the
	// pairs' ratios is the figure least moved by other load; the ratio of the
	// fastest rounds and of the process CPU time (with the embedded server, the
	// server's work is in it) are reported beside it.
	ratios := make([]float64, len(ls))
	for i := range ls {
		ratios[i] = qs[i].Seconds() / ls[i].Seconds()
	}
	slices.Sort(ratios)
	r := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		r = (ratios[len(ratios)/2-1] + r) / 2
	}
	b.ReportMetric(median(ls).Seconds(), "local-s")
	b.ReportMetric(median(qs).Seconds(), "nats-s")
	b.ReportMetric(100/r, "nats/local-%")
	b.ReportMetric(100*(r-1), "cost-%")
	b.ReportMetric(100*(slices.Min(qs).Seconds()/slices.Min(ls).Seconds()-1), "cost-fastest-%")
	b.ReportMetric(100*(qcpu.Seconds()/lcpu.Seconds()-1), "cpu-cost-%")
	b.Logf("%d leaves of %d, in-flight %d, %d cores, server %s: local %v, nats %v; cpu local %v, nats %v",
		leaves, n, inFlight, cores, serverName(), ls, qs, lcpu, qcpu)
}

// cpuTime is the process's user and system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var x int
	if _, err := fmt.Sscan(v, &x); err != nil || x < 0 {
		b.Fatalf("%s=%q: want a non-negative integer", name, v)
	}
	return x
}

func serverName() string {
	if serverBin != "" {
		return serverBin
	}
	return "embedded"
}

package zerocheck

import (
	"syscall"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
)

func BenchmarkGroupValues(b *testing.B) {
	rng := testrand.New(b)
	d := domain()
	var a, bb, c [groupSize]field.K
	for i := range a {
		a[i], bb[i] = field.K(rng.Uint64()), field.K(rng.Uint64())
		c[i] = a[i] & bb[i]
	}
	var out [skipSize]field.E
	t0 := cpuTime()
	for b.Loop() {
		d.groupValues(a[:], bb[:], c[:], &out)
	}
	b.ReportMetric(float64((cpuTime()-t0).Nanoseconds())/float64(b.N*groupSize), "cpu-ns/word")
}

func BenchmarkBitsRound(b *testing.B) {
	rng := testrand.New(b)
	n := 1 << 14
	w := func() []field.K {
		v := make([]field.K, n)
		for i := range v {
			v[i] = field.K(rng.Uint64())
		}
		return v
	}
	a, bb := w(), w()
	c := make([]field.K, n)
	for i := range c {
		c[i] = a[i] & bb[i]
	}
	var basis [skipSize]field.E
	for i := range basis {
		basis[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	lz := new(byteTables)
	lz.fill(&basis)
	rr := make([]field.E, 13)
	for i := range rr {
		rr[i] = basis[i]
	}
	t0 := cpuTime()
	for b.Loop() {
		bitsRound(lz, words{head: a}, words{head: bb}, words{head: c}, rr, 1)
	}
	b.ReportMetric(float64((cpuTime()-t0).Nanoseconds())/float64(b.N*n), "cpu-ns/word")
}

// cpuTime is the process's user+system CPU time (benchmarks here share the machine).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkFoldHalves(b *testing.B) {
	rng := testrand.New(b)
	n := 1 << 20
	h := halves{head: make([]field.E, 2*n)}
	for i := range h.head {
		h.head[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	chi := field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	t := cpuTime()
	for b.Loop() {
		foldHalves(&h, chi, 1)
	}
	b.ReportMetric(float64((cpuTime()-t).Nanoseconds())/float64(b.N*n), "cpu-ns/out")
}

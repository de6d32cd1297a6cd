package zerocheck

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
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
		bitsRound(lz, words{head: a}, words{head: bb}, words{head: c}, rr, par.New(nil, 1))
	}
	b.ReportMetric(float64((cpuTime()-t0).Nanoseconds())/float64(b.N*n), "cpu-ns/word")
}

// cpuTime is the process's user+system CPU time (benchmarks here share the machine).
var cpuTime = rusage.Process

// BenchmarkERounds runs twelve fused fold-and-round passes from E tables of 2^20
// entries (the round-3 tables at n_log = 14 have 2^19).
func BenchmarkERounds(b *testing.B) {
	rng := testrand.New(b)
	n := 1 << 20
	re := func() field.E {
		return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	}
	var src, work, spare [3][]field.E
	for v := range src {
		src[v], work[v], spare[v] = make([]field.E, n), make([]field.E, n), make([]field.E, n/2)
		for i := range src[v] {
			src[v][i] = re()
		}
	}
	r := make([]field.E, 20)
	for i := range r {
		r[i] = re()
	}
	chi := re()
	t0 := cpuTime()
	for b.Loop() {
		var t [3]vec
		sp := spare
		for v := range t {
			copy(work[v], src[v])
			t[v].head = work[v]
		}
		for i := 0; i < 12; i++ {
			next, _ := eFoldRound(&t, chi, sp, r[i+1:], par.New(nil, 1))
			sp = [3][]field.E{t[0].head, t[1].head, t[2].head}
			t = next
		}
	}
	b.ReportMetric(float64((cpuTime()-t0).Nanoseconds())/float64(b.N*n), "cpu-ns/entry")
}

// BenchmarkKernelGroupPlanes runs the group kernel at every level this machine has, in
// one process (compare the levels as ratios within one run).
func BenchmarkKernelGroupPlanes(b *testing.B) {
	rng := testrand.New(b)
	d := domain()
	var a, bb, c [groupSize]field.K
	for i := range a {
		a[i], bb[i] = field.K(rng.Uint64()), field.K(rng.Uint64())
		c[i] = a[i] & bb[i]
	}
	var planes [1 << nMedium][8]uint64
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			for b.Loop() {
				d.groupPlanes(a[:], bb[:], c[:], &planes)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*groupSize), "ns/word")
		})
	}
}

// BenchmarkKernelEval runs evalSplit (with sums) and evalHalves on 128-element chunks
// (the round kernels' chunk) and on 4096 at every level, in one process.
func BenchmarkKernelEval(b *testing.B) {
	rng := testrand.New(b)
	var basis, basis1 [skipSize]field.E
	for i := range basis {
		basis[i] = field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
		basis1[i] = basis[i].Mul(basis[i])
	}
	t0, t1 := new(byteTables), new(byteTables)
	t0.fill(&basis)
	t1.fill(&basis1)
	for _, n := range []int{1 << splitLog, 1 << 12} {
		benchEval(b, n, t0, t1, rng)
	}
}

func benchEval(b *testing.B, n int, t0, t1 *byteTables, rng *rand.Rand) {
	src := make([]field.K, 4*n)
	for i := range src {
		src[i] = field.K(rng.Uint64())
	}
	e, o, s := make([]field.E, n), make([]field.E, n), make([]field.E, n)
	for _, l := range Kernels.Levels() {
		b.Run(fmt.Sprintf("Split/n=%d/%v", n, l), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			for b.Loop() {
				t0.evalSplit(o, s, src[:2*n])
			}
		})
		b.Run(fmt.Sprintf("Halves/n=%d/%v", n, l), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			for b.Loop() {
				evalHalves(t0, t1, e, o, s, src)
			}
		})
	}
}

// BenchmarkKernelMedium runs mediumSum at every level, in one process.
func BenchmarkKernelMedium(b *testing.B) {
	rng := testrand.New(b)
	d := domain()
	var bytes [1 << nMedium][skipSize]byte
	for k := range bytes {
		for j := range bytes[k] {
			bytes[k][j] = byte(rng.Uint32())
		}
	}
	var out [skipSize]field.E
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			for b.Loop() {
				d.mediumSum(&bytes, &out)
			}
		})
	}
}

// BenchmarkKernelPlanesBytes runs planesBytes at every level, in one process.
func BenchmarkKernelPlanesBytes(b *testing.B) {
	rng := testrand.New(b)
	var planes [1 << nMedium][8]uint64
	for k := range planes {
		for p := range planes[k] {
			planes[k][p] = rng.Uint64()
		}
	}
	var out [1 << nMedium][skipSize]byte
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			for b.Loop() {
				planesBytes(&planes, &out)
			}
		})
	}
}

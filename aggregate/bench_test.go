package aggregate

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/internal/testrand"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// BenchmarkFill is the witness stage alone: plan, bit-sliced solve and packing of
// 200 signers in 256 slots (one batch of groups), and, skipped under -short, 300 in
// 512 (two batches), 700 in 1,024 (three) and 1,024 in 1,024 (four), at 1 and 2
// workers. The first proof of a process faults in the
// filler's vectors: -count ≥ 2, or a benchtime well above 1x, measures the
// steady state.
func BenchmarkFill(b *testing.B) {
	for _, size := range []struct{ sigs, nLog int }{{200, 8}, {300, 9}, {700, 10}, {1024, 10}} {
		b.Run(fmt.Sprintf("sigs=%d", size.sigs), func(b *testing.B) {
			if testing.Short() && size.sigs > 200 {
				b.Skip("solves 16 groups of 64 blocks of 2^21 columns")
			}
			in, err := Generate(size.sigs, 5, DefaultCache())
			if err != nil {
				b.Fatal(err)
			}
			c := New()
			words := c.Size() / 64 << size.nLog
			// As the flow's stack: huge pages (the packing's stores stride across it).
			wit, wa, wb := buffers.Make[field.K](words), buffers.Make[field.K](words), buffers.Make[field.K](words)
			for _, w := range []int{1, 2} {
				b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
					for b.Loop() {
						if err := c.fill(par.New(nil, w), in, size.nLog, wit, wa, wb, nil); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(in.Len())*float64(b.N)/b.Elapsed().Seconds(), "sigs/s")
				})
			}
		})
	}
}

// BenchmarkVerify is a warm verification of a 200-signature aggregate: with the
// circuit's description (a process that never built the circuit) and with the
// built circuit's walk (a process that proved), as bench measures it.
func BenchmarkVerify(b *testing.B) {
	if testing.Short() {
		b.Skip("proves a 200-signature aggregate")
	}
	in, err := Generate(200, 1, DefaultCache())
	if err != nil {
		b.Fatal(err)
	}
	p := proveInput(b, Flow, in, 2)
	for _, v := range []struct {
		name string
		m    func() lincheck.Matrices
	}{
		{"described", func() lincheck.Matrices { return Matrices() }},
		{"walk", func() lincheck.Matrices { return New().Circuit }},
	} {
		f := newFlowWith(hooks{matrices: v.m}, nil)
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := f.Verify(p.Proof, p.Statement); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBilinearTensor is the lincheck verifier's matrix term on the XMSS
// circuit (one walk at 64-entry tensor weights) at each level of the circuit
// family, on one core. cpu-ms/op is the walking thread's CPU time (the machine
// may be shared).
func BenchmarkBilinearTensor(b *testing.B) {
	c := New().Circuit
	r := testrand.New(b)
	randVec := func(n int) []field.E { return randEVec(r, n) }
	e := circuit.Tensor{Low: randVec(64), High: randVec(LogSize - 6)}
	w := circuit.Tensor{Low: randVec(64), High: randVec(LogSize - 6)}
	for _, l := range circuit.Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			// Here, not around the loop: the testing package sets GOMAXPROCS to
			// the -cpu value before each sub-benchmark, and on more than one
			// core the walk runs its planned segments side by side.
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			defer cpu.SetLevel(l)()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0, ok := rusage.Thread()
			for b.Loop() {
				c.BilinearTensor(e, w)
			}
			if t1, _ := rusage.Thread(); ok {
				b.ReportMetric(float64((t1-t0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.NumInstr()), "ns/instr")
		})
	}
}

// BenchmarkSolveWidth walks the XMSS circuit's program over 4 groups of 64 blocks
// the ways the filler can cut them between workers: one walk of all 4 ("4"), two
// walks of 2 one after the other ("2+2"), and two walks of 2 side by side ("2|2",
// two goroutines). ns/step/group is the time per program step and bit-sliced
// group; the walk's cost per step that does not depend on the groups (fetching,
// decoding, dispatching) makes it higher for the narrower walks.
func BenchmarkSolveWidth(b *testing.B) {
	c := New()
	r := testrand.New(b)
	var ws, as, bs [4][]uint64
	for k := range ws {
		ws[k], as[k], bs[k] = make([]uint64, c.Size()), make([]uint64, c.Size()), make([]uint64, c.Size())
		for _, col := range c.Inputs() {
			ws[k][col] = r.Uint64()
		}
		ws[k][c.ConstCol()] = ^uint64(0)
	}
	walk := func(lo, hi int) { c.Circuit.SolveMany(ws[lo:hi], as[lo:hi], bs[lo:hi]) }
	for _, v := range []struct {
		name string
		run  func()
	}{
		{"4", func() { walk(0, 4) }},
		{"2+2", func() { walk(0, 2); walk(2, 4) }},
		{"2|2", func() {
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				walk(0, 2)
			}()
			walk(2, 4)
			wg.Wait()
		}},
	} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				v.run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.NumInstr())/4, "ns/step/group")
		})
	}
}

// BenchmarkTransposeTensor is the lincheck prover's combined column on the XMSS
// circuit (circuit.TransposeTensorOn at 64-entry tensor row weights), serially and
// on two workers (its segments walked side by side, once planned).
func BenchmarkTransposeTensor(b *testing.B) {
	c := New().Circuit
	r := testrand.New(b)
	randVec := func(n int) []field.E { return randEVec(r, n) }
	e := circuit.Tensor{Low: randVec(64), High: randVec(LogSize - 6)}
	mu := randVec(1)[0]
	dst := make([]field.E, c.Size())
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			workers := par.New(nil, w)
			for range 3 { // past the serial walks before the segments are planned
				c.TransposeTensorOn(dst, e, mu, workers)
			}
			for b.Loop() {
				c.TransposeTensorOn(dst, e, mu, workers)
			}
		})
	}
}

// BenchmarkLincheck is the lincheck prover alone on the XMSS circuit at 256 slots
// (200 signatures' padded witness, random bits, the last 56 slots one padding
// block) and random zerocheck claims, at 1 and 2 workers: the combined column's
// transpose walk beside the slot fold, then the sumcheck. The circuit's segments
// are planned before timing, as in a long-running process.
func BenchmarkLincheck(b *testing.B) {
	const nLog, live = 8, 200
	cc := New().Circuit
	r := testrand.New(b)
	words := cc.Size() / 64
	q := make([]field.K, words<<nLog)
	for i := range q[:words*live] {
		q[i] = field.K(r.Uint64())
	}
	for s := live + 1; s < 1<<nLog; s++ {
		copy(q[s*words:(s+1)*words], q[live*words:(live+1)*words])
	}
	zc := lincheck.ZerocheckClaims{ZSkip: randEVec(r, 1)[0], Chi: randEVec(r, LogSize-lincheck.KSkip+nLog)}
	restore := circuit.PlanSegmentsAfter(0)
	defer circuit.PlanSegmentsAfter(restore)
	var sc lincheck.Scratch
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			workers := par.New(nil, w)
			sc.Prove(transcript.NewProver([]byte("bench"), nil), cc, q, live, zc, workers) // warm the scratch
			for b.Loop() {
				sc.Prove(transcript.NewProver([]byte("bench"), nil), cc, q, live, zc, workers)
			}
		})
	}
}

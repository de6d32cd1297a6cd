package aggregate

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/internal/rusage"
	"github.com/leanpipe/leanpipe/internal/testrand"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// BenchmarkFill is the witness stage alone: plan, bit-sliced solve and packing of
// 200 signers in 256 slots.
func BenchmarkFill(b *testing.B) {
	in, err := Generate(200, 5, DefaultCache())
	if err != nil {
		b.Fatal(err)
	}
	c := New()
	const nLog = 8
	words := c.Size() / 64 << nLog
	wit, wa, wb := make([]field.K, words), make([]field.K, words), make([]field.K, words)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				if err := c.fill(par.New(nil, w), in, nLog, wit, wa, wb, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(in.Len())*float64(b.N)/b.Elapsed().Seconds(), "sigs/s")
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
	randVec := func(n int) []field.E {
		v := make([]field.E, n)
		for i := range v {
			v[i] = field.E{C0: field.K(r.Uint64()), C1: field.K(r.Uint64()), C2: field.K(r.Uint64())}
		}
		return v
	}
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

package lincheck

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
)

// Compile-time check: the real circuit is a lincheck Circuit.
var _ Circuit = (*circuit.Circuit)(nil)

// solvedBatch builds 2^nLog satisfying instances of c with random inputs (the
// constant column set), returns the row-packed witness (block s at words
// [s·W, (s+1)·W)) and the bit-sliced row values A0·z, B0·z (bit s = slot s).
func solvedBatch(rng *rand.Rand, c *circuit.Circuit, nLog int) (q []field.K, a, b []uint64) {
	slots := 1 << nLog
	if slots > 64 {
		panic("solvedBatch: at most 64 slots")
	}
	mask := uint64(1)<<uint(slots) - 1
	if slots == 64 {
		mask = ^uint64(0)
	}
	n := c.Size()
	w := make([]uint64, n)
	for _, col := range c.Inputs() {
		w[col] = rng.Uint64() & mask
	}
	w[c.ConstCol()] = ^uint64(0)
	a = make([]uint64, n)
	b = make([]uint64, n)
	c.Solve(w, a, b)
	if row := c.Satisfied(w); row >= 0 {
		panic("solvedBatch: unsatisfied row")
	}
	words := n / 64
	q = make([]field.K, words*slots)
	for jw := 0; jw < words; jw++ {
		var m [64]uint64
		copy(m[:], w[64*jw:64*jw+64])
		circuit.Transpose64(&m)
		for s := 0; s < slots; s++ {
			q[s*words+jw] = field.K(m[s])
		}
	}
	return q, a, b
}

// slicedClaims computes v_a, v_b, v_c at a random point from the bit-sliced row
// values and the witness, without the circuit's walks.
func slicedClaims(rng *rand.Rand, c *circuit.Circuit, q []field.K, a, b []uint64, nLog int) ZerocheckClaims {
	rounds := c.LogSize() - KSkip
	zc := ZerocheckClaims{ZSkip: randE(rng), Chi: randEs(rng, rounds+nLog)}
	eRow := make([]field.E, c.Size())
	skip := make([]field.E, 1<<KSkip)
	SkipWeights(skip, zc.ZSkip)
	circuit.Tensor{Low: skip, High: zc.Chi[:rounds]}.Fill(eRow)
	eqOut := make([]field.E, 1<<nLog)
	field.EqTable(eqOut, zc.Chi[rounds:])
	words := c.Size() / 64
	for row, e := range eRow {
		var sa, sb, sc field.E
		for s, w := range eqOut {
			if a[row]>>uint(s)&1 != 0 {
				sa = sa.Add(w)
			}
			if b[row]>>uint(s)&1 != 0 {
				sb = sb.Add(w)
			}
			if q[s*words+row/64]>>uint(row%64)&1 != 0 {
				sc = sc.Add(w)
			}
		}
		zc.VA = zc.VA.Add(e.Mul(sa))
		zc.VB = zc.VB.Add(e.Mul(sb))
		zc.VC = zc.VC.Add(e.Mul(sc))
	}
	return zc
}

func TestLincheckBlake2s(t *testing.T) {
	rng := testrand.New(t)
	c := circuit.BLAKE2s()
	const nLog = 3
	q, a, b := solvedBatch(rng, c, nLog)
	zc := slicedClaims(rng, c, q, a, b, nLog)

	tr := &fakeTranscript{}
	pc := Prove(tr, c, q, 0, zc, par.New(nil, 2))
	if len(tr.Stream) != 2*8+KBits {
		t.Fatalf("stream of %d scalars", len(tr.Stream))
	}
	vc, err := Verify(tr.VerifierCopy(), c, zc)
	if err != nil {
		t.Fatalf("honest BLAKE2s lincheck rejected: %v", err)
	}
	if !equalEs(vc.S, pc.S) || !equalEs(vc.Point, pc.Point) {
		t.Fatal("prover and verifier claims differ")
	}
	if !equalEs(sliceClaims(q, vc.Point), vc.S) {
		t.Fatal("slice values are not z(i, point)")
	}
	tr1 := &fakeTranscript{}
	Prove(tr1, c, q, 0, zc, par.New(nil, 1))
	if !equalEs(tr1.Stream, tr.Stream) {
		t.Fatal("stream depends on the worker count")
	}
	// Any mutated scalar is rejected.
	for i := range tr.Stream {
		v := tr.VerifierCopy()
		v.Stream[i] = v.Stream[i].Add(field.E{C2: 1 << uint(rng.IntN(64))})
		if _, err := Verify(v, c, zc); !errors.Is(err, ErrTerminal) {
			t.Fatalf("scalar %d tampered: err = %v", i, err)
		}
	}
	// An unsatisfied witness bit (one output bit flipped) is caught.
	bad := append([]field.K(nil), q...)
	bad[rng.IntN(len(bad))] ^= 1 << uint(rng.IntN(64))
	trb := &fakeTranscript{}
	Prove(trb, c, bad, 0, zc, par.New(nil, 1))
	if _, err := Verify(trb.VerifierCopy(), c, zc); !errors.Is(err, ErrTerminal) {
		t.Fatalf("tampered witness: err = %v", err)
	}
}

// BenchmarkScratch times (*Scratch).Prove on a warm scratch.
func BenchmarkScratch(b *testing.B) {
	sizes := []int{12}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		sizes = append(sizes, 14, 16)
	}
	for _, nLog := range sizes {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("nlog=%d/workers=%d", nLog, workers), func(b *testing.B) {
				rng := testrand.New(b)
				c := circuit.BLAKE2s()
				q := make([]field.K, (c.Size()/64)<<nLog)
				for i := range q {
					q[i] = field.K(rng.Uint64())
				}
				zc := ZerocheckClaims{ZSkip: randE(rng), Chi: randEs(rng, c.LogSize()-KSkip+nLog)}
				var sc Scratch
				sc.Prove(&fakeTranscript{}, c, q, 0, zc, par.New(nil, workers))
				b.ReportAllocs()
				b.ResetTimer()
				cpu := processCPU()
				for i := 0; i < b.N; i++ {
					sc.Prove(&fakeTranscript{}, c, q, 0, zc, par.New(nil, workers))
				}
				reportCPU(b, cpu)
			})
		}
	}
}

func benchReduce(b *testing.B, nLog, workers int, ring bool) {
	rng := testrand.New(b)
	c := circuit.BLAKE2s()
	q := make([]field.K, (c.Size()/64)<<nLog)
	for i := range q {
		q[i] = field.K(rng.Uint64())
	}
	rounds := c.LogSize() - KSkip
	zc := ZerocheckClaims{ZSkip: randE(rng), Chi: randEs(rng, rounds+nLog)}
	weights := make([]field.E, len(q))
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		tr := &fakeTranscript{}
		lc := Prove(tr, c, q, 0, zc, par.New(nil, workers))
		if ring {
			ringswitch.Prove(tr, lc.Point, lc.S, weights, par.New(nil, workers))
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(b.N)*float64(int(1)<<nLog)/b.Elapsed().Seconds(), "slots/s")
}

// BenchmarkProve times the lincheck prover on 2^nLog BLAKE2s slots;
// BenchmarkProveRingSwitch adds the ring switch (dense weights). Sizes past 2^12
// slots run only with LEANPIPE_HEAVY=1.
func BenchmarkProve(b *testing.B) { benchSizes(b, false) }

func BenchmarkProveRingSwitch(b *testing.B) { benchSizes(b, true) }

func benchSizes(b *testing.B, ring bool) {
	sizes := []int{8, 12}
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		sizes = append(sizes, 14, 16)
	}
	for _, nLog := range sizes {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("nlog=%d/workers=%d", nLog, workers), func(b *testing.B) { benchReduce(b, nLog, workers, ring) })
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	rng := testrand.New(b)
	c := circuit.BLAKE2s()
	q, a, bb := solvedBatch(rng, c, 3)
	zc := slicedClaims(rng, c, q, a, bb, 3)
	tr := &fakeTranscript{}
	Prove(tr, c, q, 0, zc, par.New(nil, 1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Verify(tr.VerifierCopy(), c, zc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSumcheck times the product sumcheck alone on tables of the XMSS
// aggregate's size (2^21 columns, far larger than the caches).
func BenchmarkSumcheck(b *testing.B) {
	const logSize = 21
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("log=%d/workers=%d", logSize, workers), func(b *testing.B) {
			rng := testrand.New(b)
			comb, zv := randEs(rng, 1<<logSize), randEs(rng, 1<<logSize)
			var sc Scratch
			sc.comb, sc.zv = make([]field.E, len(comb)), make([]field.E, len(zv))
			w := par.New(nil, workers)
			b.ResetTimer()
			cpu := processCPU()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				copy(sc.comb, comb)
				copy(sc.zv, zv)
				b.StartTimer()
				sc.sumcheck(&quietTranscript{}, logSize-KSkip, w)
			}
			reportCPU(b, cpu)
		})
	}
}

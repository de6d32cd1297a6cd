package zerocheck

import (
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/transcript"
)

var testLabel = []byte("leanpipe-zerocheck-test")

// randInput returns a satisfying input (c = a AND b) of 2^m bits whose instances of
// 2^logInst bits from live on are copies of instance live (logInst = 0: no structure).
func randInput(rng *rand.Rand, m, logInst, live int) Input {
	n := 1 << (m - KSkip)
	in := Input{A: make([]field.K, n), B: make([]field.K, n), C: make([]field.K, n), M: m, LogInstance: logInst, Live: live}
	for x := range in.A {
		// Sparse-ish words exercise the zero-word shortcuts too.
		if rng.IntN(8) == 0 {
			continue
		}
		in.A[x] = field.K(rng.Uint64())
		in.B[x] = field.K(rng.Uint64())
		if rng.IntN(5) == 0 {
			in.B[x] = 0
		}
		in.C[x] = in.A[x] & in.B[x]
	}
	if logInst > 0 {
		w := 1 << (logInst - KSkip)
		count := n / w
		if live < count {
			for s := live + 1; s < count; s++ {
				copy(in.A[s*w:(s+1)*w], in.A[live*w:(live+1)*w])
				copy(in.B[s*w:(s+1)*w], in.B[live*w:(live+1)*w])
				copy(in.C[s*w:(s+1)*w], in.C[live*w:(live+1)*w])
			}
		}
	}
	return in
}

// proveStream runs Prove on a fresh transcript and returns the stream and result.
func proveStream(t testing.TB, in Input, workers int) ([]field.E, Result) {
	t.Helper()
	p := transcript.NewProver(testLabel, nil)
	res, err := Prove(p, in, par.New(nil, workers))
	if err != nil {
		t.Fatalf("Prove: %v", err)
	}
	return p.Proof().Stream, res
}

// verifyStream replays a stream with Verify.
func verifyStream(stream []field.E, m int) (Result, error) {
	v := transcript.NewVerifier(&transcript.Proof{Stream: stream}, testLabel, nil)
	return Verify(v, m)
}

func nodesE(n int) []field.E {
	out := make([]field.E, n)
	for i := range out {
		out[i] = field.FromK(field.Phi8(byte(i)))
	}
	return out
}

func bitOf(w []field.K, i int) bool { return uint64(w[i>>6])>>(i&63)&1 != 0 }

// skipValues returns Σ_s bit(s, x)·weights[s] for every word x.
func skipValues(w []field.K, weights []field.E) []field.E {
	out := make([]field.E, len(w))
	for x, word := range w {
		acc := field.Zero
		for s := 0; s < skipSize; s++ {
			if uint64(word)>>s&1 != 0 {
				acc = acc.Add(weights[s])
			}
		}
		out[x] = acc
	}
	return out
}

// quirkyEval is the claimed value: Σ_x eq(chi, x)·Σ_s L_s(z)·w(s, x).
func quirkyEval(w []field.K, z field.E, chi []field.E) field.E {
	lz := make([]field.E, skipSize)
	field.LagrangeWeights(lz, nodesE(skipSize), z)
	return field.EvalMLE(skipValues(w, lz), chi)
}

// naiveProve is the protocol transcribed directly with full tables and the field
// package's generic routines, for the optimized prover to be compared against.
func naiveProve(t testing.TB, tr ProverTranscript, in Input) Result {
	t.Helper()
	m := in.M
	r := eqPoint(tr.Sample, m)
	eq := make([]field.E, 1<<len(r))
	field.EqTable(eq, r)
	nodes := nodesE(2 * skipSize)
	coset := make([]field.E, skipSize)
	lw := make([]field.E, skipSize)
	for j := range coset {
		field.LagrangeWeights(lw, nodes[:skipSize], nodes[skipSize+j])
		av, bv, cv := skipValues(in.A, lw), skipValues(in.B, lw), skipValues(in.C, lw)
		acc := field.Zero
		for x := range eq {
			acc = acc.Add(eq[x].Mul(av[x].Mul(bv[x]).Add(cv[x])))
		}
		coset[j] = acc
		tr.Send(acc)
	}
	z := tr.Sample()
	vals := make([]field.E, 2*skipSize)
	copy(vals[skipSize:], coset)
	claim := field.LagrangeInterpolate(nodes, vals, z)
	field.LagrangeWeights(lw, nodes[:skipSize], z)
	A, B, C := skipValues(in.A, lw), skipValues(in.B, lw), skipValues(in.C, lw)
	chi := make([]field.E, len(r))
	for i := range r {
		rest := make([]field.E, 1<<(len(r)-i-1))
		field.EqTable(rest, r[i+1:])
		var g0, g1, gi field.E
		for j := range rest {
			a0, a1, b0, b1, c0, c1 := A[2*j], A[2*j+1], B[2*j], B[2*j+1], C[2*j], C[2*j+1]
			g0 = g0.Add(rest[j].Mul(a0.Mul(b0).Add(c0)))
			g1 = g1.Add(rest[j].Mul(a1.Mul(b1).Add(c1)))
			gi = gi.Add(rest[j].Mul(a0.Add(a1).Mul(b0.Add(b1))))
		}
		if got := field.One.Add(r[i]).Mul(g0).Add(r[i].Mul(g1)); got != claim {
			t.Fatalf("naive prover: round %d does not meet its claim (witness not satisfying?)", i)
		}
		coeffs := []field.E{g0, g0.Add(g1).Add(gi), gi}
		tr.SendRoundPoly(coeffs, true)
		chi[i] = tr.Sample()
		claim = field.PolyEval(coeffs, chi[i])
		h := len(A) / 2
		field.FoldLow(A[:h], A, chi[i])
		field.FoldLow(B[:h], B, chi[i])
		field.FoldLow(C[:h], C, chi[i])
		A, B, C = A[:h], B[:h], C[:h]
	}
	tr.Send(A[0])
	tr.Send(B[0])
	return Result{ZSkip: z, Chi: chi, VA: A[0], VB: B[0], VC: C[0]}
}

func sameStream(t testing.TB, what string, got, want []field.E) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: stream has %d scalars, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: scalar %d differs: %v, want %v", what, i, got[i], want[i])
		}
	}
}

func sameResult(a, b Result) bool {
	if a.ZSkip != b.ZSkip || a.VA != b.VA || a.VB != b.VB || a.VC != b.VC || len(a.Chi) != len(b.Chi) {
		return false
	}
	for i := range a.Chi {
		if a.Chi[i] != b.Chi[i] {
			return false
		}
	}
	return true
}

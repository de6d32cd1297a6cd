package lincheck

import (
	"fmt"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// transposeFull writes dst = (A0 + α·B0)ᵀ·eRow at full row weights: the pin does
// not go through the tensor walk the prover uses.
func transposeFull(c Circuit, dst, eRow []field.E, alpha field.E) {
	switch c := c.(type) {
	case *circuit.Circuit:
		c.Transpose(dst, eRow, alpha)
	case *toyCircuit:
		c.transposeFull(dst, eRow, alpha)
	default:
		panic(fmt.Sprintf("transposeFull: circuit of type %T", c))
	}
}

// lincheckProveSimple is the lincheck prover written plainly (bit-by-bit slot
// fold, one goroutine, fresh buffers): the pin for Prove and
// (*Scratch).Prove.
func lincheckProveSimple(tr ProverTranscript, c Circuit, q []field.K, zc ZerocheckClaims) Claim {
	rounds := lincheckRounds(c)
	size := 1 << c.LogSize()
	words := size >> KSkip
	alpha := tr.Sample()
	chiIn, chiOut := zc.Chi[:rounds], zc.Chi[rounds:]
	eRow := make([]field.E, size)
	skip := make([]field.E, 1<<KSkip)
	field.LagrangeWeights(skip, skipNodes[:], zc.ZSkip)
	eq := make([]field.E, 1<<len(chiIn))
	field.EqTable(eq, chiIn)
	for j, w := range eq {
		for i, l := range skip {
			eRow[j<<KSkip+i] = l.Mul(w)
		}
	}
	comb := make([]field.E, size)
	transposeFull(c, comb, eRow, alpha)
	a2 := alpha.Square()
	for i := range comb {
		comb[i] = comb[i].Add(a2.Mul(eRow[i]))
	}
	comb[c.ConstCol()] = comb[c.ConstCol()].Add(a2.Mul(alpha))
	eqOut := make([]field.E, 1<<len(chiOut))
	field.EqTable(eqOut, chiOut)
	zv := make([]field.E, size)
	for s, w := range eqOut {
		foldSlot(zv, q[s*words:(s+1)*words], w)
	}
	challenges := make([]field.E, rounds)
	var running field.E
	for t := range challenges {
		half := len(zv) / 2
		var e0, e1, eInf field.E
		for i := 0; i < half; i++ {
			e0 = e0.Add(comb[i].Mul(zv[i]))
			e1 = e1.Add(comb[i+half].Mul(zv[i+half]))
			eInf = eInf.Add(comb[i].Add(comb[i+half]).Mul(zv[i].Add(zv[i+half])))
		}
		if t > 0 && e0 != running.Add(e1) {
			panic("lincheckProveSimple: round identity broken")
		}
		coeffs := []field.E{e0, e0.Add(e1).Add(eInf), eInf}
		tr.SendRoundPoly(coeffs, false)
		r := tr.Sample()
		challenges[t] = r
		running = field.PolyEval(coeffs, r)
		for i := 0; i < half; i++ {
			zv[i] = zv[i].Add(r.Mul(zv[i].Add(zv[i+half])))
			comb[i] = comb[i].Add(r.Mul(comb[i].Add(comb[i+half])))
		}
		zv, comb = zv[:half], comb[:half]
	}
	s := append([]field.E(nil), zv[:KBits]...)
	for _, v := range s {
		tr.Send(v)
	}
	return Claim{Point: append(reversed(challenges), chiOut...), S: s}
}

// One scratch reused over growing and shrinking shapes and worker counts gives
// the plain prover's stream and claim every time.
func TestScratchMatchesSimple(t *testing.T) {
	rng := testrand.New(t)
	var sc Scratch
	for i, shape := range []struct{ logSize, nLog, live, workers int }{
		{8, 3, 0, 1}, {10, 6, 0, 2}, {9, 7, 70, 1}, {7, 2, 0, 3}, {10, 8, 0, 1}, {9, 6, 33, 2}, {6, 0, 0, 1},
	} {
		lc := newLincheckCase(rng, shape.logSize, shape.nLog, shape.live)
		want := &fakeTranscript{}
		wc := lincheckProveSimple(want, lc.c, lc.q, lc.zc)
		got := &fakeTranscript{}
		gc := sc.Prove(got, lc.c, lc.q, lc.live, lc.zc, par.New(nil, shape.workers))
		if !equalEs(got.Stream, want.Stream) || !equalEs(gc.Point, wc.Point) || !equalEs(gc.S, wc.S) {
			t.Fatalf("case %d %+v: scratch prover differs from the plain prover", i, shape)
		}
		fresh := &fakeTranscript{}
		fc := Prove(fresh, lc.c, lc.q, lc.live, lc.zc, par.New(nil, shape.workers))
		if !equalEs(fresh.Stream, want.Stream) || !equalEs(fc.Point, wc.Point) {
			t.Fatalf("case %d %+v: Prove differs from the plain prover", i, shape)
		}
	}
}

// quietTranscript derives challenges from everything sent without allocating.
type quietTranscript struct{ x field.E }

func (q *quietTranscript) Sample() field.E {
	q.x = q.x.Mul(q.x).Add(field.E{C0: 3, C1: 5, C2: 7})
	return q.x
}
func (q *quietTranscript) Send(v field.E) { q.x = q.x.Add(v) }
func (q *quietTranscript) SendRoundPoly(coeffs []field.E, _ bool) {
	for _, v := range coeffs {
		q.x = q.x.Add(v)
	}
}

// After one proof of a shape, Prove on the same scratch allocates nothing at
// one worker.
func TestScratchAllocs(t *testing.T) {
	rng := testrand.New(t)
	lc := newLincheckCase(rng, 9, 6, 0)
	var sc Scratch
	one := par.New(nil, 1)
	sc.Prove(&quietTranscript{}, lc.c, lc.q, lc.live, lc.zc, one)
	tr := &quietTranscript{}
	if n := testing.AllocsPerRun(5, func() { sc.Prove(tr, lc.c, lc.q, lc.live, lc.zc, one) }); n != 0 {
		t.Fatalf("warm Prove allocates %v times per run", n)
	}
}

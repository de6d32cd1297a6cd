package lincheck

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/simd"
	"github.com/leanpipe/leanpipe/stages/ringswitch"
	"github.com/leanpipe/leanpipe/transcript"
)

// toyCircuit is a random sparse R1CS block given by its rows, for driving the
// lincheck without a real circuit. The lincheck only uses A0, B0 linearly, so
// the witness need not satisfy A0z∘B0z = z for these tests.
type toyCircuit struct {
	logSize, constCol int
	a, b              [][]int
	eRow, eqHi        []field.E // TransposeTensorBeside's scratch
}

func (c *toyCircuit) LogSize() int  { return c.logSize }
func (c *toyCircuit) ConstCol() int { return c.constCol }

func (c *toyCircuit) BilinearTensor(eRow, wCol circuit.Tensor) (va, vb field.E) {
	e, w := make([]field.E, 1<<c.logSize), make([]field.E, 1<<c.logSize)
	eRow.Fill(e)
	wCol.Fill(w)
	for r := range c.a {
		var ra, rb field.E
		for _, col := range c.a[r] {
			ra = ra.Add(w[col])
		}
		for _, col := range c.b[r] {
			rb = rb.Add(w[col])
		}
		va, vb = va.Add(e[r].Mul(ra)), vb.Add(e[r].Mul(rb))
	}
	return va, vb
}

func (c *toyCircuit) TransposeTensorBeside(dst []field.E, e circuit.Tensor, alpha, nu field.E, workers par.Workers, beside ...par.Loop) {
	defer func() {
		for _, l := range beside {
			workers.For(l.N, l.Fn, l.Opts...)
		}
	}()
	// The toy keeps its buffers so that the prover's allocation test counts only
	// the prover's.
	c.eRow = buffers.Grow(c.eRow, 1<<c.logSize)
	c.eqHi = buffers.Grow(c.eqHi, 1<<len(e.High))
	field.EqTable(c.eqHi, e.High)
	for j, h := range c.eqHi {
		field.ScaleE(c.eRow[j*len(e.Low):(j+1)*len(e.Low)], e.Low, h)
	}
	c.transposeFull(dst, c.eRow, alpha)
	field.AddScaledE(dst, c.eRow, nu)
}

// transposeFull writes dst = (A0 + α·B0)ᵀ·eRow from the rows.
func (c *toyCircuit) transposeFull(dst, eRow []field.E, alpha field.E) {
	clear(dst)
	for r := range c.a {
		for _, col := range c.a[r] {
			dst[col] = dst[col].Add(eRow[r])
		}
		ab := alpha.Mul(eRow[r])
		for _, col := range c.b[r] {
			dst[col] = dst[col].Add(ab)
		}
	}
}

func newToyCircuit(rng *rand.Rand, logSize int) *toyCircuit {
	n := 1 << logSize
	c := &toyCircuit{logSize: logSize, constCol: rng.IntN(n), a: make([][]int, n), b: make([][]int, n)}
	for r := 0; r < n; r++ {
		for k := rng.IntN(4); k > 0; k-- {
			c.a[r] = append(c.a[r], rng.IntN(n))
		}
		for k := rng.IntN(4); k > 0; k-- {
			c.b[r] = append(c.b[r], rng.IntN(n))
		}
	}
	return c
}

// toyWitness returns a packed witness of 2^nLog random blocks with the constant
// column set; slots [live, 2^nLog) repeat one padding block.
func toyWitness(rng *rand.Rand, c *toyCircuit, nLog, live int) []field.K {
	words := 1 << (c.logSize - KSkip)
	slots := 1 << nLog
	q := make([]field.K, words*slots)
	for i := range q {
		q[i] = field.K(rng.Uint64())
	}
	for s := 0; s < slots; s++ {
		q[s*words+c.constCol/64] |= 1 << uint(c.constCol%64)
	}
	if live > 0 && live < slots {
		pad := q[(slots-1)*words:]
		for s := live; s < slots-1; s++ {
			copy(q[s*words:(s+1)*words], pad)
		}
	}
	return q
}

func bitAt(q []field.K, words, slot, col int) bool {
	return q[slot*words+col/64]>>uint(col%64)&1 != 0
}

// honestClaims computes the zerocheck's three claims at a random point directly
// from the matrices and the bits.
func honestClaims(rng *rand.Rand, c *toyCircuit, q []field.K, nLog int) ZerocheckClaims {
	rounds := c.logSize - KSkip
	zc := ZerocheckClaims{ZSkip: randE(rng), Chi: randEs(rng, rounds+nLog)}
	n, words := 1<<c.logSize, n0(c)
	eqOut := make([]field.E, 1<<nLog)
	field.EqTable(eqOut, zc.Chi[rounds:])
	zhat := make([]field.E, n)
	for s, w := range eqOut {
		for col := 0; col < n; col++ {
			if bitAt(q, words, s, col) {
				zhat[col] = zhat[col].Add(w)
			}
		}
	}
	skip := make([]field.E, 64)
	nodes := make([]field.E, 64)
	for i := range nodes {
		nodes[i] = field.FromK(field.Phi8(byte(i)))
	}
	field.LagrangeWeights(skip, nodes, zc.ZSkip)
	eqIn := make([]field.E, 1<<rounds)
	field.EqTable(eqIn, zc.Chi[:rounds])
	for r := 0; r < n; r++ {
		e := skip[r%64].Mul(eqIn[r/64])
		va, vb := field.Zero, field.Zero
		for _, col := range c.a[r] {
			va = va.Add(zhat[col])
		}
		for _, col := range c.b[r] {
			vb = vb.Add(zhat[col])
		}
		zc.VA = zc.VA.Add(e.Mul(va))
		zc.VB = zc.VB.Add(e.Mul(vb))
		zc.VC = zc.VC.Add(e.Mul(zhat[r]))
	}
	return zc
}

func n0(c *toyCircuit) int { return 1 << (c.logSize - KSkip) }

func TestPartialFold(t *testing.T) {
	rng := testrand.New(t)
	for _, tc := range []struct{ words, nLog, live int }{
		{1, 0, 0}, {2, 1, 0}, {4, 2, 3}, {4, 3, 0}, {8, 3, 5}, {4, 5, 0}, {4, 5, 17}, {2, 6, 8}, {3, 4, 1},
	} {
		slots := 1 << tc.nLog
		q := make([]field.K, tc.words*slots)
		for i := range q {
			q[i] = field.K(rng.Uint64())
		}
		if tc.live > 0 {
			pad := q[(slots-1)*tc.words:]
			for s := tc.live; s < slots; s++ {
				copy(q[s*tc.words:(s+1)*tc.words], pad)
			}
		}
		eqOut := randEs(rng, slots)
		want := make([]field.E, tc.words*KBits)
		for s := 0; s < slots; s++ {
			for col := range want {
				if bitAt(q, tc.words, s, col) {
					want[col] = want[col].Add(eqOut[s])
				}
			}
		}
		for _, workers := range []int{1, 2, 5} {
			got := make([]field.E, len(want))
			for i := range got {
				got[i] = field.One // PartialFold must overwrite
			}
			PartialFold(got, q, tc.words, eqOut, tc.live, par.New(nil, workers))
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%+v workers=%d: dst[%d] = %v, want %v", tc, workers, i, got[i], want[i])
				}
			}
		}
	}
}

type lincheckCase struct {
	c     *toyCircuit
	q     []field.K
	nLog  int
	live  int
	zc    ZerocheckClaims
	words int
}

func newLincheckCase(rng *rand.Rand, logSize, nLog, live int) *lincheckCase {
	c := newToyCircuit(rng, logSize)
	q := toyWitness(rng, c, nLog, live)
	return &lincheckCase{c: c, q: q, nLog: nLog, live: live, zc: honestClaims(rng, c, q, nLog), words: n0(c)}
}

func (lc *lincheckCase) prove(workers int) (*fakeTranscript, Claim) {
	tr := &fakeTranscript{}
	cl := Prove(tr, lc.c, lc.q, lc.live, lc.zc, par.New(nil, workers))
	return tr, cl
}

func TestLincheckRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	for _, shape := range []struct{ logSize, nLog, live int }{
		{6, 0, 0}, {7, 2, 0}, {8, 3, 0}, {9, 4, 5}, {8, 5, 9}, {10, 3, 0},
	} {
		lc := newLincheckCase(rng, shape.logSize, shape.nLog, shape.live)
		tr, pc := lc.prove(2)
		rounds := shape.logSize - KSkip
		if want := 2*rounds + KBits; len(tr.Stream) != want {
			t.Fatalf("%+v: stream of %d scalars, want %d", shape, len(tr.Stream), want)
		}
		vc, err := Verify(tr.VerifierCopy(), lc.c, lc.zc)
		if err != nil {
			t.Fatalf("%+v: honest lincheck rejected: %v", shape, err)
		}
		if !equalEs(vc.Point, pc.Point) || !equalEs(vc.S, pc.S) {
			t.Fatalf("%+v: prover and verifier claims differ", shape)
		}
		if len(vc.Point) != rounds+shape.nLog {
			t.Fatalf("%+v: point of %d coordinates", shape, len(vc.Point))
		}
		// The slice values are the bit-slice MLEs of the packed witness at the point.
		if want := sliceClaims(lc.q, vc.Point); !equalEs(want, vc.S) {
			t.Fatalf("%+v: slice values are not z(i, point)", shape)
		}
		// Chained into the ring switch, the claim holds on the committed column.
		rc := ringswitch.Prove(tr, pc.Point, pc.S, nil, par.New(nil, 2))
		sum := field.Zero
		for u, w := range rc.Weights {
			sum = sum.Add(w.MulK(lc.q[u]))
		}
		if sum != rc.Target {
			t.Fatalf("%+v: ring claim does not hold", shape)
		}
	}
}

func randE(rng *rand.Rand) field.E {
	return field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
}

func randEs(rng *rand.Rand, n int) []field.E {
	out := make([]field.E, n)
	for i := range out {
		out[i] = randE(rng)
	}
	return out
}

// sliceClaims returns s_i = Σ_u eq(point, u)·bit_i(q(u)), computed directly.
func sliceClaims(q []field.K, point []field.E) []field.E {
	eq := make([]field.E, len(q))
	field.EqTable(eq, point)
	s := make([]field.E, KBits)
	for u, w := range q {
		for i := 0; i < KBits; i++ {
			if w>>uint(i)&1 != 0 {
				s[i] = s[i].Add(eq[u])
			}
		}
	}
	return s
}

func equalEs(a, b []field.E) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLincheckWorkersAndPadding(t *testing.T) {
	rng := testrand.New(t)
	lc := newLincheckCase(rng, 9, 5, 11)
	ref, _ := lc.prove(1)
	for _, concurrent := range []int{concurrentCombLog, 0} { // 0: the transpose beside the fold
		old := concurrentCombLog
		concurrentCombLog = concurrent
		for _, workers := range []int{2, 3, 8} {
			tr, _ := lc.prove(workers)
			if !equalEs(tr.Stream, ref.Stream) {
				t.Fatalf("workers=%d, concurrent comb from 2^%d: stream differs from workers=1", workers, concurrent)
			}
		}
		concurrentCombLog = old
	}
	// Folding every slot densely gives the same stream as the padding shortcut.
	dense := *lc
	dense.live = 0
	tr, _ := dense.prove(2)
	if !equalEs(tr.Stream, ref.Stream) {
		t.Fatal("padding-tail fold changes the stream")
	}
	// A block of 2^14 columns: the rounds' folds and sums are shared by the
	// workers (foldEvals cuts tables of 2^12 pairs and more).
	big := newLincheckCase(rng, 14, 2, 3)
	ref, _ = big.prove(1)
	for _, workers := range []int{2, 3} {
		if tr, _ := big.prove(workers); !equalEs(tr.Stream, ref.Stream) {
			t.Fatalf("2^14 columns, workers=%d: stream differs from workers=1", workers)
		}
	}
}

func TestLincheckTamper(t *testing.T) {
	rng := testrand.New(t)
	lc := newLincheckCase(rng, 8, 3, 0)
	tr, pc := lc.prove(1)
	for i := range tr.Stream {
		v := tr.VerifierCopy()
		v.Stream[i] = v.Stream[i].Add(field.E{C1: 1 << uint(rng.IntN(64))})
		cl, err := Verify(v, lc.c, lc.zc)
		if err == nil && equalEs(cl.S, pc.S) && equalEs(cl.Point, pc.Point) {
			t.Fatalf("scalar %d tampered: accepted with the same claim", i)
		}
		if err != nil && !errors.Is(err, ErrTerminal) {
			t.Fatalf("scalar %d tampered: unexpected error %v", i, err)
		}
	}
	// Wrong zerocheck claims are caught at the terminal.
	for k := 0; k < 4; k++ {
		zc := lc.zc
		zc.Chi = append([]field.E(nil), lc.zc.Chi...)
		switch k {
		case 0:
			zc.VA = zc.VA.Add(field.One)
		case 1:
			zc.VB = zc.VB.Add(field.One)
		case 2:
			zc.VC = zc.VC.Add(field.One)
		case 3:
			zc.ZSkip = zc.ZSkip.Add(field.One)
		}
		if _, err := Verify(tr.VerifierCopy(), lc.c, zc); !errors.Is(err, ErrTerminal) {
			t.Fatalf("claim tamper %d: err = %v, want terminal mismatch", k, err)
		}
	}
	// A truncated stream and a short point are errors, not panics.
	v := tr.VerifierCopy()
	v.Stream = v.Stream[:len(v.Stream)-1]
	if _, err := Verify(v, lc.c, lc.zc); !errors.Is(err, transcript.ErrStreamExhausted) {
		t.Fatalf("truncated stream: err = %v", err)
	}
	short := lc.zc
	short.Chi = short.Chi[:1]
	if _, err := Verify(tr.VerifierCopy(), lc.c, short); !errors.Is(err, ErrShape) {
		t.Fatalf("short point: err = %v", err)
	}
}

// A witness violating the linear relations (one bit flipped after the claims
// were computed) cannot be proved: the honest-looking stream is rejected.
func TestLincheckWrongWitness(t *testing.T) {
	rng := testrand.New(t)
	lc := newLincheckCase(rng, 8, 3, 0)
	col := rng.IntN(len(lc.q))
	lc.q[col] ^= 1 << uint(rng.IntN(64))
	tr, _ := lc.prove(1)
	if _, err := Verify(tr.VerifierCopy(), lc.c, lc.zc); !errors.Is(err, ErrTerminal) {
		t.Fatalf("flipped witness bit: err = %v, want terminal mismatch", err)
	}
}

func TestTransposeBytes8x8(t *testing.T) {
	rng := testrand.New(t)
	var w [8]uint64
	for e := range w {
		w[e] = rng.Uint64()
	}
	y := w
	simd.TransposeBytes8x8(&y)
	for e := 0; e < 8; e++ {
		for b := 0; b < 8; b++ {
			if byte(w[e]>>(8*b)) != byte(y[b]>>(8*e)) {
				t.Fatalf("byte (%d,%d) misplaced", e, b)
			}
		}
	}
}

// eqAt is one entry of the eq table.
func TestEqAt(t *testing.T) {
	rng := testrand.New(t)
	for _, n := range []int{0, 1, 5, 9} {
		point := randEs(rng, n)
		table := make([]field.E, 1<<n)
		field.EqTable(table, point)
		for j, want := range table {
			if got := eqAt(point, j); got != want {
				t.Fatalf("%d coordinates, entry %d: %v, want %v", n, j, got, want)
			}
		}
	}
}

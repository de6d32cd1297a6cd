package zerocheck

import (
	"fmt"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// Input is the zerocheck's statement and witness: three bit vectors of 2^M bits with
// a·b + c = 0 at every index, packed 64 to a word — bit s of word x (LSB first) is the
// value at index 64x + s, so the low KSkip index bits are the skip variable and word
// index bit t is variable KSkip + t (the eq coordinate r[t]).
//
// For the Flock R1CS, C is the witness w itself (C = I), A = A·w and B = B·w.
//
// The vector is a sequence of instances of 2^LogInstance bits. Instances at index
// Live and above must all equal instance Live (padding copies of one instance); the
// prover then reads only instances [0, Live] and the proof bytes are the same as
// for a prover that reads them all. Live = 2^(M − LogInstance) (or LogInstance = 0)
// turns the shortcut off.
type Input struct {
	A, B, C     []field.K
	M           int
	LogInstance int
	Live        int
}

// ErrInput reports an ill-formed Input.
var ErrInput = fmt.Errorf("zerocheck: bad input")

func (in *Input) split() (a, b, c words, err error) {
	if in.M < MinVars || in.M > 40 {
		return a, b, c, fmt.Errorf("%w: m = %d out of range [%d, 40]", ErrInput, in.M, MinVars)
	}
	n := 1 << (in.M - KSkip)
	if len(in.A) != n || len(in.B) != n || len(in.C) != n {
		return a, b, c, fmt.Errorf("%w: want %d words per vector, got %d, %d, %d", ErrInput, n, len(in.A), len(in.B), len(in.C))
	}
	a, b, c = words{head: in.A}, words{head: in.B}, words{head: in.C}
	if in.LogInstance == 0 {
		return a, b, c, nil
	}
	if in.LogInstance < KSkip+groupLog || in.LogInstance > in.M {
		return a, b, c, fmt.Errorf("%w: LogInstance = %d out of range [%d, m]", ErrInput, in.LogInstance, KSkip+groupLog)
	}
	count := 1 << (in.M - in.LogInstance)
	if in.Live < 0 || in.Live > count {
		return a, b, c, fmt.Errorf("%w: Live = %d out of range [0, %d]", ErrInput, in.Live, count)
	}
	if in.Live == count {
		return a, b, c, nil
	}
	w := 1 << (in.LogInstance - KSkip)
	h := in.Live * w
	a = words{head: in.A[:h], pad: in.A[h : h+w]}
	b = words{head: in.B[:h], pad: in.B[h : h+w]}
	c = words{head: in.C[:h], pad: in.C[h : h+w]}
	return a, b, c, nil
}

// Buffers holds the prover's E tables (36·2^(m−6) bytes for the live part)
// so that a long-running prover reuses them across proofs. The zero value is ready;
// a Buffers must not be shared by concurrent proofs.
type Buffers struct {
	t [3][]field.E
}

// Take hands the tables' memory over (contents unspecified) and leaves b empty: a
// prover whose later stages need E scratch of this size reuses it instead of
// allocating (and zeroing) more.
func (b *Buffers) Take() [][]field.E {
	var out [][]field.E
	for v := range b.t {
		if cap(b.t[v]) > 0 {
			out = append(out, b.t[v][:cap(b.t[v])])
		}
		b.t[v] = nil
	}
	return out
}

// ProveWith runs the zerocheck prover on any prover transcript on the workers; buf
// (nil: allocate) holds its tables. The transcript bytes do not depend on the workers,
// buf or Live. When the workers stop (a panic in a chunk, a cancelled context) it
// returns their error and the transcript is to be discarded.
func ProveWith(tr ProverTranscript, in Input, workers par.Workers, buf *Buffers) (Result, error) {
	if buf == nil {
		buf = new(Buffers)
	}
	a, b, c, err := in.split()
	if err != nil {
		return Result{}, err
	}
	d := domain()
	r := eqPoint(tr.Sample, in.M)

	// Univariate skip.
	coset := skipMessage(d, a, b, c, r[NInner:], workers)
	if workers.Stopped() {
		return Result{}, workers.Err()
	}
	for _, v := range coset {
		tr.Send(v)
	}
	z := tr.Sample()
	running := d.interpolateCoset(coset[:], z)

	var lzBasis [skipSize]field.E
	d.lagrange64(lzBasis[:], z)
	lz := new(byteTables)
	lz.fill(&lzBasis)

	chi := make([]field.E, len(r))
	round := func(i int, g [2]field.E) {
		running, chi[i] = sendRound(tr, running, r[i], g[0], g[1])
	}

	// Rounds 0 and 1 straight from the bits (round 1 reads them through tables folded
	// at z and chi_0).
	round(0, bitsRound(lz, a, b, c, r[1:], workers))
	if workers.Stopped() {
		return Result{}, workers.Err()
	}
	var b0, b1 [skipSize]field.E
	for s := range lzBasis {
		b1[s] = chi[0].Mul(lzBasis[s])
		b0[s] = b1[s].Add(lzBasis[s])
	}
	t0, t1 := new(byteTables), new(byteTables)
	t0.fill(&b0)
	t1.fill(&b1)
	// Round 1 keeps its table at (z, chi_0), 2^(m-7) entries per vector, in buf.t; the
	// fold at chi_1 then halves it in place and the upper halves serve as the other
	// side of the ping-pong.
	nq := len(a.head) / 4
	var st [3]halves
	for v := range st {
		// On a cold Buffers each table is a large fresh allocation: check for a
		// stop between them.
		if workers.Stopped() {
			return Result{}, workers.Err()
		}
		buf.t[v] = buffers.GrowUninit(buf.t[v], 2*nq) // written in full by round 1
		st[v].head = buf.t[v]
	}
	round(1, bitsRound1(t0, t1, a, b, c, r[2:], &st, workers))

	// The remaining rounds on E tables, each fold sharing its pass with the next
	// round's message, ping-ponging between the two halves of buf.t.
	t, g := foldHalvesRound(&st, chi[1], r[3:], workers)
	round(2, g)
	spare := [3][]field.E{buf.t[0][nq:], buf.t[1][nq:], buf.t[2][nq:]}
	for i := 3; i < len(r); i++ {
		if workers.Stopped() {
			return Result{}, workers.Err()
		}
		next, g := eFoldRound(&t, chi[i-1], spare, r[i+1:], workers)
		spare = [3][]field.E{t[0].head, t[1].head, t[2].head}
		t = next
		round(i, g)
	}
	last := chi[len(r)-1]
	ta, tb := eFold(&t[0], last, spare[0], workers), eFold(&t[1], last, spare[1], workers)
	if err := workers.Err(); err != nil {
		return Result{}, err
	}
	va, vb := ta.at(0), tb.at(0)
	tr.Send(va)
	tr.Send(vb)
	return Result{ZSkip: z, Chi: chi, VA: va, VB: vb, VC: running.Add(va.Mul(vb))}, nil
}

// sendRound sends one quadratic round with the eq factor r pulled out: the message
// G has G(0) fixed by (1 + r)·G(0) + r·G(1) = claim, and G(X) = G(0)·(1+X) + G(1)·X +
// G(∞)·X·(1+X), in coefficients (G(0), G(0)+G(1)+G(∞), G(∞)). It returns G(chi), chi.
func sendRound(tr ProverTranscript, claim, r, g1, gi field.E) (field.E, field.E) {
	g0 := claim.Add(r.Mul(g1)).Mul(field.One.Add(r).Inv())
	coeffs := []field.E{g0, g0.Add(g1).Add(gi), gi}
	tr.SendRoundPoly(coeffs, true)
	chi := tr.Sample()
	return field.PolyEval(coeffs, chi), chi
}

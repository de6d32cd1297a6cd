package recursion

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// Deferred fixed-matrix claims and their batching (docs/recursion.md §5.1).
//
// A claim on a circuit's matrices A0, B0 (2^L rows and columns, index bits low first)
// says e_rowᵀ·A0·w_col = VA and e_rowᵀ·B0·w_col = VB for weights that are tensors: 64
// values over the six low index bits times the equality kernel of a point over the
// high bits. A lincheck leaves such a claim (e_row = L(z_skip) ⊗ eq(chi_in),
// w_col = s ⊗ eq(chi_in′)); a batch leaves one at a point (both weights eq kernels).
// BatchMatrixClaims reduces any number of claims on one circuit to one claim at a
// common point by a sumcheck over the 2L row and column variables; CheckMatrixClaim
// evaluates a claim natively, which only the verifier of the proof in hand does.

// LowBits is the width of a weight's explicit low part.
const LowBits = 6

// Weight is Low ⊗ eq(High, ·) over 2^(LowBits+len(High)) indices: index i + 64·j has
// weight Low[i]·eq(High, j). It is circuit.Tensor, the form the circuit's fast
// evaluation takes (BilinearTensor), with Low of exactly 2^LowBits values.
type Weight = circuit.Tensor

// EqWeight is the equality kernel of point (at least LowBits coordinates) as a Weight.
func EqWeight(point []field.E) Weight { return circuit.PointTensor(point) }

// weightValid reports whether w is a Weight over 2^logSize indices (checked before any
// use that would panic on a malformed one).
func weightValid(w Weight, logSize int) bool {
	return len(w.Low) == 1<<LowBits && LowBits+len(w.High) == logSize
}

// weightEval returns w's multilinear extension at r (low coordinate first):
// Σ_i Low[i]·eq(r_low, i) · eq(High, r_high).
func weightEval(w Weight, r []field.E) field.E {
	eq := make([]field.E, 1<<LowBits)
	field.EqTable(eq, r[:LowBits])
	return field.InnerProduct(w.Low, eq).Mul(field.EqEval(w.High, r[LowBits:]))
}

// MatrixClaim is Row ᵀ·A0·Col = VA and Row ᵀ·B0·Col = VB.
type MatrixClaim struct {
	Row, Col Weight
	VA, VB   field.E
}

// Matrices is what the batching prover needs of a circuit: its size and its walks
// at tensor weights (*circuit.Circuit implements it).
type Matrices interface {
	LogSize() int
	// RowsTensorOn hands (A0 + μ·B0)·w to sink.
	RowsTensorOn(w circuit.Tensor, mu field.E, sink circuit.RowSink, workers par.Workers)
	// TransposeTensorWith writes (A0 + μ·B0)ᵀ·e, the extra workers' sums in the
	// spare vectors.
	TransposeTensorWith(dst []field.E, spare func(k int) []field.E, e circuit.Tensor, mu field.E, workers par.Workers)
	// BilinearTensor returns (eᵀA0·w, eᵀB0·w).
	BilinearTensor(e, w circuit.Tensor) (va, vb field.E)
}

// Transcripts of the batch, the stages' shapes.
type (
	ClaimsProver interface {
		Observe(x field.E)
		Sample() field.E
		Send(x field.E)
		SendRoundPoly(coeffs []field.E, eq bool)
	}
	ClaimsVerifier interface {
		Observe(x field.E)
		Sample() field.E
		Receive() (field.E, error)
		RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error)
	}
)

// Errors of the batch.
var (
	// ErrClaimShape: a claim's weights do not fit the circuit, or there are none.
	ErrClaimShape = errors.New("recursion: matrix claim does not fit the circuit")
	// ErrBatch: the batch's final identity fails.
	ErrBatch = errors.New("recursion: matrix-claim batch does not hold")
	// ErrClaim: a claim is false (the native check).
	ErrClaim = errors.New("recursion: matrix claim is false")
)

func checkClaims(logSize int, claims []MatrixClaim) error {
	if len(claims) == 0 {
		return fmt.Errorf("%w: no claims", ErrClaimShape)
	}
	for i, c := range claims {
		if !weightValid(c.Row, logSize) || !weightValid(c.Col, logSize) {
			return fmt.Errorf("%w: claim %d has weights of %d+%d and %d+%d entries and coordinates, the circuit 2^%d",
				ErrClaimShape, i, len(c.Row.Low), len(c.Row.High), len(c.Col.Low), len(c.Col.High), logSize)
		}
	}
	return nil
}

// observeClaims binds every claim's weights and values, but those bound marks (their
// weights and values are functions of what the transcript absorbed already: a merged
// child's carried claims, docs/recursion.md §6.11), then draws μ (B against A) and one
// λ per claim.
func observeClaims(observe func(field.E), sample func() field.E, claims []MatrixClaim, bound []bool) (mu field.E, lambda []field.E) {
	for t, c := range claims {
		if t < len(bound) && bound[t] {
			continue
		}
		for _, w := range [...]Weight{c.Row, c.Col} {
			for _, x := range w.Low {
				observe(x)
			}
			for _, x := range w.High {
				observe(x)
			}
		}
		observe(c.VA)
		observe(c.VB)
	}
	mu = sample()
	lambda = make([]field.E, len(claims))
	for i := range lambda {
		lambda[i] = sample()
	}
	return mu, lambda
}

// batchTarget is Σ_t λ_t·(VA_t + μ·VB_t).
func batchTarget(claims []MatrixClaim, mu field.E, lambda []field.E) field.E {
	var s field.E
	for t, c := range claims {
		s = s.Add(lambda[t].Mul(c.VA.Add(mu.Mul(c.VB))))
	}
	return s
}

// roundCoeffs turns q(0), q(1) and the leading coefficient into c0, c1, c2.
func roundCoeffs(q0, q1, qInf field.E) []field.E {
	return []field.E{q0, q0.Add(q1).Add(qInf), qInf}
}

// BatchMatrixClaims is BatchMatrixClaimsWith on GOMAXPROCS workers.
func BatchMatrixClaims(tr ClaimsProver, c Matrices, claims []MatrixClaim) (MatrixClaim, error) {
	return BatchMatrixClaimsWith(tr, c, claims, BatchOptions{Workers: par.New(nil, runtime.GOMAXPROCS(0))})
}

// BatchMatrixClaimsOn is BatchMatrixClaimsWith on the workers.
func BatchMatrixClaimsOn(tr ClaimsProver, c Matrices, claims []MatrixClaim, workers par.Workers) (MatrixClaim, error) {
	return BatchMatrixClaimsWith(tr, c, claims, BatchOptions{Workers: workers})
}

// DefaultStoredRows is BatchOptions.StoredRows when unset.
const DefaultStoredRows = 2

// BatchOptions tunes the batching prover; the proof does not depend on them.
type BatchOptions struct {
	// Workers run the walks and passes (the zero value is one worker).
	Workers par.Workers
	// StoredRows bounds the row vectors (2^L values of E each) the row phase keeps
	// from its first walks to its fold; each further claim's circuit is walked a
	// second time instead. 0 means DefaultStoredRows; at least 1 is kept.
	StoredRows int
	// Scratch, if not nil, lends the row vectors and takes them back: a process
	// that batches again and again keeps one (nil: they are made afresh and
	// dropped).
	Scratch *BatchScratch
}

// BatchScratch keeps a batch's row vectors (the storage of its 2^L-entry tables)
// from one batch to the next, so that a later batch neither allocates nor zeroes
// them. It holds them until the next batch or Release. Safe for one batch at a
// time.
type BatchScratch struct {
	mu   sync.Mutex
	vecs [][]field.E
}

// take returns the scratch's vector k grown to n entries (contents unspecified).
func (s *BatchScratch) take(k, n int) []field.E {
	if s == nil {
		return buffers.Make[field.E](n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.vecs) <= k {
		s.vecs = append(s.vecs, nil)
	}
	s.vecs[k] = buffers.Grow(s.vecs[k], n)
	return s.vecs[k]
}

// Release drops the vectors the scratch holds.
func (s *BatchScratch) Release() {
	s.mu.Lock()
	s.vecs = nil
	s.mu.Unlock()
}

// BatchMatrixClaimsWith proves that claims (on c's A0 and B0) reduce to the returned
// claim at a common point (r_row, r_col), both weights eq kernels: it binds the
// claims, draws μ and λ_t, and runs 2L degree-2 rounds: first over the row variables
// on Σ_t λ_t·Row_t(x)·((A0 + μ·B0)·Col_t)(x), then over the column variables on
// ((A0 + μ·B0)ᵀ·eq(r_row))(y)·Σ_t λ_t·Row_t(r_row)·Col_t(y), and sends A0 and B0 at
// the point. The claims must be true for the result to be; the prover does not
// check them. The proof does not depend on the options.
//
// No table of 2^L entries is formed for a weight. Each claim's circuit is walked
// forward at its column weights (the walks side by side on the workers), which
// reduces its row vector V_t to U_t(i) = Σ_j eq(High_t, j)·V_t(i + 64j): the first six
// rounds (Row_t's Low factor) are then a sumcheck of 64 entries, after which V_t is
// folded once at their challenges to 2^(L−6) entries for the rest (from the stored
// V_t, or by a second walk). The column phase walks the circuit backward once at
// eq(r_row) (computed a window of rows at a time) into f = (A0 + μ·B0)ᵀ·eq(r_row),
// reduced in one pass to each claim's F_t as the row phase's V_t, and folded once
// after six rounds; A0 and B0 at the point are one forward walk at eq weights. At
// peak the batch holds max(min(T, StoredRows), W) vectors of 2^L values, W the
// backward walk's workers (at most 4): the row vectors, whose storage then holds f
// and the extra workers' sums (topped up from the scratch, or made afresh).
func BatchMatrixClaimsWith(tr ClaimsProver, c Matrices, claims []MatrixClaim, opts BatchOptions) (MatrixClaim, error) {
	out, _, _, err := batchMatrixClaims(tr, c, claims, opts)
	return out, err
}

// batchMatrixClaims is BatchMatrixClaimsWith, also returning the batched claim's row
// and column points.
func batchMatrixClaims(tr ClaimsProver, c Matrices, claims []MatrixClaim, opts BatchOptions) (out MatrixClaim, rRow, rCol []field.E, err error) {
	workers := opts.Workers
	stored := opts.StoredRows
	if stored == 0 {
		stored = DefaultStoredRows
	}
	stored = max(1, stored)
	L := c.LogSize()
	if err := checkClaims(L, claims); err != nil {
		return MatrixClaim{}, nil, nil, err
	}
	mu, lambda := observeClaims(tr.Observe, tr.Sample, claims, nil)
	n, blocks := 1<<L, 1<<(L-LowBits)
	T := len(claims)

	// Row phase, rounds 0..5: Σ_t λ_t·Σ_i Row_t.Low[i]·U_t[i].
	hiR := make([][]field.E, T)
	u := make([][]field.E, T)
	rowsV := make([][]field.E, T)
	for t, cl := range claims {
		hiR[t] = make([]field.E, blocks)
		field.EqTable(hiR[t], cl.Row.High)
		u[t] = make([]field.E, 1<<LowBits)
	}
	eachClaim(T, workers, func(t int, w par.Workers) {
		if t < stored {
			rowsV[t] = opts.Scratch.take(t, n) // made by the worker that fills it
		}
		c.RowsTensorOn(claims[t].Col, mu, circuit.RowSink{Dst: rowsV[t], U: u[t], UHigh: hiR[t]}, w)
	})
	if err := workers.Err(); err != nil {
		return MatrixClaim{}, nil, nil, fmt.Errorf("recursion: matrix-claim batch: %w", err)
	}
	low := make([][]field.E, T)
	for t, cl := range claims {
		low[t] = append([]field.E(nil), cl.Row.Low...)
	}
	rRow = make([]field.E, L)
	proveProductRounds(tr, rRow[:LowBits], low, u, lambda)
	// Rounds 6..L−1: Σ_t λ_t·ℓ_t·eq(High_t, j)·VF_t(j), ℓ_t = Row_t.Low at r_low.
	eqLow := make([]field.E, 1<<LowBits)
	field.EqTable(eqLow, rRow[:LowBits])
	vf := make([][]field.E, T)
	for t := range vf {
		vf[t] = make([]field.E, blocks)
	}
	eachClaim(T, workers, func(t int, w par.Workers) {
		if rowsV[t] == nil {
			c.RowsTensorOn(claims[t].Col, mu, circuit.RowSink{Fold: vf[t], FoldLow: eqLow}, w)
			return
		}
		foldBlocks(vf[t], rowsV[t], eqLow, w)
	})
	if err := workers.Err(); err != nil {
		return MatrixClaim{}, nil, nil, fmt.Errorf("recursion: matrix-claim batch: %w", err)
	}
	// The column phase reuses the row vectors' storage: f and the extra workers'
	// sums of the backward walk.
	f := rowsV[0]
	var free [][]field.E
	for _, v := range rowsV[1:] {
		if v != nil {
			free = append(free, v)
		}
	}
	spare := func(k int) []field.E {
		if k-1 < len(free) {
			return free[k-1]
		}
		return opts.Scratch.take(stored+k, n)
	}
	clear(rowsV)
	for t := range hiR {
		field.ScaleE(hiR[t], hiR[t], low[t][0])
	}
	proveProductRounds(tr, rRow[LowBits:], hiR, vf, lambda)

	// Column phase, rounds 0..5: Σ_t c_t·Σ_i Col_t.Low[i]·F_t[i], c_t = λ_t·Row_t(r_row),
	// F_t[i] = Σ_j eq(Col_t.High, j)·f(i + 64j).
	if f == nil {
		f = opts.Scratch.take(0, n)
	}
	c.TransposeTensorWith(f, spare, EqWeight(rRow), mu, workers)
	free = nil
	if err := workers.Err(); err != nil {
		return MatrixClaim{}, nil, nil, fmt.Errorf("recursion: matrix-claim batch: %w", err)
	}
	coef := make([]field.E, T)
	hiC := make([][]field.E, T)
	for t, cl := range claims {
		coef[t] = lambda[t].Mul(hiR[t][0])
		hiC[t] = make([]field.E, blocks)
		field.EqTable(hiC[t], cl.Col.High)
	}
	fu := blockSums(f, hiC, workers)
	for t, cl := range claims {
		low[t] = append(low[t][:0], cl.Col.Low...)
	}
	rCol = make([]field.E, L)
	proveProductRounds(tr, rCol[:LowBits], low, fu, coef)
	// Rounds 6..L−1: fr(j)·Σ_t c_t·Col_t.Low(r_low)·eq(Col_t.High, j).
	field.EqTable(eqLow, rCol[:LowBits])
	fr := make([]field.E, blocks)
	foldBlocks(fr, f, eqLow, workers)
	f = nil
	g := make([]field.E, blocks)
	for t := range claims {
		field.AddScaledE(g, hiC[t], coef[t].Mul(low[t][0]))
	}
	proveProductRounds(tr, rCol[LowBits:], [][]field.E{fr}, [][]field.E{g}, nil)
	// The passes on the workers skip their chunks once the workers stop: their sums
	// are then partial.
	if err := workers.Err(); err != nil {
		return MatrixClaim{}, nil, nil, fmt.Errorf("recursion: matrix-claim batch: %w", err)
	}
	out = MatrixClaim{Row: EqWeight(rRow), Col: EqWeight(rCol)}
	out.VA, out.VB = c.BilinearTensor(out.Row, out.Col)
	if out.VA.Add(mu.Mul(out.VB)) != fr[0] {
		return MatrixClaim{}, nil, nil, errors.New("recursion: matrix-claim batch: the backward walk and the point evaluation disagree (a bug)")
	}
	tr.Send(out.VA)
	tr.Send(out.VB)
	return out, rRow, rCol, nil
}

// eachClaim runs fn for claims 0..T−1: side by side, one worker each, as many at a
// time as there are workers; the claims of a last, partial round one after another
// on all the workers.
func eachClaim(T int, workers par.Workers, fn func(t int, w par.Workers)) {
	n := workers.N()
	side := 0
	if n > 1 {
		side = T - T%n
	}
	if side > 0 {
		one := workers.Limit(1)
		workers.For(side, func(_, lo, hi int) {
			for t := lo; t < hi; t++ {
				fn(t, one)
			}
		}, par.PerWorker(side))
	}
	for t := side; t < T; t++ {
		fn(t, workers)
	}
}

// stageLen is the length of the chunks foldBlocks and blockSums copy out of a
// table before multiplying them: the vector kernels run on an L1-resident copy
// (a copy streams the table at memory speed, which the kernels' own loads do not).
const stageLen = 1 << 10

// foldBlocks sets dst[j] = Σ_i low[i]·src[i + len(low)·j].
func foldBlocks(dst, src, low []field.E, workers par.Workers) {
	l := len(low)
	per := max(1, stageLen/l)
	workers.Range(len(dst), func(lo, hi int) {
		var buf [stageLen]field.E
		for j0 := lo; j0 < hi; j0 += per {
			j1 := min(hi, j0+per)
			b := buf[:(j1-j0)*l]
			copy(b, src[j0*l:j1*l])
			for j := j0; j < j1; j++ {
				dst[j] = field.InnerProduct(low, b[(j-j0)*l:(j-j0+1)*l])
			}
		}
	}, par.MinChunk(1<<10), par.Grain(per))
}

// blockSums returns, for each table hi[t] of len(src)/2^LowBits entries, the 2^LowBits
// sums Σ_j hi[t][j]·src[i + 2^LowBits·j], in one pass over src (each worker's chunks
// into its own sums, added at the end).
func blockSums(src []field.E, hi [][]field.E, workers par.Workers) [][]field.E {
	const l = 1 << LowBits
	const per = stageLen / l
	parts := make([][][]field.E, workers.N())
	workers.For(len(src)/l, func(w, lo, hi2 int) {
		if parts[w] == nil {
			parts[w] = make([][]field.E, len(hi))
			for t := range hi {
				parts[w][t] = make([]field.E, l)
			}
		}
		var buf [stageLen]field.E
		for j0 := lo; j0 < hi2; j0 += per {
			j1 := min(hi2, j0+per)
			b := buf[:(j1-j0)*l]
			copy(b, src[j0*l:j1*l])
			for j := j0; j < j1; j++ {
				blk := b[(j-j0)*l : (j-j0+1)*l]
				for t, h := range hi {
					field.AddScaledE(parts[w][t], blk, h[j])
				}
			}
		}
	}, par.MinChunk(1<<10), par.Grain(per))
	out := make([][]field.E, len(hi))
	for t := range out {
		out[t] = make([]field.E, l)
		for _, p := range parts {
			if p != nil {
				field.AddSlice(out[t], out[t], p[t])
			}
		}
	}
	return out
}

// VerifyMatrixClaims replays BatchMatrixClaims for a circuit of 2^logSize columns and
// returns the batched claim; it checks the round polynomials against the running sum
// and the final identity (VA + μ·VB)·Σ_t λ_t·Row_t(r_row)·Col_t(r_col) = running, from
// the claims' weights alone. The returned claim is true only if every input claim
// was (up to the sumcheck's soundness error); CheckMatrixClaim decides it.
func VerifyMatrixClaims(tr ClaimsVerifier, logSize int, claims []MatrixClaim) (MatrixClaim, error) {
	out, _, _, err := verifyMatrixClaims(tr, logSize, claims)
	return out, err
}

// verifyMatrixClaims is VerifyMatrixClaims, also returning the batched claim's row and
// column points.
func verifyMatrixClaims(tr ClaimsVerifier, logSize int, claims []MatrixClaim) (MatrixClaim, []field.E, []field.E, error) {
	if err := checkClaims(logSize, claims); err != nil {
		return MatrixClaim{}, nil, nil, err
	}
	mu, lambda := observeClaims(tr.Observe, tr.Sample, claims, nil)
	running := batchTarget(claims, mu, lambda)
	point, running, err := verifyProductRounds(tr, 2*logSize, running, "batch")
	if err != nil {
		return MatrixClaim{}, nil, nil, err
	}
	rRow, rCol := point[:logSize], point[logSize:]
	va, err := tr.Receive()
	if err != nil {
		return MatrixClaim{}, nil, nil, fmt.Errorf("recursion: batch A value: %w", err)
	}
	vb, err := tr.Receive()
	if err != nil {
		return MatrixClaim{}, nil, nil, fmt.Errorf("recursion: batch B value: %w", err)
	}
	var weight field.E
	for t, c := range claims {
		weight = weight.Add(lambda[t].Mul(weightEval(c.Row, rRow)).Mul(weightEval(c.Col, rCol)))
	}
	if va.Add(mu.Mul(vb)).Mul(weight) != running {
		return MatrixClaim{}, nil, nil, ErrBatch
	}
	return MatrixClaim{Row: EqWeight(rRow), Col: EqWeight(rCol), VA: va, VB: vb}, rRow, rCol, nil
}

// CheckMatrixClaim evaluates claim natively against m's matrices by the circuit's
// tensor evaluation (circuit.Matrices.BilinearTensor: no block-sized weight vectors;
// aggregate.VerifierMatrices() evaluates the XMSS circuit from its description unless
// the process has built it): the root verifier's discharge of a deferred claim.
func CheckMatrixClaim(m interface {
	LogSize() int
	BilinearTensor(e, w circuit.Tensor) (va, vb field.E)
}, claim MatrixClaim) error {
	if err := checkClaims(m.LogSize(), []MatrixClaim{claim}); err != nil {
		return err
	}
	va, vb := m.BilinearTensor(claim.Row, claim.Col)
	if va != claim.VA || vb != claim.VB {
		return ErrClaim
	}
	return nil
}

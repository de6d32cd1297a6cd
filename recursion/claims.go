package recursion

import (
	"errors"
	"fmt"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
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

// Matrices is what the batching prover needs of a circuit: its size and its two walks
// (*circuit.Circuit implements it).
type Matrices interface {
	LogSize() int
	// RowValues writes A0·w and B0·w.
	RowValues(dstA, dstB, w []field.E)
	// TransposePair writes A0ᵀ·e and B0ᵀ·e.
	TransposePair(dstA, dstB, e []field.E)
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

// observeClaims binds every claim's weights and values, then draws μ (B against A)
// and one λ per claim.
func observeClaims(observe func(field.E), sample func() field.E, claims []MatrixClaim) (mu field.E, lambda []field.E) {
	for _, c := range claims {
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

// BatchMatrixClaims proves that claims (on c's A0 and B0) reduce to the returned claim
// at a common point (r_row, r_col), both weights eq kernels: it binds the claims,
// draws μ and λ_t, and runs 2L degree-2 rounds: first over the row variables on
// Σ_t λ_t·Row_t(x)·((A0 + μ·B0)·Col_t)(x) (one forward walk per claim), then over the
// column variables on ((A0 + μ·B0)ᵀ·eq(r_row))(y)·Σ_t λ_t·Row_t(r_row)·Col_t(y) (one
// backward walk of both matrices), and sends A0 and B0 at the point. The claims must be
// true for the result to be; the prover does not check them.
func BatchMatrixClaims(tr ClaimsProver, c Matrices, claims []MatrixClaim) (MatrixClaim, error) {
	L := c.LogSize()
	if err := checkClaims(L, claims); err != nil {
		return MatrixClaim{}, err
	}
	mu, lambda := observeClaims(tr.Observe, tr.Sample, claims)
	n := 1 << L
	rows := make([][]field.E, len(claims))
	vals := make([][]field.E, len(claims))
	col := make([]field.E, n)
	bv := make([]field.E, n)
	for t, cl := range claims {
		rows[t] = make([]field.E, n)
		cl.Row.Fill(rows[t])
		vals[t] = make([]field.E, n)
		cl.Col.Fill(col)
		c.RowValues(vals[t], bv, col)
		field.AddScaledE(vals[t], bv, mu)
	}
	rRow := proveProductRounds(tr, L, rows, vals, lambda)
	// Column phase: f = (A0 + μ·B0)ᵀ·eq(r_row), g = Σ_t λ_t·Row_t(r_row)·Col_t.
	eq := make([]field.E, n)
	field.EqTable(eq, rRow)
	fa, fb := make([]field.E, n), make([]field.E, n)
	c.TransposePair(fa, fb, eq)
	f := eq // reuse
	copy(f, fa)
	field.AddScaledE(f, fb, mu)
	g := make([]field.E, n)
	for t, cl := range claims {
		cl.Col.Fill(col)
		field.AddScaledE(g, col, lambda[t].Mul(rows[t][0]))
	}
	ab := [][]field.E{fa, fb}
	rCol := proveProductRounds(tr, L, [][]field.E{f}, [][]field.E{g}, nil, ab...)
	fa, fb = ab[0], ab[1]
	out := MatrixClaim{Row: EqWeight(rRow), Col: EqWeight(rCol), VA: fa[0], VB: fb[0]}
	tr.Send(out.VA)
	tr.Send(out.VB)
	return out, nil
}

// VerifyMatrixClaims replays BatchMatrixClaims for a circuit of 2^logSize columns and
// returns the batched claim; it checks the round polynomials against the running sum
// and the final identity (VA + μ·VB)·Σ_t λ_t·Row_t(r_row)·Col_t(r_col) = running, from
// the claims' weights alone. The returned claim is true only if every input claim
// was (up to the sumcheck's soundness error); CheckMatrixClaim decides it.
func VerifyMatrixClaims(tr ClaimsVerifier, logSize int, claims []MatrixClaim) (MatrixClaim, error) {
	if err := checkClaims(logSize, claims); err != nil {
		return MatrixClaim{}, err
	}
	mu, lambda := observeClaims(tr.Observe, tr.Sample, claims)
	running := batchTarget(claims, mu, lambda)
	point, running, err := verifyProductRounds(tr, 2*logSize, running, "batch")
	if err != nil {
		return MatrixClaim{}, err
	}
	rRow, rCol := point[:logSize], point[logSize:]
	va, err := tr.Receive()
	if err != nil {
		return MatrixClaim{}, fmt.Errorf("recursion: batch A value: %w", err)
	}
	vb, err := tr.Receive()
	if err != nil {
		return MatrixClaim{}, fmt.Errorf("recursion: batch B value: %w", err)
	}
	var weight field.E
	for t, c := range claims {
		weight = weight.Add(lambda[t].Mul(weightEval(c.Row, rRow)).Mul(weightEval(c.Col, rCol)))
	}
	if va.Add(mu.Mul(vb)).Mul(weight) != running {
		return MatrixClaim{}, ErrBatch
	}
	return MatrixClaim{Row: EqWeight(rRow), Col: EqWeight(rCol), VA: va, VB: vb}, nil
}

// CheckMatrixClaim evaluates claim natively against m's matrices by the circuit's
// tensor evaluation (circuit.Matrices.BilinearTensor: no block-sized weight vectors;
// aggregate.VerifierMatrices() evaluates the XMSS circuit from its description unless
// the process has built it): the root verifier's discharge of a deferred claim.
func CheckMatrixClaim(m circuit.Matrices, claim MatrixClaim) error {
	if err := checkClaims(m.LogSize(), []MatrixClaim{claim}); err != nil {
		return err
	}
	va, vb := m.BilinearTensor(claim.Row, claim.Col)
	if va != claim.VA || vb != claim.VB {
		return ErrClaim
	}
	return nil
}

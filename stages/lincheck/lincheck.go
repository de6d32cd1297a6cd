package lincheck

import (
	"errors"
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// KSkip is the number of low row (and column) bits of a block that the
// univariate skip collapses: the skip domain is PHI(0), …, PHI(2^KSkip - 1).
const KSkip = 6

// KBits is the packing width: bits per committed K word, and the number of
// slice values s_i the lincheck sends.
const KBits = 64

// Errors returned by Verify.
var (
	// ErrShape: the claims do not fit the circuit (too few coordinates).
	ErrShape = errors.New("lincheck: claims do not fit the circuit")
	// ErrTerminal: the final sumcheck value disagrees with the circuit's
	// bilinear form at the sent slice values.
	ErrTerminal = errors.New("lincheck: terminal mismatch")
)

// Matrices is what the lincheck verifier needs of the per-block Boolean R1CS: A0,
// B0 over 2^LogSize rows and columns (C0 = I), a constant column pinned to 1 in
// every block, and the two bilinear forms at the verifier's weights, which are
// tensors (the skip weights or the slice values, times an eq table), so no
// block-sized weight vector is ever formed. Row and column index bits are low first;
// the low KSkip bits are the skip coordinate. *circuit.Circuit (a walk of its
// compiled program) and *circuit.Described (a run of the circuit's description,
// nothing built) implement it.
type Matrices interface {
	LogSize() int
	ConstCol() int
	// BilinearTensor returns (e_rowᵀA0·w_col, e_rowᵀB0·w_col).
	BilinearTensor(eRow, wCol circuit.Tensor) (va, vb field.E)
}

var (
	_ Matrices = (*circuit.Circuit)(nil)
	_ Matrices = (*circuit.Described)(nil)
)

// Circuit is what the lincheck prover needs besides Matrices: the transpose walk
// at tensor row weights. *circuit.Circuit implements it.
type Circuit interface {
	Matrices
	// TransposeTensorBeside writes dst = (A0 + α·B0)ᵀ·e + ν·e for the row weights e
	// given as a tensor (never formed in full), on the workers as far as it can
	// (the result does not depend on them), and runs the loops beside
	// (independent work) on the same workers; they are done when it returns.
	TransposeTensorBeside(dst []field.E, e circuit.Tensor, alpha, nu field.E, workers par.Workers, beside ...par.Loop)
}

// ZerocheckClaims is what the zerocheck leaves for the lincheck: the claims
// v_a = (A·z)^, v_b = (B·z)^, v_c = z^ at the point (ZSkip, Chi), Chi low
// coordinate first (block row bits above the skip, then the slot bits). Its
// layout matches zerocheck.Result, so a result converts directly.
type ZerocheckClaims struct {
	ZSkip      field.E
	Chi        []field.E
	VA, VB, VC field.E
}

// Claim is what the lincheck leaves for the ring switch: the 64 slice
// claims S[i] = z(i, Point), i the bit of a committed K word, Point the
// committed column's coordinates (low first: the word-in-block bits, then the
// slot bits).
type Claim struct {
	Point []field.E
	S     []field.E
}

// lincheckRounds returns the number of sumcheck rounds for circuit c.
func lincheckRounds(c Matrices) int { return c.LogSize() - KSkip }

// skipNodes holds PHI(0..63) lifted to E: the skip domain.
var skipNodes = func() (n [1 << KSkip]field.E) {
	for i := range n {
		n[i] = field.FromK(field.Phi8(byte(i)))
	}
	return n
}()

// skipDomain is the Lagrange basis over the skip domain, precomputed once.
var skipDomain = field.NewLagrangeDomain(skipNodes[:])

// SkipWeights writes the Lagrange weights L_i(z) over the skip domain PHI(0..63) into
// dst (64 entries): the low factor of the lincheck's row weights, L(z_skip) ⊗ eq(chi_in).
func SkipWeights(dst []field.E, z field.E) { skipDomain.Weights(dst, z) }

// lincheckTarget returns v_a + α·v_b + α²·v_c + α³, the sumcheck's claim.
func lincheckTarget(zc *ZerocheckClaims, alpha field.E) field.E {
	a2 := alpha.Square()
	return zc.VA.Add(alpha.Mul(zc.VB)).Add(a2.Mul(zc.VC)).Add(a2.Mul(alpha))
}

// eqAt returns eq(point, j) = Π_k (bit k of j ? point[k] : 1 + point[k]), one entry
// of field.EqTable(·, point).
func eqAt(point []field.E, j int) field.E {
	out := field.One
	for k, r := range point {
		if j>>k&1 == 1 {
			out = out.Mul(r)
		} else {
			out = out.Mul(field.One.Add(r))
		}
	}
	return out
}

// Terminal is the value the lincheck's last round must reach, given its matrix term
// e_rowᵀ(A0 + α·B0)w_col: matrix + α²·eq(chi_in, chi_in′)·⟨L(z_skip), s⟩ +
// α³·w_col[const] + α⁴·Σ_j mask(j)·eq(τ, j)·w_col[offset + j] (the last term only with a
// public window win), with skip = L(z_skip) and w_col(i) = s[i mod 64]·eq(chi_in′,
// ⌊i/64⌋). VerifyPublic compares it with the running claim; a recursive verifier that
// replays the lincheck on revealed slice values computes it the same way.
func Terminal(matrix, alpha field.E, skip, chiIn, chiInPrime, s []field.E, constCol int, win *Window, tau []field.E) field.E {
	// w_col is read at a few columns only, so its eq table is never formed.
	wColAt := func(i int) field.E { return s[i&(KBits-1)].Mul(eqAt(chiInPrime, i>>KSkip)) }
	a2 := alpha.Square()
	terminal := matrix.
		Add(a2.Mul(field.EqEval(chiIn, chiInPrime)).Mul(field.InnerProduct(skip, s))).
		Add(a2.Mul(alpha).Mul(wColAt(constCol)))
	if win != nil {
		pair := evalScratches.Get()
		defer evalScratches.Put(pair)
		pair[0], pair[1] = buffers.Grow(pair[0], 1<<win.Log), buffers.Grow(pair[1], 1<<win.Log)
		wts, cols := pair[0], pair[1]
		win.weights(wts, tau)
		for j := 0; j < len(cols); {
			// One eq value per block of KBits columns.
			blk := (win.Offset + j) >> KSkip
			e := eqAt(chiInPrime, blk)
			for ; j < len(cols) && (win.Offset+j)>>KSkip == blk; j++ {
				cols[j] = s[(win.Offset+j)&(KBits-1)].Mul(e)
			}
		}
		terminal = terminal.Add(a2.Square().Mul(field.InnerProduct(wts, cols)))
	}
	return terminal
}

func reversed(v []field.E) []field.E {
	out := make([]field.E, len(v))
	for i, x := range v {
		out[len(v)-1-i] = x
	}
	return out
}

// Verify replays the lincheck on the zerocheck's claims: it samples α, reads
// the LogSize-KSkip round polynomials (c1 implied by the running claim) and the
// 64 slice values, checks the terminal identity
//
//	running = e_rowᵀ(A0 + α·B0)w_col + α²·eq(chi_in, chi_in′)·⟨L(z_skip), s⟩ + α³·w_col[const]
//
// with w_col = s ⊗ eq(chi_in′, ·), chi_in′ the reversed round challenges, and
// returns Point = chi_in′ ++ Chi[LogSize-KSkip:] with the slice values S.
func Verify(tr VerifierTranscript, c Matrices, zc ZerocheckClaims) (Claim, error) {
	return VerifyPublic(tr, c, zc, nil)
}

// VerifyPublic is Verify with a public-input term (nil: none, which is Verify): after
// α it draws τ (pub.Window().Log challenges), adds α⁴·pub.Eval(τ, chi_out) to the
// claim and α⁴·Σ_j mask(j)·eq(τ, j)·w_col[Offset+j] to the terminal.
func VerifyPublic(tr VerifierTranscript, c Matrices, zc ZerocheckClaims, pub Public) (Claim, error) {
	claim, t, err := VerifyPublicDeferred(tr, c, zc, pub)
	if err != nil {
		return Claim{}, err
	}
	if err := t.Check(); err != nil {
		return Claim{}, err
	}
	return claim, nil
}

// TerminalCheck is a lincheck's terminal check, left for later by
// VerifyPublicDeferred: the matrices' bilinear forms at the lincheck's point against
// the last round's claim. It reads no transcript, so a verifier of several linchecks
// may run their checks side by side once every transcript step is done.
type TerminalCheck struct {
	c                          Matrices
	skip, chiIn, chiInPrime, s []field.E
	tau                        []field.E
	alpha, running             field.E
	win                        *Window
}

// Check evaluates the matrices and compares the terminal value with the claim.
func (t *TerminalCheck) Check() error {
	row, col := t.Weights()
	return t.CheckValues(t.c.BilinearTensor(row, col))
}

// Weights are the matrices' row and column weights at the lincheck's point: the skip
// weights ⊗ eq(chi_in, ·) and the slice values ⊗ eq(chi_in′, ·). Callers must not
// write them.
func (t *TerminalCheck) Weights() (row, col circuit.Tensor) {
	return circuit.Tensor{Low: t.skip, High: t.chiIn}, circuit.Tensor{Low: t.s, High: t.chiInPrime}
}

// CheckValues compares the terminal value with the claim, the matrices' bilinear
// forms at Weights taken to be va and vb: a verifier that batches the matrices'
// evaluations checks va and vb elsewhere, and the lincheck holds only once it has.
func (t *TerminalCheck) CheckValues(va, vb field.E) error {
	if Terminal(va.Add(t.alpha.Mul(vb)), t.alpha, t.skip, t.chiIn, t.chiInPrime, t.s, t.c.ConstCol(), t.win, t.tau) != t.running {
		return ErrTerminal
	}
	return nil
}

// Matrices are the circuit the check evaluates.
func (t *TerminalCheck) Matrices() Matrices { return t.c }

// VerifyPublicDeferred is VerifyPublic up to its terminal check, which it returns
// undone: the lincheck is verified only once that check passes too.
func VerifyPublicDeferred(tr VerifierTranscript, c Matrices, zc ZerocheckClaims, pub Public) (Claim, *TerminalCheck, error) {
	rounds := lincheckRounds(c)
	if rounds < 0 || len(zc.Chi) < rounds {
		return Claim{}, nil, fmt.Errorf("%w: %d coordinates for %d rounds", ErrShape, len(zc.Chi), rounds)
	}
	var win Window
	if pub != nil {
		win = pub.Window()
		if err := win.check(c.LogSize()); err != nil {
			return Claim{}, nil, err
		}
	}
	alpha := tr.Sample()
	var tau []field.E
	if pub != nil {
		tau = make([]field.E, win.Log)
		for i := range tau {
			tau[i] = tr.Sample()
		}
	}
	chiIn := zc.Chi[:rounds]
	// The row weights are the tensor skip ⊗ eq(chi_in, ·): only the skip factor is
	// computed.
	skip := make([]field.E, 1<<KSkip)
	skipDomain.Weights(skip, zc.ZSkip)

	running := lincheckTarget(&zc, alpha)
	a4 := alpha.Square().Square()
	if pub != nil {
		running = running.Add(a4.Mul(pub.Eval(tau, zc.Chi[rounds:])))
	}
	challenges := make([]field.E, rounds)
	for t := range challenges {
		q, err := tr.RoundPoly(3, running, nil)
		if err != nil {
			return Claim{}, nil, fmt.Errorf("lincheck: round %d: %w", t, err)
		}
		challenges[t] = tr.Sample()
		running = field.PolyEval(q, challenges[t])
	}
	s := make([]field.E, KBits)
	for i := range s {
		v, err := tr.Receive()
		if err != nil {
			return Claim{}, nil, fmt.Errorf("lincheck: slice %d: %w", i, err)
		}
		s[i] = v
	}

	chiInPrime := reversed(challenges)
	var pubWin *Window
	if pub != nil {
		pubWin = &win
	}
	t := &TerminalCheck{c: c, skip: skip, chiIn: chiIn, chiInPrime: chiInPrime, s: s, tau: tau, alpha: alpha, running: running, win: pubWin}
	// The point gets a fresh array: chiInPrime stays the check's.
	point := append(slices.Clone(chiInPrime), zc.Chi[rounds:]...)
	return Claim{Point: point, S: s}, t, nil
}

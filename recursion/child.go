package recursion

import (
	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// A child's verification with its two large evaluations deferred (docs/recursion.md
// §5): the lincheck's bilinear form e_rowᵀ(A0 + α·B0)w_col is taken as VA + α·VB from
// values the merge prover supplies, and the public term's P(τ, chi_out) as a supplied
// value; every other check runs. What is left is two claims, returned for a parent to
// batch or for the root to evaluate (CheckMatrixClaim, CheckKeyClaim). VerifyChild is
// the native form of what the recursion circuit checks per child.

// ChildValues are the deferred evaluations' values.
type ChildValues struct {
	VA, VB field.E // e_rowᵀ·A0·w_col and e_rowᵀ·B0·w_col
	Key    field.E // P(τ, chi_out)
}

// KeyClaim says the child's key table (its statement's lincheck.Table) has the
// multilinear extension Value at (Tau, ChiOut).
type KeyClaim struct {
	Tau, ChiOut []field.E
	Value       field.E
}

// ChildClaims are the claims verifying one child leaves.
type ChildClaims struct {
	Matrix MatrixClaim // on the xmss-aggregate circuit's A0 and B0
	Key    KeyClaim
	// Alpha is the child lincheck's α: its terminal used VA + α·VB and α⁴·Key.
	Alpha field.E
}

// deferredMatrices stands for the circuit in the lincheck's terminal: its bilinear
// forms are VA and VB, supplied or, on the prover's side (real set), evaluated.
type deferredMatrices struct {
	logSize, constCol int
	va, vb            field.E
	real              circuit.Matrices
}

func (d *deferredMatrices) LogSize() int  { return d.logSize }
func (d *deferredMatrices) ConstCol() int { return d.constCol }

func (d *deferredMatrices) BilinearTensor(eRow, wCol circuit.Tensor) (field.E, field.E) {
	if d.real != nil {
		d.va, d.vb = d.real.BilinearTensor(eRow, wCol)
	}
	return d.va, d.vb
}

// deferredPublic is the statement's public term with P(τ, chi_out) supplied (or, on
// the prover's side, computed from the table), recording where it was asked.
type deferredPublic struct {
	inner       lincheck.Public
	compute     bool
	value       field.E
	tau, chiOut []field.E
}

func (d *deferredPublic) Window() lincheck.Window { return d.inner.Window() }

func (d *deferredPublic) Eval(tau, chiOut []field.E) field.E {
	d.tau, d.chiOut = append([]field.E(nil), tau...), append([]field.E(nil), chiOut...)
	if d.compute {
		d.value = d.inner.Eval(tau, chiOut)
	}
	return d.value
}

// replayDeferred replays a child with the deferred matrices and public term (their
// values v, or, with real set, evaluated), tracing into trace (nil: none).
func replayDeferred(proof *transcript.Proof, st flows.Statement, v ChildValues, real circuit.Matrices,
	trace func(transcript.Step)) (*replayed, *deferredMatrices, *deferredPublic, error) {
	dm := &deferredMatrices{logSize: aggregate.LogSize, constCol: aggregate.ConstCol, va: v.VA, vb: v.VB, real: real}
	var dp *deferredPublic
	rp, err := replay(proof, st, dm, func(p lincheck.Public) lincheck.Public {
		dp = &deferredPublic{inner: p, compute: real != nil, value: v.Key}
		return dp
	}, trace)
	return rp, dm, dp, err
}

func verifyDeferred(proof *transcript.Proof, st flows.Statement, v ChildValues, real circuit.Matrices, trace func(transcript.Step)) (ChildClaims, ChildValues, error) {
	rp, dm, dp, err := replayDeferred(proof, st, v, real, trace)
	if err != nil {
		return ChildClaims{}, ChildValues{}, err
	}
	rounds := aggregate.LogSize - lincheck.KSkip
	skip := make([]field.E, 1<<lincheck.KSkip)
	lincheck.SkipWeights(skip, rp.zc.ZSkip)
	claims := ChildClaims{
		Matrix: MatrixClaim{
			Row: Weight{Low: skip, High: append([]field.E(nil), rp.zc.Chi[:rounds]...)},
			Col: Weight{Low: append([]field.E(nil), rp.lc.S...), High: append([]field.E(nil), rp.lc.Point[:rounds]...)},
			VA:  dm.va, VB: dm.vb,
		},
		Key:   KeyClaim{Tau: dp.tau, ChiOut: dp.chiOut, Value: dp.value},
		Alpha: rp.alpha,
	}
	return claims, ChildValues{VA: dm.va, VB: dm.vb, Key: dp.value}, nil
}

// ChildValuesOf computes, natively, the values a merge prover supplies for a child
// (the matrices' bilinear forms through aggregate.VerifierMatrices: the circuit's
// description unless this process has built it; the key table's extension from the
// statement), verifying the child on the way.
func ChildValuesOf(proof *transcript.Proof, st flows.Statement) (ChildValues, error) {
	_, v, err := verifyDeferred(proof, st, ChildValues{}, aggregate.VerifierMatrices(), nil)
	return v, err
}

// VerifyChild verifies an xmss-aggregate proof against st with the two large
// evaluations taken from v, and returns the claims that make the verification
// complete: the proof is valid for st exactly when VerifyChild accepts and both claims
// hold.
func VerifyChild(proof *transcript.Proof, st flows.Statement, v ChildValues) (ChildClaims, error) {
	c, _, err := verifyDeferred(proof, st, v, nil, nil)
	return c, err
}

// ChildTrace verifies a child as VerifyChild does and returns the compressions its
// transcript ran after the label (the statement's absorption first): on-chain steps
// in order, and the grinding checks' pairs, in order.
func ChildTrace(proof *transcript.Proof, st flows.Statement, v ChildValues) (chain, grind []transcript.Step, err error) {
	_, _, err = verifyDeferred(proof, st, v, nil, func(s transcript.Step) {
		if s.OnChain {
			chain = append(chain, s)
		} else {
			grind = append(grind, s)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return chain, grind, nil
}

// CheckKeyClaim evaluates a key claim natively from st's keys.
func CheckKeyClaim(st flows.Statement, k KeyClaim) error {
	ag, err := aggregate.StatementOf(st)
	if err != nil {
		return err
	}
	return checkKeyClaimOf(ag, k)
}

package flows

import (
	"errors"
	"fmt"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/stages/commit"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/stages/reduce"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/stages/zerocheck"
	"github.com/leanpipe/leanpipe/transcript"
)

// Label is the Fiat–Shamir label of the standalone BLAKE2s batch proof.
const Label = "flock-blake2s-batch"

// Name is the flow's name in configs, proof metadata and logs.
const Name = "blake2s-batch"

// MaxBatch is the largest batch the flow accepts (2^20 compressions: a 2^28-word
// stack, the WHIR ladder's largest).
const MaxBatch = 1 << 20

// ErrBatch reports a batch the flow cannot prove.
var ErrBatch = errors.New("flows: invalid batch")

// Shape is the geometry of a batch of N compressions.
type Shape struct {
	N          int // compressions proved (live slots)
	NLog       int // log2 of the slot count, max(3, ⌈log2 N⌉)
	Mu         int // variables of the committed column, 8 + NLog
	StackLog   int // log2 of the committed stack, max(15, Mu)
	LogInvRate int // level-0 log inverse rate
	// Lanes is the number of level-0 lane blocks (of 2^(StackLog-6) words) the
	// column fills: 64 when Mu ≥ 15, else 2^(Mu-9). The zero lanes past them are
	// not encoded; they lead every leaf image as zeros and are left out of the
	// wire rows, as the reference commits a short stack.
	Lanes int
}

// M is the number of zerocheck variables, 14 + NLog.
func (s Shape) M() int { return circuit.BLAKE2s().LogSize() + s.NLog }

// BatchShape returns the shape of a batch of n compressions at the given rate.
func BatchShape(n, logInvRate int) (Shape, error) {
	if n < 1 || n > MaxBatch {
		return Shape{}, fmt.Errorf("%w: %d compressions (want 1..%d)", ErrBatch, n, MaxBatch)
	}
	if logInvRate < commit.MinLogInvRate || logInvRate > commit.MaxLogInvRate {
		return Shape{}, fmt.Errorf("%w: log inverse rate %d (want %d..%d)", ErrBatch, logInvRate, commit.MinLogInvRate, commit.MaxLogInvRate)
	}
	nLog := witness.NLog(n)
	mu := circuit.BLAKE2s().LogSize() + nLog - commit.LaneLog
	stackLog := max(commit.MinStackLog, mu)
	return Shape{N: n, NLog: nLog, Mu: mu, StackLog: stackLog, LogInvRate: logInvRate,
		Lanes: 1 << (mu - (stackLog - commit.LaneLog))}, nil
}

// ProveBatch proves the compressions with the given worker count on the direct call
// path (no graph), returning the proof with both Merkle forms.
func ProveBatch(blocks []witness.Compression, logInvRate, workers int) (*transcript.Proof, error) {
	sh, err := BatchShape(len(blocks), logInvRate)
	if err != nil {
		return nil, err
	}
	workers = max(workers, 1)
	words := witness.Words(sh.NLog)
	w, a, b := make([]field.K, words), make([]field.K, words), make([]field.K, words)
	if err := witness.FillAB(w, a, b, blocks, sh.NLog, workers); err != nil {
		return nil, err
	}
	return proveFilled(sh, w, a, b, workers)
}

// proveFilled runs the proof stages on a filled committed stack (q_flock at offset
// 0: its first sh.Lanes lane blocks, or the whole 2^StackLog words with the zero
// lanes included) and the packed A·w, B·w.
func proveFilled(sh Shape, stack, a, b []field.K, workers int) (*transcript.Proof, error) {
	c := circuit.BLAKE2s()
	w := stack[:witness.Words(sh.NLog)]
	com, err := commit.Commit(stack, sh.StackLog, sh.LogInvRate, workers)
	if err != nil {
		return nil, err
	}
	tr := transcript.NewProver([]byte(Label), nil)
	halves := commit.RootHalves(com.Root())
	tr.SendMany(halves[:])
	zc, err := zerocheck.Prove(tr, zerocheck.Input{A: a, B: b, C: w, M: sh.M(), LogInstance: c.LogSize(), Live: sh.N}, workers)
	if err != nil {
		return nil, err
	}
	_, ring := reduce.Prove(tr, c, w, sh.N, reduce.ZerocheckClaims(zc), nil, workers)
	if err := open.ProveStacked(tr, com, open.Placement{Variables: sh.Mu, Offset: 0}, ring, nil, workers); err != nil {
		return nil, err
	}
	return tr.Proof(), nil
}

// VerifyBatch verifies a batch proof of n compressions (the statement: only the slot
// count 2^NLog it implies enters the proof) at the given rate. It accepts raw and
// wire proofs.
func VerifyBatch(proof *transcript.Proof, n, logInvRate int) error {
	_, err := VerifyBatchRaw(proof, n, logInvRate)
	return err
}

// VerifyBatchRaw is VerifyBatch that also returns the raw form (one full Merkle path
// per query) of the accepted proof, as the reference verifier does for wire proofs.
func VerifyBatchRaw(proof *transcript.Proof, n, logInvRate int) (*transcript.Proof, error) {
	sh, err := BatchShape(n, logInvRate)
	if err != nil {
		return nil, err
	}
	c := circuit.BLAKE2s()
	tr := transcript.NewVerifier(proof, []byte(Label), nil)
	root, err := open.ReceiveRoot(tr)
	if err != nil {
		return nil, err
	}
	zc, err := zerocheck.Verify(tr, sh.M())
	if err != nil {
		return nil, err
	}
	_, ring, err := reduce.Verify(tr, c, reduce.ZerocheckClaims(zc))
	if err != nil {
		return nil, err
	}
	if err := open.VerifyStackedLanes(tr, root, sh.StackLog, sh.Lanes, sh.LogInvRate, open.Placement{Variables: sh.Mu, Offset: 0}, ring, nil); err != nil {
		return nil, err
	}
	if err := tr.Finish(); err != nil {
		return nil, err
	}
	return tr.RawProof(), nil
}

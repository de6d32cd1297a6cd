package open

import (
	"errors"
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/stages/commit"
)

// Sentinel errors of the opening verifier.
var (
	// ErrTerminal reports that the final sumcheck value disagrees with the weights
	// evaluated at the terminal point.
	ErrTerminal = errors.New("open: WHIR terminal check failed")
	// ErrClaim reports a malformed claim (wrong point length, placement outside the stack).
	ErrClaim = errors.New("open: malformed claim")
)

// VerifierTranscript is what the opening verifier needs from the Fiat–Shamir
// transcript (transcript.Verifier implements it).
type VerifierTranscript interface {
	Observe(v field.E)
	Sample() field.E
	SampleQueries(blockLen, count int) []int
	Receive() (field.E, error)
	RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error)
	GrindCheck(bits int) error
	Merkle(root merkle.Digest, blockLen int, queries []int, leafWords int) ([][]uint64, error)
	MerklePadded(root merkle.Digest, blockLen int, queries []int, rowWords, leafWords int) ([][]uint64, error)
}

// ReceiveRoot reads a root sent as two scalars.
func ReceiveRoot(tr VerifierTranscript) (merkle.Digest, error) {
	lo, err := tr.Receive()
	if err != nil {
		return merkle.Digest{}, err
	}
	hi, err := tr.Receive()
	if err != nil {
		return merkle.Digest{}, err
	}
	return commit.RootFromHalves(lo, hi)
}

// quad is a round polynomial c0 + c1·X + c2·X².
type quad [3]field.E

func (q quad) eval(x field.E) field.E { return q[2].Mul(x).Add(q[1]).Mul(x).Add(q[0]) }

// addScaled returns q + s·p.
func (q quad) addScaled(p quad, s field.E) quad {
	return quad{q[0].Add(s.Mul(p[0])), q[1].Add(s.Mul(p[1])), q[2].Add(s.Mul(p[2]))}
}

func readQuad(tr VerifierTranscript, claim field.E) (quad, error) {
	c, err := tr.RoundPoly(3, claim, nil)
	if err != nil {
		return quad{}, err
	}
	if len(c) != 3 {
		return quad{}, fmt.Errorf("open: round polynomial has %d coefficients", len(c))
	}
	return quad{c[0], c[1], c[2]}, nil
}

// glued is one claim folded into the running sumcheck and the weight it owes back
// at the terminal point, restricted to the coordinates left when it was made.
type glued struct {
	scalar    field.E
	foldStart int
	weightAt  func([]field.E) field.E
}

// enforcedSumInto is Σ_i w_i·⟨row_i, eq(folds)⟩, the value the level's queries
// claim for the folded polynomial, with the caller's buffer for eq(folds, ·).
func enforcedSumInto(lane []field.E, rows [][]field.E, folds []field.E, weights []field.E) field.E {
	field.EqTable(lane, folds)
	total := field.Zero
	for i, row := range rows {
		total = total.Add(weights[i].Mul(field.InnerProduct(row, lane)))
	}
	return total
}

// enforcedSumWords is enforcedSumInto of the opened rows' words, with no row
// formed: level-0 rows (k0) are K words with the lanes in descending block order
// (level0RowInto), weighed as K vectors against eq(folds, ·) in reverse lane
// order; deeper rows are E values three words each (extRowInto).
func enforcedSumWords(words [][]uint64, k0 bool, folds []field.E, weights []field.E) field.E {
	lane := make([]field.E, 1<<len(folds))
	field.EqTable(lane, folds)
	total := field.Zero
	if k0 {
		slices.Reverse(lane)
		for i, w := range words {
			total = total.Add(weights[i].Mul(field.InnerProductKE(field.KSlice(w), lane)))
		}
		return total
	}
	row := make([]field.E, len(lane))
	for i, w := range words {
		total = total.Add(weights[i].Mul(field.InnerProduct(extRowInto(row, w), lane)))
	}
	return total
}

// level0RowInto turns an opened level-0 row (K words, lanes in descending block
// order) into lane-ascending E values in row (len(words) of them).
func level0RowInto(row []field.E, words []uint64) {
	for i, w := range words {
		row[len(words)-1-i] = field.FromK(field.K(w))
	}
}

// extRow regroups a deeper level's row words into E values, three words each.
func extRow(words []uint64) []field.E {
	return extRowInto(make([]field.E, len(words)/extWordsPerElement), words)
}

// extRowInto is extRow into the front of row; it returns the len(words)/3 values.
func extRowInto(row []field.E, words []uint64) []field.E {
	row = row[:len(words)/extWordsPerElement]
	for i := range row {
		row[i] = field.E{C0: field.K(words[3*i]), C1: field.K(words[3*i+1]), C2: field.K(words[3*i+2])}
	}
	return row
}

// VerifyWHIR checks that the stack committed under root in shape sh satisfies
// Σ_u q(u)·B(u) = target, where evaluateBasis returns the multilinear extension of
// B at a point of sh.StackLog coordinates, low (stack-index) coordinate first. A stack
// committed in its first sh.Lanes lane blocks has wire level-0 rows that carry only
// those lanes; the leaf images' leading zeros are supplied here.
func VerifyWHIR(tr VerifierTranscript, sh commit.Shape, target field.E, root merkle.Digest,
	evaluateBasis func([]field.E) field.E) error {
	return VerifyWHIRWire(tr, sh, target, root, evaluateBasis, Wire{})
}

// VerifyWHIRWire is VerifyWHIR for a proof written in the wire form w (Scratch.Wire).
func VerifyWHIRWire(tr VerifierTranscript, sh commit.Shape, target field.E, root merkle.Digest,
	evaluateBasis func([]field.E) field.E, w Wire) error {
	if err := sh.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	if err := w.check(sh); err != nil {
		return err
	}
	logN, lanes := sh.StackLog, sh.Lanes
	cfg, err := DeriveConfig(logN, sh.LogInvRate)
	if err != nil {
		return err
	}
	levels := cfg.Levels()
	tr.Observe(target)
	for _, h := range commit.RootHalves(root) {
		tr.Observe(h)
	}
	running := target
	q, err := readQuad(tr, target)
	if err != nil {
		return err
	}
	folds := make([]field.E, 0, logN)
	var claims []glued
	current := root
	for level := 0; level < levels; level++ {
		foldCount := cfg.Folds[level]
		levelFolds := make([]field.E, 0, foldCount)
		for j := 0; j < foldCount; j++ {
			r := tr.Sample()
			folds = append(folds, r)
			levelFolds = append(levelFolds, r)
			running = q.eval(r)
			if q, err = readQuad(tr, running); err != nil {
				return err
			}
		}
		messageLog := logN - len(folds)
		final := level == levels-1

		type pendingClaim struct {
			value    field.E
			intro    quad
			weightAt func([]field.E) field.E
		}
		var pending []pendingClaim
		var residual []field.E
		var next merkle.Digest
		if final {
			residual = make([]field.E, 1<<messageLog)
			for i := range residual {
				if residual[i], err = tr.Receive(); err != nil {
					return err
				}
			}
		} else {
			if next, err = ReceiveRoot(tr); err != nil {
				return err
			}
			z := make([]field.E, messageLog)
			for i := range z {
				z[i] = tr.Sample()
			}
			y, err := tr.Receive()
			if err != nil {
				return err
			}
			intro, err := readQuad(tr, y)
			if err != nil {
				return err
			}
			pending = append(pending, pendingClaim{y, intro, func(x []field.E) field.E { return field.EqEval(z, x) }})
		}

		if err := tr.GrindCheck(QueryGrindingBits); err != nil {
			return err
		}
		blockLog := messageLog + cfg.LogInvRates[level]
		queries := tr.SampleQueries(1<<blockLog, cfg.Queries[level])
		lambda := tr.Sample()
		weights := make([]field.E, len(queries))
		field.Powers(weights, lambda)
		leafWords, rowWords := 1<<foldCount, lanes
		if level > 0 {
			leafWords = extWordsPerElement << foldCount
			rowWords = leafWords
		}
		var words [][]uint64
		if level == 0 {
			words, err = w.readLevel0(tr, current, 1<<blockLog, queries, rowWords, leafWords)
		} else {
			words, err = tr.MerklePadded(current, 1<<blockLog, queries, rowWords, leafWords)
		}
		if err != nil {
			return fmt.Errorf("open: WHIR level %d: %w", level, err)
		}
		if len(words) != len(queries) {
			return fmt.Errorf("open: WHIR level %d: %d rows for %d queries", level, len(words), len(queries))
		}
		for _, w := range words {
			if len(w) != leafWords {
				return fmt.Errorf("open: WHIR level %d: row of %d words", level, len(w))
			}
		}
		enforced := enforcedSumWords(words, level == 0, levelFolds, weights)
		intro, err := readQuad(tr, enforced)
		if err != nil {
			return err
		}
		pending = append(pending, pendingClaim{enforced, intro, func(x []field.E) field.E {
			return InducedWeight(messageLog, queries, weights, x)
		}})
		scalar := field.One
		for _, p := range pending {
			scalar = scalar.Mul(lambda)
			q = q.addScaled(p.intro, scalar)
			running = running.Add(scalar.Mul(p.value))
			claims = append(claims, glued{scalar, len(folds), p.weightAt})
		}

		if !final {
			current = next
			continue
		}
		tail := make([]field.E, 0, messageLog)
		for i := 0; i < messageLog; i++ {
			r := tr.Sample()
			running = q.eval(r)
			tail = append(tail, r)
			if i+1 < messageLog {
				if q, err = readQuad(tr, running); err != nil {
					return err
				}
			}
		}
		point := append(append([]field.E(nil), folds...), tail...)
		f0 := cfg.Folds[0]
		stackPoint := append(append([]field.E(nil), point[f0:]...), point[:f0]...)
		weight := evaluateBasis(stackPoint)
		for _, c := range claims {
			x := append(append([]field.E(nil), folds[c.foldStart:]...), tail...)
			weight = weight.Add(c.scalar.Mul(c.weightAt(x)))
		}
		if weight.Mul(field.EvalMLE(residual, tail)) != running {
			return ErrTerminal
		}
		return nil
	}
	return ErrTerminal // unreachable: DeriveConfig yields at least two levels
}

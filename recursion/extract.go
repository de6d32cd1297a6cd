package recursion

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// LevelQueries is one WHIR level of a child's opening as the query blocks take it:
// the blocks' inputs (weight 1: live) and what the level's sums must come to.
type LevelQueries struct {
	Root       merkle.Digest
	Folds      []field.E // the level's fold challenges
	Lambda     field.E   // the level's batching challenge: query i weighs λ^i
	MessageLog int
	Point      []field.E // the induced weight's point (MessageLog coordinates)
	Queries    []QueryInput
	// Enforced is the verifier's enforced sum Σ_i λ^i·⟨row_i, eq(folds)⟩.
	Enforced field.E
}

// ChildQueries verifies a child as VerifyChild does and returns its opening's
// levels as query-block inputs, read off the verification: each level's fold
// challenges, out-of-domain points and batching challenge from the samples in the
// protocol's order (the stacked opening's challenge; per level its folds, then, but
// for the last level, the out-of-domain point's coordinates, then λ; the last level's
// tail), the opened rows and their raw paths, and the enforced sum from the round
// claim read right after each opening.
func ChildQueries(proof *transcript.Proof, st flows.Statement, v ChildValues) ([]LevelQueries, error) {
	rp, _, _, err := replayDeferred(proof, st, v, nil, nil)
	if err != nil {
		return nil, err
	}
	return queriesOf(rp)
}

// queriesOf reads the opening's levels off a replayed verification.
func queriesOf(rp *replayed) ([]LevelQueries, error) {
	cfg, err := open.DeriveConfig(rp.sh.StackLog, rp.sh.LogInvRate)
	if err != nil {
		return nil, err
	}
	tr := rp.tr
	levels := cfg.Levels()
	if len(tr.queries) != levels || len(tr.rows) != levels || len(tr.afterOpen) != levels {
		return nil, fmt.Errorf("recursion: %d query sets and %d openings for %d levels", len(tr.queries), len(tr.rows), levels)
	}
	raw := tr.RawProof().Openings
	// The raw openings end with the opening's; the earlier ones (none in a Flock
	// proof) would come first.
	total := 0
	for _, q := range tr.queries {
		total += len(q)
	}
	if len(raw) < total {
		return nil, fmt.Errorf("recursion: %d raw openings for %d queries", len(raw), total)
	}
	raw = raw[len(raw)-total:]
	s := tr.samples[tr.whirFrom+1:] // the stacked opening's batching challenge first
	take := func(n int) ([]field.E, error) {
		if len(s) < n {
			return nil, fmt.Errorf("recursion: the opening drew fewer challenges than its profile")
		}
		out := s[:n]
		s = s[n:]
		return out, nil
	}
	var all []field.E
	out := make([]LevelQueries, levels)
	foldStarts := make([]int, levels)
	for l := range levels {
		lq := &out[l]
		folds, err := take(cfg.Folds[l])
		if err != nil {
			return nil, err
		}
		all = append(all, folds...)
		foldStarts[l] = len(all)
		lq.Folds, lq.MessageLog, lq.Root = folds, cfg.MessageLog(l), tr.roots[l]
		if l < levels-1 {
			if _, err := take(lq.MessageLog); err != nil { // the out-of-domain point
				return nil, err
			}
		}
		lam, err := take(1)
		if err != nil {
			return nil, err
		}
		lq.Lambda = lam[0]
		if tr.afterOpen[l] >= len(tr.claims) {
			return nil, fmt.Errorf("recursion: no round claim after level %d's opening", l)
		}
		lq.Enforced = tr.claims[tr.afterOpen[l]]
	}
	tail, err := take(cfg.MessageLog(levels - 1))
	if err != nil {
		return nil, err
	}
	for l := range levels {
		lq := &out[l]
		lq.Point = append(append([]field.E(nil), all[foldStarts[l]:]...), tail...)
		eq := make([]field.E, 1<<len(lq.Folds))
		field.EqTable(eq, lq.Folds)
		if l == 0 {
			// Level-0 rows list lanes in descending order: word i meets lane 63 − i.
			for i, j := 0, len(eq)-1; i < j; i, j = i+1, j-1 {
				eq[i], eq[j] = eq[j], eq[i]
			}
		}
		for i, q := range tr.queries[l] {
			o := raw[0]
			raw = raw[1:]
			lq.Queries = append(lq.Queries, QueryInput{
				Index: q, Row: tr.rows[l][i], Path: o.Path, Eq: eq, Weight: field.One, Point: lq.Point,
			})
		}
	}
	return out, nil
}

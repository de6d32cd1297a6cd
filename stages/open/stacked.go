package open

import (
	"fmt"
	"github.com/leanpipe/leanpipe/stages/commit"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
)

// RingClaim is the ring-switched claim on one committed column of the stack:
// Σ_u W(u)·col(u) = Target over the column's 2^Variables words.
type RingClaim struct {
	Target field.E
	// WeightAt evaluates the multilinear extension of W at a point of Variables
	// coordinates (verifier).
	WeightAt func(point []field.E) field.E
	// Weights is W over the column's 2^Variables entries (prover only; the verifier
	// ignores it).
	Weights []field.E
}

// PointClaim is an ordinary evaluation claim q(Point) = Value on the whole stacked
// polynomial (Point has StackLog coordinates, low first). A point whose high
// coordinates are 0 or 1 is a claim on one aligned region; the prover then touches
// only that region.
type PointClaim struct {
	Point []field.E
	Value field.E
}

// stackedTarget observes the ring targets (when there are several) and the point
// values, draws the batching challenge and returns
// the scales of the ring claims (powers 0, 1, … in order), of the point claims (the
// next powers) and the pooled target.
func stackedTarget(observe func(field.E), sample func() field.E, rings []field.E, points []PointClaim) ([]field.E, []field.E, field.E) {
	// With several ring claims their targets are bound before the challenge, so that
	// no two targets can be shifted against each other (T₁ + c·d, T₂ + d pool to the
	// true sum) by a caller whose targets the transcript does not already fix. One
	// ring claim's target is the Flock flows' and the reference's stream: left as it is.
	if len(rings) > 1 {
		for _, r := range rings {
			observe(r)
		}
	}
	for _, p := range points {
		observe(p.Value)
	}
	scales := make([]field.E, len(rings)+len(points))
	field.Powers(scales, sample())
	var target field.E
	for i, r := range rings {
		target = target.Add(scales[i].Mul(r))
	}
	for i, p := range points {
		target = target.Add(scales[len(rings)+i].Mul(p.Value))
	}
	return scales[:len(rings)], scales[len(rings):], target
}

// PlacedRing is a ring-switched claim on the column at Place.
type PlacedRing struct {
	Place Placement
	Claim RingClaim
}

// checkRings checks each column's placement. Columns may overlap (two claims on one
// column at different points): their weights add.
func checkRings(stackLog int, rings []PlacedRing, points []PointClaim) error {
	if len(rings) == 0 {
		return fmt.Errorf("%w: no ring claim", ErrClaim)
	}
	for _, r := range rings {
		if err := checkStacked(stackLog, r.Place, points); err != nil {
			return err
		}
	}
	return nil
}

func checkStacked(stackLog int, place Placement, points []PointClaim) error {
	// Offset > 2^stackLog − 2^Variables, not Offset + 2^Variables > 2^stackLog: the sum
	// wraps for an Offset near the largest int.
	if place.IsVirtual() || place.Variables > stackLog || place.Offset < 0 ||
		place.Offset%(1<<place.Variables) != 0 || place.Offset > 1<<stackLog-1<<place.Variables {
		return fmt.Errorf("%w: placement %+v in a stack of 2^%d", ErrClaim, place, stackLog)
	}
	for i, p := range points {
		if len(p.Point) != stackLog {
			return fmt.Errorf("%w: point claim %d has %d coordinates, want %d", ErrClaim, i, len(p.Point), stackLog)
		}
	}
	return nil
}

// VerifyStacked checks the stacked opening: the ring-switched claim on the column at
// place and every point claim, pooled with powers of one challenge (the ring claim
// takes the first power), then one WHIR opening (VerifyWHIR) of the stack committed
// under root in shape sh. It is VerifyStackedRings with one ring claim.
func VerifyStacked(tr VerifierTranscript, root merkle.Digest, sh commit.Shape, place Placement,
	ring RingClaim, points []PointClaim) error {
	return VerifyStackedRings(tr, root, sh, []PlacedRing{{place, ring}}, points)
}

// VerifyStackedRings checks a stacked opening of several ring-switched claims, each on
// a placed column (two may share a column or overlap), and point claims: all pooled with
// powers of one challenge, the rings first in order, then one WHIR opening. With one
// ring claim it reads and draws exactly what VerifyStacked always has.
func VerifyStackedRings(tr VerifierTranscript, root merkle.Digest, sh commit.Shape, rings []PlacedRing,
	points []PointClaim) error {
	return verifyStackedRings(tr, root, sh, rings, points, Wire{})
}

// VerifyStackedWire is VerifyStacked for a proof written in the wire form w
// (Scratch.Wire); with the zero Wire it is VerifyStacked.
func VerifyStackedWire(tr VerifierTranscript, root merkle.Digest, sh commit.Shape, place Placement,
	ring RingClaim, points []PointClaim, w Wire) error {
	return verifyStackedRings(tr, root, sh, []PlacedRing{{place, ring}}, points, w)
}

func verifyStackedRings(tr VerifierTranscript, root merkle.Digest, sh commit.Shape, rings []PlacedRing,
	points []PointClaim, w Wire) error {
	if err := sh.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	if err := checkRings(sh.StackLog, rings, points); err != nil {
		return err
	}
	targets := make([]field.E, len(rings))
	for i, r := range rings {
		if r.Claim.WeightAt == nil {
			return fmt.Errorf("%w: ring claim without a weight (claim %d)", ErrClaim, i)
		}
		targets[i] = r.Claim.Target
	}
	ringScales, pointScales, target := stackedTarget(tr.Observe, tr.Sample, targets, points)
	basis := func(x []field.E) field.E {
		var v field.E
		for i, r := range rings {
			low, high := x[:r.Place.Variables], x[r.Place.Variables:]
			v = v.Add(SelectorEq(r.Place.Selector(), high).Mul(ringScales[i]).Mul(r.Claim.WeightAt(low)))
		}
		for i, p := range points {
			v = v.Add(pointScales[i].Mul(field.EqEval(p.Point, x)))
		}
		return v
	}
	return VerifyWHIRWire(tr, sh, target, root, basis, w)
}

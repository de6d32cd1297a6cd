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

// stackedTarget observes the point values, draws the batching challenge and returns
// the scale of the ring claim, the scales of the point claims and the pooled target.
func stackedTarget(observe func(field.E), sample func() field.E, ring field.E, points []PointClaim) (field.E, []field.E, field.E) {
	for _, p := range points {
		observe(p.Value)
	}
	scales := make([]field.E, 1+len(points))
	field.Powers(scales, sample())
	target := scales[0].Mul(ring)
	for i, p := range points {
		target = target.Add(scales[1+i].Mul(p.Value))
	}
	return scales[0], scales[1:], target
}

func checkStacked(stackLog int, place Placement, points []PointClaim) error {
	if place.IsVirtual() || place.Variables > stackLog || place.Offset < 0 ||
		place.Offset%(1<<place.Variables) != 0 || place.Offset+(1<<place.Variables) > 1<<stackLog {
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
// under root in shape sh.
func VerifyStacked(tr VerifierTranscript, root merkle.Digest, sh commit.Shape, place Placement,
	ring RingClaim, points []PointClaim) error {
	if err := sh.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	if err := checkStacked(sh.StackLog, place, points); err != nil {
		return err
	}
	if ring.WeightAt == nil {
		return fmt.Errorf("%w: ring claim without a weight", ErrClaim)
	}
	ringScale, pointScales, target := stackedTarget(tr.Observe, tr.Sample, ring.Target, points)
	selector := place.Selector()
	basis := func(x []field.E) field.E {
		low, high := x[:place.Variables], x[place.Variables:]
		v := SelectorEq(selector, high).Mul(ringScale).Mul(ring.WeightAt(low))
		for i, p := range points {
			v = v.Add(pointScales[i].Mul(field.EqEval(p.Point, x)))
		}
		return v
	}
	return VerifyWHIR(tr, sh, target, root, basis)
}

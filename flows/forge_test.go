package flows

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/testtranscript"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// Adversarial tests of segmented proofs (ProveSegments, VerifySegments, Evaluations).
// Each asserts that the verifier rejects a false or malformed statement, so it passes
// while the code is sound. VerifySegments turns a panic into an ErrInput naming it;
// these tests treat that as a failure (verifiers must not panic at all).

const forgeLabel = "leanpipe-segments-forge"

// slotsSegment is a layered segment whose every slot s < 2^nLog takes input xs[s]
// (the filler is given all slots explicitly, padding included), then edit (if set)
// changes the packed witness.
func slotsSegment(c *circuit.Circuit, n int, xs []uint64, edit func(nLog int, wit []field.K)) Segment {
	return Segment{Circuit: c, N: n, Fill: func(w par.Workers, nLog int, wit, a, b []field.K) error {
		if len(xs) < 1<<nLog {
			return fmt.Errorf("slotsSegment: %d inputs for 2^%d slots", len(xs), nLog)
		}
		size := c.Size()
		slots := 1 << nLog
		var v [3][]uint64
		for i := range v {
			v[i] = make([]uint64, size)
		}
		for g := range (slots + 63) / 64 {
			clear(v[0])
			v[0][c.ConstCol()] = ^uint64(0)
			lanes := min(64, slots-64*g)
			for j := range lanes {
				for i := range 64 {
					v[0][64+i] |= (xs[64*g+j] >> i & 1) << j
				}
			}
			c.Solve(v[0], v[1], v[2])
			off := g * size
			for k, dst := range [][]field.K{wit, a, b} {
				c.PackLanes(dst[off:off+lanes*size/64], v[k], lanes)
			}
		}
		if edit != nil {
			edit(nLog, wit)
		}
		return nil
	}}
}

// padded returns 2^nLog inputs: xs, then pad for every padding slot.
func padded(xs []uint64, nLog int, pad uint64) []uint64 {
	out := append([]uint64(nil), xs...)
	for len(out) < 1<<nLog {
		out = append(out, pad)
	}
	return out
}

// rejected fails the test unless err is a rejection that is not a recovered panic.
func rejected(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: verified", what)
	}
	if strings.Contains(err.Error(), "panicked") {
		t.Fatalf("%s: %v", what, err)
	}
}

func randInputs(rng *rand.Rand, n int) []uint64 {
	xs := make([]uint64, n)
	for i := range xs {
		xs[i] = rng.Uint64()
	}
	return xs
}

// inputTable pins the inputs x (columns 64..127) of each slot to rows.
func inputTable(rows []uint64) *lincheck.Table {
	tb := &lincheck.Table{W: lincheck.Window{Offset: 64, Log: 6}, Rows: make([][]uint64, len(rows))}
	for s, x := range rows {
		tb.Rows[s] = []uint64{x}
	}
	return tb
}

// Padding slots (N ≤ s < 2^nLog) are pinned by a public table to slot 0's row: padding
// that differs there is refused, even when it satisfies the circuit and the padding
// tail is uniform (what the prover's tail skip needs).
func TestForgeSegmentsPaddingPinned(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	const n, nLog = 11, 4
	xs := randInputs(rng, n)
	win := lincheck.Window{Offset: 64, Log: 6}
	shapes := []SegmentShape{{layered, n, inputTable(xs)}, {circuit.BLAKE2s(), 2, nil}}
	prove := func(pad uint64) *transcript.Proof {
		seg := slotsSegment(layered, n, padded(xs, nLog, pad), nil)
		seg.Public = &win
		p, err := ProveSegments(forgeLabel, nil, []Segment{seg, blake2sSegment(2, 1)}, nil, 1, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := VerifySegments(prove(xs[0]), forgeLabel, nil, shapes, nil, 1); err != nil {
		t.Fatalf("padding repeating slot 0: %v", err)
	}
	_, err := VerifySegments(prove(xs[0]^1<<17), forgeLabel, nil, shapes, nil, 1)
	rejected(t, "padding slots on other (pinned) inputs", err)
	_, err = VerifySegments(prove(xs[5]), forgeLabel, nil, shapes, nil, 1)
	rejected(t, "padding slots repeating slot 5, not slot 0", err)

	// A table that lists every slot pins padding to its own rows: zero inputs in the
	// padding verify, slot 0's inputs there do not.
	explicit := []SegmentShape{{layered, n, inputTable(padded(xs, nLog, 0))}, {circuit.BLAKE2s(), 2, nil}}
	if _, err := VerifySegments(prove(0), forgeLabel, nil, explicit, nil, 1); err != nil {
		t.Fatalf("padding of zeros against explicit zero rows: %v", err)
	}
	_, err = VerifySegments(prove(xs[0]), forgeLabel, nil, explicit, nil, 1)
	rejected(t, "padding repeating slot 0 against explicit zero rows", err)
}

// A witness that violates the circuit only in padding slots is refused: in every
// padding slot alike (a uniform tail, so the prover's tail skip holds), in the first
// padding slot only, in the last slot only. Also one violating live slot beside a
// uniform padding tail.
func TestForgeSegmentsPaddingViolation(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	const n, nLog = 11, 4
	xs := padded(randInputs(rng, n), nLog, 0)
	for i := n; i < 1<<nLog; i++ {
		xs[i] = xs[0]
	}
	words := layered.Size() / 64 // words per slot
	flip := func(slots ...int) func(int, []field.K) {
		return func(_ int, wit []field.K) {
			for _, s := range slots {
				wit[s*words+3] ^= 1 << 9 // a product column of slot s
			}
		}
	}
	shapes := []SegmentShape{{circuit.BLAKE2s(), 3, nil}, {layered, n, nil}}
	for name, edit := range map[string]func(int, []field.K){
		"every padding slot":  flip(11, 12, 13, 14, 15),
		"first padding slot":  flip(11),
		"last slot":           flip(15),
		"last live slot":      flip(10),
		"a live slot and pad": flip(3, 11, 12, 13, 14, 15),
	} {
		p, err := ProveSegments(forgeLabel, nil, []Segment{blake2sSegment(3, 2), slotsSegment(layered, n, xs, edit)}, nil, 1, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		_, err = VerifySegments(p, forgeLabel, nil, shapes, nil, 1)
		rejected(t, name, err)
	}
	// Control: the same filler without the flip verifies.
	p, err := ProveSegments(forgeLabel, nil, []Segment{blake2sSegment(3, 2), slotsSegment(layered, n, xs, nil)}, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(p, forgeLabel, nil, shapes, nil, 1); err != nil {
		t.Fatal(err)
	}
}

// A proof for one layout is refused under another: another rate (not in the layout
// bytes), two segments of one (log size, count) but different circuits exchanged (the
// layout bytes are then equal: only the lincheck tells them apart), a segment moved,
// an extra segment, and a public window that pins fewer columns.
func TestForgeSegmentsLayouts(t *testing.T) {
	rng := testrand.New(t)
	a, b := layeredCircuit(8), layeredCircuit(9)
	xs, ys := randInputs(rng, 6), randInputs(rng, 6)
	segs := []Segment{layeredSegment(a, xs), layeredSegment(b, ys), blake2sSegment(3, 5)}
	shapes := []SegmentShape{{a, 6, nil}, {b, 6, nil}, {circuit.BLAKE2s(), 3, nil}}
	proofs := map[int]*transcript.Proof{}
	for _, rate := range []int{1, 2} {
		p, err := ProveSegments(forgeLabel, nil, segs, nil, rate, par.New(nil, 2))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := VerifySegments(p, forgeLabel, nil, shapes, nil, rate); err != nil {
			t.Fatalf("rate %d: %v", rate, err)
		}
		proofs[rate] = p
	}
	_, err := VerifySegments(proofs[1], forgeLabel, nil, shapes, nil, 2)
	rejected(t, "a rate-1 proof at rate 2", err)
	_, err = VerifySegments(proofs[2], forgeLabel, nil, shapes, nil, 1)
	rejected(t, "a rate-2 proof at rate 1", err)
	for name, sh := range map[string][]SegmentShape{
		"circuits exchanged":  {{b, 6, nil}, {a, 6, nil}, {circuit.BLAKE2s(), 3, nil}},
		"one circuit for two": {{a, 6, nil}, {a, 6, nil}, {circuit.BLAKE2s(), 3, nil}},
		"moved":               {{circuit.BLAKE2s(), 3, nil}, {a, 6, nil}, {b, 6, nil}},
		"an extra segment":    append(append([]SegmentShape(nil), shapes...), SegmentShape{a, 1, nil}),
		"a public term added": {{a, 6, inputTable(xs)}, {b, 6, nil}, {circuit.BLAKE2s(), 3, nil}},
	} {
		_, err := VerifySegments(proofs[1], forgeLabel, nil, sh, nil, 1)
		rejected(t, name, err)
	}
	// Proved with a window pinning all 64 inputs, verified against a table whose
	// mask pins only half of them (the rows still hold the true inputs).
	win := lincheck.Window{Offset: 64, Log: 6}
	seg := layeredSegment(a, xs)
	seg.Public = &win
	p, err := ProveSegments(forgeLabel, nil, []Segment{seg}, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(p, forgeLabel, nil, []SegmentShape{{a, 6, inputTable(xs)}}, nil, 1); err != nil {
		t.Fatal(err)
	}
	half := inputTable(xs)
	half.W.Mask = []uint64{0xffffffff}
	_, err = VerifySegments(p, forgeLabel, nil, []SegmentShape{{a, 6, half}}, nil, 1)
	rejected(t, "a public window narrower than the prover's", err)
	// And without any public term.
	_, err = VerifySegments(p, forgeLabel, nil, []SegmentShape{{a, 6, nil}}, nil, 1)
	rejected(t, "the public term dropped", err)
}

// TestForgeSegmentsPublicRowsPastSlots: a public table with more rows than the
// segment has slots. lincheck.Table.Eval keeps only the first 2^nLog rows, so rows for
// slots that do not exist are never checked; a statement that reveals values for
// them (here: 16 true rows and 4 arbitrary ones) verifies. VerifySegments could refuse
// a Table whose row count exceeds 2^nLog (or differs from N).
func TestForgeSegmentsPublicRowsPastSlots(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	const n = 16
	xs := randInputs(rng, n)
	win := lincheck.Window{Offset: 64, Log: 6}
	seg := layeredSegment(layered, xs)
	seg.Public = &win
	p, err := ProveSegments(forgeLabel, nil, []Segment{seg}, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	rows := append(append([]uint64(nil), xs...), randInputs(rng, 4)...)
	_, err = VerifySegments(p, forgeLabel, nil, []SegmentShape{{layered, n, inputTable(rows)}}, nil, 1)
	if err == nil {
		t.Fatal("forgery (API hazard): a public table with rows past the segment's 2^nLog slots verifies (Table.Eval drops them unchecked)")
	}
	rejected(t, "public rows past the slots", err)
}

// Evaluation points that do not fit are refused with ErrInput (never a panic), on
// both sides: a segment out of range, a point of the wrong length, the stack's length.
func TestForgeSegmentsEvaluationShapes(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	xs := randInputs(rng, 16)
	segs := []Segment{layeredSegment(layered, xs), blake2sSegment(8, 3)}
	shapes := []SegmentShape{{layered, 16, nil}, {circuit.BLAKE2s(), 8, nil}}
	honest, err := ProveSegments(forgeLabel, nil, segs, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	// Column variables: 13+4-6 = 11 for the layered segment, 14+3-6 = 11 for BLAKE2s.
	for name, pt := range map[string]SegmentPoint{
		"segment -1":      {-1, make([]field.E, 11)},
		"segment 2":       {2, make([]field.E, 11)},
		"one coordinate+": {0, make([]field.E, 12)},
		"one coordinate-": {1, make([]field.E, 10)},
		"no coordinates":  {0, nil},
	} {
		ev := &Evaluations{
			Points: func(func() field.E) []SegmentPoint { return []SegmentPoint{pt} },
			Check:  func([]field.E) error { return nil },
		}
		if _, err := ProveSegments(forgeLabel, nil, segs, ev, 1, par.New(nil, 1)); !errors.Is(err, ErrInput) {
			t.Fatalf("prover, %s: %v", name, err)
		}
		_, err := VerifySegments(honest, forgeLabel, nil, shapes, ev, 1)
		if !errors.Is(err, ErrInput) || strings.Contains(err.Error(), "panicked") {
			t.Fatalf("verifier, %s: %v", name, err)
		}
	}
}

// Evaluation claims are held to their segment, their order and their presence: a
// value proved on one segment presented as another's, points in another order, a
// verifier that expects evaluations the proof lacks or lacks ones it has, a lax Check
// against a proof whose sent value is false.
func TestForgeSegmentsEvaluationBinding(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	xs, ys := randInputs(rng, 16), randInputs(rng, 16)
	segs := []Segment{layeredSegment(layered, xs), layeredSegment(layered, ys)}
	shapes := []SegmentShape{{layered, 16, nil}, {layered, 16, nil}}
	lax := func(order []int) *Evaluations {
		return &Evaluations{
			Points: func(sample func() field.E) []SegmentPoint {
				rho := []field.E{sample(), sample(), sample(), sample()}
				pts := []SegmentPoint{{0, wordPoint(rho)}, {1, wordPoint(rho)}}
				out := make([]SegmentPoint, len(order))
				for i, j := range order {
					out[i] = pts[j]
				}
				return out
			},
			Check: func([]field.E) error { return nil },
		}
	}
	proof, err := ProveSegments(forgeLabel, nil, segs, lax([]int{0, 1}), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, forgeLabel, nil, shapes, lax([]int{0, 1}), 1); err != nil {
		t.Fatal(err)
	}
	_, err = VerifySegments(proof, forgeLabel, nil, shapes, lax([]int{1, 0}), 1)
	rejected(t, "points in another order", err)
	_, err = VerifySegments(proof, forgeLabel, nil, shapes, lax([]int{1, 1}), 1)
	rejected(t, "segment 0's value presented as segment 1's", err)
	_, err = VerifySegments(proof, forgeLabel, nil, shapes, lax([]int{0}), 1)
	rejected(t, "one evaluation fewer", err)
	_, err = VerifySegments(proof, forgeLabel, nil, shapes, nil, 1)
	rejected(t, "no evaluations expected", err)
	plain, err := ProveSegments(forgeLabel, nil, segs, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	_, err = VerifySegments(plain, forgeLabel, nil, shapes, lax([]int{0, 1}), 1)
	rejected(t, "evaluations expected, none proved", err)

	// A prover that sends a false value (its column's value plus one) and otherwise
	// runs the protocol on the transcript that observed the lie: the opening refuses
	// it, although Check accepts anything.
	for i := range 2 {
		forged, err := forgeSegments(nil, segs, lax([]int{0, 1}), func(j int, v field.E) field.E {
			if j == i {
				return v.Add(field.One)
			}
			return v
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = VerifySegments(forged, forgeLabel, nil, shapes, lax([]int{0, 1}), 1)
		rejected(t, fmt.Sprintf("a false value sent for evaluation %d", i), err)
	}
	// Control: the hostile prover without a lie is ProveSegments.
	same, err := forgeSegments(nil, segs, lax([]int{0, 1}), func(_ int, v field.E) field.E { return v })
	if err != nil {
		t.Fatal(err)
	}
	if string(same.MarshalWire()) != string(proof.MarshalWire()) {
		t.Fatal("forgeSegments without a lie differs from ProveSegments")
	}
}

// forgeSegments is ProveSegments at rate 1 under forgeLabel with a hook on the
// evaluation values it sends (the hook's value is sent, observed and claimed in the
// opening): a prover that lies about an evaluation and runs the rest honestly.
func forgeSegments(statement []byte, segs []Segment, ev *Evaluations, lie func(i int, v field.E) field.E) (*transcript.Proof, error) {
	workers := par.New(nil, 2)
	run, err := proveSegmentRings(forgeLabel, statement, segs, 1, workers, func(*time.Duration) {}, new(SegmentsProfile))
	if err != nil {
		return nil, err
	}
	tr, stack, places, stackLog, com, rings := run.tr, run.stack, run.places, run.stackLog, run.com, run.rings
	var points []open.PointClaim
	for i, sp := range ev.Points(tr.Sample) {
		p := places[sp.Segment]
		v := lie(i, field.EvalMLEK(stack[p.Offset:p.Offset+1<<p.Variables], sp.Point))
		tr.Send(v)
		points = append(points, open.PointClaim{Point: stackPoint(p, stackLog, sp.Point), Value: v})
	}
	if err := open.ProveStackedRings(tr, com, rings, points, workers); err != nil {
		return nil, err
	}
	return tr.Proof(), nil
}

func fuzzMutations() int {
	if os.Getenv("LEANPIPE_HEAVY") != "" {
		return 2000
	}
	return 200
}

// TestForgeSegmentsFuzz: random mutations of a valid segmented proof (three segments,
// a public term, evaluation claims) are rejected and never panic.
func TestForgeSegmentsFuzz(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	const n = 12
	xs := randInputs(rng, n)
	win := lincheck.Window{Offset: 64, Log: 6}
	seg := layeredSegment(layered, xs)
	seg.Public = &win
	segs := []Segment{seg, blake2sSegment(5, 7), layeredSegment(layered, xs)}
	shapes := []SegmentShape{{layered, n, inputTable(xs)}, {circuit.BLAKE2s(), 5, nil}, {layered, n, nil}}
	ev := &Evaluations{
		Points: func(sample func() field.E) []SegmentPoint {
			rho := []field.E{sample(), sample(), sample(), sample()}
			return []SegmentPoint{{0, wordPoint(rho)}, {2, wordPoint(rho)}}
		},
		Check: func(v []field.E) error {
			if v[0] != v[1] {
				return errors.New("inputs differ")
			}
			return nil
		},
	}
	proof, err := ProveSegments(forgeLabel, []byte("stmt"), segs, ev, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, forgeLabel, []byte("stmt"), shapes, ev, 1); err != nil {
		t.Fatal(err)
	}
	raw := proof.MarshalRaw()
	parsed := 0
	for range fuzzMutations() {
		q, what, ok := testtranscript.Mutate(rng, proof)
		if !ok {
			continue
		}
		parsed++
		_, err := VerifySegments(q, forgeLabel, []byte("stmt"), shapes, ev, 1)
		if err == nil && string(q.MarshalRaw()) == string(raw) {
			continue // the mutation did not change the proof (a byte the parse ignores)
		}
		rejected(t, what, err)
	}
	t.Logf("%d mutations parsed and were rejected (stream of %d scalars, %d openings)", parsed, len(proof.Stream), len(proof.Openings))
}

// TestForgeSegmentsPublicWindowOverflow: a public window whose Offset+2^Log overflows
// int passes lincheck's Window.check (the sum wraps negative), and the verifier's
// terminal then slices out of range: VerifySegments reports its own recovered panic
// instead of ErrPublic. The window is the verifier's own input, so this is a
// robustness defect, not a forgery.
func TestForgeSegmentsPublicWindowOverflow(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	xs := randInputs(rng, 8)
	p, err := ProveSegments(forgeLabel, nil, []Segment{layeredSegment(layered, xs)}, nil, 1, par.New(nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	tb := inputTable(xs)
	tb.W = lincheck.Window{Offset: int(^uint(0)>>1) - 15, Log: 4}
	_, err = VerifySegments(p, forgeLabel, nil, []SegmentShape{{layered, 8, tb}}, nil, 1)
	if err == nil {
		t.Fatal("a window past the block verified")
	}
	if strings.Contains(err.Error(), "panicked") {
		t.Fatalf("defect: a public window at Offset MaxInt-15 passes Window.check by overflow and the verifier panics: %v", err)
	}
	if !errors.Is(err, lincheck.ErrPublic) {
		t.Fatalf("want ErrPublic: %v", err)
	}
}

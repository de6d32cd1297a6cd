package flows

import (
	"bytes"
	"errors"
	"github.com/leanpipe/leanpipe/buffers"
	"slices"
	"strings"
	"testing"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/lincheck"
	"github.com/leanpipe/leanpipe/stages/witness"
	"github.com/leanpipe/leanpipe/transcript"
)

// layeredCircuit is a 2^13-column block: 64 inputs, then layers of 64 products over
// the two previous layers.
func layeredCircuit(layers int) *circuit.Circuit {
	b := circuit.NewBuilder("layered", 13, 0)
	b.Input("x", 64, 64)
	prev2 := make([]circuit.Wire, 64)
	for i := range prev2 {
		prev2[i] = b.Col(64 + i)
	}
	prev := make([]circuit.Wire, 64)
	row := 128
	for i := range prev {
		prev[i] = b.Product(row, prev2[i], prev2[(i+1)%64])
		row++
	}
	for range layers {
		next := make([]circuit.Wire, 64)
		for i := range next {
			next[i] = b.Product(row, b.Xor(prev[i], prev2[(i+3)%64]), b.Xor(prev[(i+7)%64], b.One()))
			row++
		}
		prev2, prev = prev, next
	}
	return b.Compile()
}

// layeredSegment fills n live blocks of inputs xs (padding slots repeat slot 0).
func layeredSegment(c *circuit.Circuit, xs []uint64) Segment {
	return paddedSegment(c, xs, func(int) uint64 { return xs[0] })
}

// paddedSegment fills the live blocks of inputs xs and padding slot s (≥ len(xs))
// with input pad(s) (layeredSegment: slot 0's; another valid block passes the
// circuit's checks too).
func paddedSegment(c *circuit.Circuit, xs []uint64, pad func(s int) uint64) Segment {
	return Segment{Circuit: c, N: len(xs), Fill: func(w par.Workers, nLog int, wit, a, b []field.K) error {
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
				s := 64*g + j
				x := pad(s)
				if s < len(xs) {
					x = xs[s]
				}
				for i := range 64 {
					v[0][64+i] |= (x >> i & 1) << j
				}
			}
			c.Solve(v[0], v[1], v[2])
			off := g * size
			for k, dst := range [][]field.K{wit, a, b} {
				c.PackLanes(dst[off:off+lanes*size/64], v[k], lanes)
			}
		}
		return nil
	}}
}

func blake2sSegment(n int, seed uint64) Segment {
	blocks := Generate(n, seed)
	return Segment{Circuit: circuit.BLAKE2s(), N: n, Fill: func(w par.Workers, nLog int, wit, a, b []field.K) error {
		return witness.FillAB(wit, a, b, blocks, nLog, w)
	}}
}

func TestSegmentsRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(40)
	xs := make([]uint64, 20)
	for i := range xs {
		xs[i] = rng.Uint64()
	}
	segs := []Segment{blake2sSegment(10, 3), layeredSegment(layered, xs), blake2sSegment(3, 4)}
	shapes := []SegmentShape{{circuit.BLAKE2s(), 10, nil}, {layered, 20, nil}, {circuit.BLAKE2s(), 3, nil}}
	const label = "leanpipe-segments-test"
	stmt := []byte("statement")
	p1, err := ProveSegments(label, stmt, segs, nil, 1, par.New(nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ProveSegments(label, stmt, segs, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p1.MarshalWire(), p2.MarshalWire()) {
		t.Fatal("1 and 2 workers gave different proofs")
	}
	if _, err := VerifySegments(p1, label, stmt, shapes, nil, 1); err != nil {
		t.Fatal(err)
	}
	// The raw form verifies too.
	raw, _ := VerifySegments(p1, label, stmt, shapes, nil, 1)
	if _, err := VerifySegments(raw, label, stmt, shapes, nil, 1); err != nil {
		t.Fatalf("raw form: %v", err)
	}
	// Every shape, the statement and the label are bound.
	for name, sh := range map[string][]SegmentShape{
		"a count":   {{circuit.BLAKE2s(), 9, nil}, {layered, 20, nil}, {circuit.BLAKE2s(), 3, nil}},
		"the order": {{layered, 20, nil}, {circuit.BLAKE2s(), 10, nil}, {circuit.BLAKE2s(), 3, nil}},
		"a circuit": {{circuit.BLAKE2s(), 10, nil}, {layeredCircuit(39), 20, nil}, {circuit.BLAKE2s(), 3, nil}},
		"one less":  {{circuit.BLAKE2s(), 10, nil}, {layered, 20, nil}},
	} {
		if _, err := VerifySegments(p1, label, stmt, sh, nil, 1); err == nil {
			t.Fatalf("%s changed: verified", name)
		}
	}
	if _, err := VerifySegments(p1, label, []byte("statemenT"), shapes, nil, 1); err == nil {
		t.Fatal("another statement verified")
	}
	if _, err := VerifySegments(p1, label+"x", stmt, shapes, nil, 1); err == nil {
		t.Fatal("another label verified")
	}
	// Changed scalars anywhere in the stream are rejected.
	for _, at := range []int{0, 1, 5, 70, len(p1.Stream) / 3, len(p1.Stream) / 2, len(p1.Stream) - 1} {
		bad := *p1
		bad.Stream = append([]field.E(nil), p1.Stream...)
		bad.Stream[at] = bad.Stream[at].Add(field.One)
		if _, err := VerifySegments(&bad, label, stmt, shapes, nil, 1); err == nil {
			t.Fatalf("scalar %d changed: verified", at)
		}
	}
	// A witness that breaks one segment's circuit is caught.
	broken := layeredSegment(layered, xs)
	fill := broken.Fill
	broken.Fill = func(w par.Workers, nLog int, wit, a, b []field.K) error {
		err := fill(w, nLog, wit, a, b)
		wit[5] ^= 1 << 60 // a product column of slot 0
		return err
	}
	bp, err := ProveSegments(label, stmt, []Segment{segs[0], broken, segs[2]}, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(bp, label, stmt, shapes, nil, 1); err == nil {
		t.Fatal("a broken witness in the second segment verified")
	}
}

func TestSegmentsRefuseBadShapes(t *testing.T) {
	if _, err := ProveSegments("x", nil, nil, nil, 1, par.Serial()); err == nil {
		t.Fatal("no segments proved")
	}
	if _, err := ProveSegments("x", nil, []Segment{blake2sSegment(2, 1)}, nil, 5, par.Serial()); err == nil {
		t.Fatal("rate 5 proved")
	}
	if _, err := VerifySegments(new(transcript.Proof), "x", nil, []SegmentShape{{circuit.BLAKE2s(), 0, nil}}, nil, 1); err == nil {
		t.Fatal("a segment of 0 blocks verified")
	}
	if _, err := VerifySegments(nil, "x", nil, []SegmentShape{{circuit.BLAKE2s(), 1, nil}}, nil, 1); err == nil {
		t.Fatal("a nil proof verified")
	}
}

// TestSegmentsWiredByPublicValues: two segments read the same input vector, which
// travels in the statement and is pinned in both by their public terms; a changed
// value, or one segment proved on other inputs, is rejected.
func TestSegmentsWiredByPublicValues(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(20)
	xs := make([]uint64, 12)
	for i := range xs {
		xs[i] = rng.Uint64()
	}
	win := lincheck.Window{Offset: 64, Log: 6}
	table := func(xs []uint64) *lincheck.Table {
		tb := &lincheck.Table{W: win, Rows: make([][]uint64, len(xs))}
		for s, x := range xs {
			tb.Rows[s] = []uint64{x}
		}
		return tb
	}
	stmt := func(xs []uint64) []byte {
		var b []byte
		for _, x := range xs {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
		}
		return b
	}
	seg := func(xs []uint64) Segment {
		s := layeredSegment(layered, xs)
		s.Public = &win
		return s
	}
	shapes := func(xs []uint64) []SegmentShape {
		return []SegmentShape{{layered, len(xs), table(xs)}, {circuit.BLAKE2s(), 4, nil}, {layered, len(xs), table(xs)}}
	}
	const label = "leanpipe-segments-wired"
	proof, err := ProveSegments(label, stmt(xs), []Segment{seg(xs), blake2sSegment(4, 9), seg(xs)}, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, label, stmt(xs), shapes(xs), nil, 1); err != nil {
		t.Fatal(err)
	}
	other := append([]uint64(nil), xs...)
	other[7] ^= 1 << 33
	// The same proof against other values: rejected.
	if _, err := VerifySegments(proof, label, stmt(other), shapes(other), nil, 1); err == nil {
		t.Fatal("a changed public value verified")
	}
	// The third segment proved on other inputs than the first: whichever values the
	// statement carries, one segment's pin fails.
	mixed, err := ProveSegments(label, stmt(xs), []Segment{seg(xs), blake2sSegment(4, 9), seg(other)}, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range [][]uint64{xs, other} {
		if _, err := VerifySegments(mixed, label, stmt(v), shapes(v), nil, 1); err == nil {
			t.Fatal("segments on different inputs verified as wired")
		}
	}
}

// wordPoint is the point on a layered segment's column (7 word bits, then nLog slot
// bits) selecting word 1 of every block (the inputs x) at slot point slot.
func wordPoint(slot []field.E) []field.E {
	p := []field.E{field.One, field.Zero, field.Zero, field.Zero, field.Zero, field.Zero, field.Zero}
	return append(p, slot...)
}

// TestSegmentsEvaluations: a λ-weighted sum over a segment's blocks is one evaluation
// at the point r_b = μ_b/(1 + μ_b), μ_b = λ^(2^b) (Σ_s λ^s·x_s = Π_b (1 + μ_b)·x̃(r)),
// checked against a revealed value; two segments holding the same inputs agree at a
// random point, and segments holding different inputs do not.
func TestSegmentsEvaluations(t *testing.T) {
	rng := testrand.New(t)
	layered := layeredCircuit(8)
	const n, nLog = 16, 4
	xs, ys := make([]uint64, n), make([]uint64, n)
	for i := range xs {
		xs[i], ys[i] = rng.Uint64(), rng.Uint64()
	}
	lambda := field.E{C0: field.K(rng.Uint64()), C1: field.K(rng.Uint64()), C2: field.K(rng.Uint64())}
	var sum field.E
	pow := field.One
	for _, x := range xs {
		sum = sum.Add(pow.MulK(field.K(x)))
		pow = pow.Mul(lambda)
	}
	r := make([]field.E, nLog)
	scale := field.One
	mu := lambda
	for b := range r {
		r[b] = mu.Mul(field.One.Add(mu).Inv())
		scale = scale.Mul(field.One.Add(mu))
		mu = mu.Square()
	}
	const label = "leanpipe-segments-evaluations"
	ev := func(revealed field.E) *Evaluations {
		return &Evaluations{
			Points: func(sample func() field.E) []SegmentPoint {
				rho := []field.E{sample(), sample(), sample(), sample()}
				return []SegmentPoint{{0, wordPoint(r)}, {0, wordPoint(rho)}, {1, wordPoint(rho)}}
			},
			Check: func(v []field.E) error {
				if scale.Mul(v[0]) != revealed {
					return errors.New("the weighted sum is not the revealed one")
				}
				if v[1] != v[2] {
					return errors.New("the two segments' inputs differ")
				}
				return nil
			},
		}
	}
	shapes := []SegmentShape{{layered, n, nil}, {layered, n, nil}}
	proof, err := ProveSegments(label, nil, []Segment{layeredSegment(layered, xs), layeredSegment(layered, xs)}, ev(sum), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, label, nil, shapes, ev(sum), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(proof, label, nil, shapes, ev(sum.Add(field.One)), 1); err == nil {
		t.Fatal("another revealed sum verified")
	}
	// The opening holds the prover to the values it sent: with a Check that accepts
	// anything, a changed value is still rejected.
	var sent []field.E
	rec := ev(sum)
	check := rec.Check
	rec.Check = func(v []field.E) error { sent = append([]field.E(nil), v...); return check(v) }
	if _, err := VerifySegments(proof, label, nil, shapes, rec, 1); err != nil {
		t.Fatal(err)
	}
	for i, v := range sent {
		at := slices.Index(proof.Stream, v)
		if at < 0 {
			t.Fatalf("value %d not in the stream", i)
		}
		bad := *proof
		bad.Stream = append([]field.E(nil), proof.Stream...)
		bad.Stream[at] = v.Add(field.One)
		lax := ev(sum)
		lax.Check = func([]field.E) error { return nil }
		if _, err := VerifySegments(&bad, label, nil, shapes, lax, 1); err == nil {
			t.Fatalf("evaluation value %d changed: verified", i)
		}
	}
	mixed, err := ProveSegments(label, nil, []Segment{layeredSegment(layered, xs), layeredSegment(layered, ys)}, ev(sum), 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySegments(mixed, label, nil, shapes, ev(sum), 1); err == nil {
		t.Fatal("segments holding different inputs verified as equal")
	}
}

// TestSegmentsNativeChecks: the verifier's native checks (Evaluations.Native) decide
// the verdict with the proof: all passing, the honest proof verifies; one failing (or
// panicking), it is refused naming the check, whatever the proof.
func TestSegmentsNativeChecks(t *testing.T) {
	segs := []Segment{blake2sSegment(5, 3), blake2sSegment(2, 4)}
	shapes := []SegmentShape{{circuit.BLAKE2s(), 5, nil}, {circuit.BLAKE2s(), 2, nil}}
	const label = "leanpipe-segments-native-test"
	p, err := ProveSegments(label, nil, segs, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	pass := NativeCheck{"a check that holds", func() error { return nil }}
	ev := &Evaluations{Native: []NativeCheck{pass, pass}}
	if _, err := VerifySegments(p, label, nil, shapes, ev, 1); err != nil {
		t.Fatal(err)
	}
	errNo := errors.New("no")
	for name, c := range map[string]NativeCheck{
		"failing":   {"the deferred claim", func() error { return errNo }},
		"panicking": {"the deferred claim", func() error { panic("bug") }},
	} {
		ev := &Evaluations{Native: []NativeCheck{pass, c, pass}}
		_, err := VerifySegments(p, label, nil, shapes, ev, 1)
		if err == nil || !strings.Contains(err.Error(), "the deferred claim") {
			t.Fatalf("%s native check: %v", name, err)
		}
	}
}

// TestSegmentFilled: a segment handed over filled (Segment.Filled) proves the same
// bytes as one the proof fills, and a Filled of another slot count is not used (the
// proof fills the segment itself: a Filled of garbage at the wrong size changes
// nothing); a Filled of garbage at the right size is used, and its proof fails.
func TestSegmentFilled(t *testing.T) {
	const label = "leanpipe-segments-filled"
	rng := testrand.New(t)
	layered := layeredCircuit(4)
	xs := [2][]uint64{make([]uint64, 9), make([]uint64, 20)}
	for _, v := range xs {
		for i := range v {
			v[i] = rng.Uint64()
		}
	}
	segs := []Segment{layeredSegment(layered, xs[0]), layeredSegment(layered, xs[1])}
	shapes := []SegmentShape{{layered, len(xs[0]), nil}, {layered, len(xs[1]), nil}}
	want, err := ProveSegments(label, nil, segs, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	filled := func(s Segment, nLog int) *Filled {
		n := 1 << (nLog + s.Circuit.LogSize() - 6)
		f := &Filled{NLog: nLog, W: make([]field.K, n), A: make([]field.K, n), B: make([]field.K, n)}
		if err := s.Fill(par.Serial(), nLog, f.W, f.A, f.B); err != nil {
			t.Fatal(err)
		}
		return f
	}
	with := append([]Segment(nil), segs...)
	with[0].Filled, with[1].Filled = filled(segs[0], 4), filled(segs[1], 5)
	got, err := ProveSegments(label, nil, with, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.MarshalWire(), want.MarshalWire()) {
		t.Fatal("a filled segment proves other bytes")
	}
	// Under buffers.Poison, filled or not: the stack, the weights and the stages'
	// buffers taken uncleared are written in full before they are read.
	refilled := append([]Segment(nil), segs...)
	refilled[0].Filled, refilled[1].Filled = filled(segs[0], 4), filled(segs[1], 5)
	samePoisoned(t, "filled", label, refilled, 2, want)
	samePoisoned(t, "unfilled", label, segs, 2, want)
	if _, err := VerifySegments(got, label, nil, shapes, nil, 1); err != nil {
		t.Fatal(err)
	}
	// The wrong slot count: ignored.
	wrong := append([]Segment(nil), segs...)
	wrong[1].Filled = filled(segs[1], 6)
	for i := range wrong[1].Filled.W {
		wrong[1].Filled.W[i] = field.K(rng.Uint64())
	}
	if got, err = ProveSegments(label, nil, wrong, nil, 1, par.Serial()); err != nil || !bytes.Equal(got.MarshalWire(), want.MarshalWire()) {
		t.Fatalf("a Filled of another slot count was used (%v)", err)
	}
	// The right slot count, garbage: used, and the proof does not verify.
	bad := append([]Segment(nil), segs...)
	bad[1].Filled = filled(segs[1], 5)
	bad[1].Filled.W[3] ^= 1
	forged, err := ProveSegments(label, nil, bad, nil, 1, par.Serial())
	if err == nil {
		_, err = VerifySegments(forged, label, nil, shapes, nil, 1)
	}
	if err == nil {
		t.Fatal("a segment filled with a changed witness word verified")
	}
}

// TestSegmentsPoisoned proves segments whose last one ends inside a committed lane
// block, so the committed stack has a tail past the segments, under buffers.Poison:
// the stack and the opening's weight are taken uncleared, with only that tail
// cleared, and the stages' buffers hold garbage until written. The bytes must be
// those of the unpoisoned proof.
func TestSegmentsPoisoned(t *testing.T) {
	const label = "leanpipe-segments-poisoned"
	rng := testrand.New(t)
	layered := layeredCircuit(6)
	xs := make([]uint64, 501)
	for i := range xs {
		xs[i] = rng.Uint64()
	}
	// 512 slots of 128 words, then 8 slots: the stack is 2^17 words, its lane
	// blocks 2^11, and the second segment ends half way into one.
	segs := []Segment{layeredSegment(layered, xs[:500]), layeredSegment(layered, xs[500:])}
	shapes := []SegmentShape{{layered, 500, nil}, {layered, 1, nil}}
	_, places, stackLog, _, err := segmentLayout(shapes, 1)
	if err != nil {
		t.Fatal(err)
	}
	if end, committed := segmentsEnd(places), committedWords(places, stackLog); committed <= end {
		t.Fatalf("the shapes leave no committed tail (segments end at %d, %d words committed)", end, committed)
	}
	want, err := ProveSegments(label, nil, segs, nil, 1, par.New(nil, 2))
	if err != nil {
		t.Fatal(err)
	}
	samePoisoned(t, "1 worker", label, segs, 1, want)
	samePoisoned(t, "2 workers", label, segs, 2, want)
	if _, err := VerifySegments(want, label, nil, shapes, nil, 1); err != nil {
		t.Fatal(err)
	}
}

// samePoisoned proves segs (rate 1, no statement) on w workers under buffers.Poison
// and requires want's bytes.
func samePoisoned(t *testing.T, what, label string, segs []Segment, w int, want *transcript.Proof) {
	t.Helper()
	restore := buffers.Poison(0xc6)
	got, err := ProveSegments(label, nil, segs, nil, 1, par.New(nil, w))
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.MarshalWire(), want.MarshalWire()) {
		t.Fatalf("%s, poisoned: other bytes", what)
	}
}

package ntt

import (
	"slices"
	"sync"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// encodeKOracle builds the level-0 codeword the slow way: transpose (lane t = block
// n−1−t, right-aligned in rows of w words), replicate, layer-by-layer transform.
func encodeKOracle(msg []field.K, logRows, rate, w int) []uint64 {
	p := NewPlan(logRows + rate)
	rows := 1 << logRows
	n := len(msg) / rows
	narrow := make([]uint64, n<<p.logD)
	for rep := range 1 << rate {
		for r := range rows {
			for b := range n {
				narrow[(rep*rows+r)*n+n-1-b] = uint64(msg[b*rows+r])
			}
		}
	}
	p.forwardWordsRef(narrow, n, rate)
	out := make([]uint64, w<<p.logD)
	for q := range 1 << p.logD {
		copy(out[q*w+w-n:(q+1)*w], narrow[q*n:(q+1)*n])
	}
	return out
}

func TestEncodeKIsEvaluation(t *testing.T) {
	rng := testrand.New(t)
	for _, sh := range []struct{ logRows, rate, n, w int }{
		{0, 1, 1, 64}, {1, 1, 64, 64}, {3, 2, 5, 64}, {3, 4, 5, 5}, {6, 1, 64, 64}, {9, 1, 3, 64}, {9, 3, 40, 40}, {10, 2, 64, 64},
	} {
		logD := sh.logRows + sh.rate
		msg := randK(rng, sh.n<<sh.logRows)
		dst := make([]uint64, sh.w<<logD)
		for i := range dst {
			dst[i] = rng.Uint64() // stale buffer content must not leak
		}
		EncodeK(dst, msg, sh.logRows+6, 6, sh.rate, par.New(nil, 2))
		qs := []int{0, 1, (1 << logD) - 1}
		for range 24 {
			qs = append(qs, rng.IntN(1<<logD))
		}
		rows := 1 << sh.logRows
		for _, q := range qs {
			row := dst[q*sh.w : (q+1)*sh.w]
			for i := range sh.w - sh.n {
				if row[i] != 0 {
					t.Fatalf("%+v q=%d: prefix word %d = %#x, want 0", sh, q, i, row[i])
				}
			}
			x := slowBasis(uint64(q), sh.logRows)
			for b := range sh.n {
				want := dotBasis(msg[b*rows:(b+1)*rows], x)
				if got := field.K(row[sh.w-1-b]); got != want {
					t.Fatalf("%+v q=%d block %d: got %v want %v", sh, q, b, got, want)
				}
			}
		}
	}
}

func TestEncodeKWorkersAndOracle(t *testing.T) {
	rng := testrand.New(t)
	shapes := []struct{ logRows, rate, n, w int }{
		{9, 1, 64, 64}, {10, 1, 37, 64}, {9, 3, 37, 37}, {10, 4, 1, 1}, {8, 4, 64, 64},
	}
	if !testing.Short() {
		shapes = append(shapes, []struct{ logRows, rate, n, w int }{
			{11, 2, 64, 64}, {12, 1, 37, 64}, {12, 3, 37, 37}, {14, 1, 64, 64},
		}...)
	}
	for _, sh := range shapes {
		logD := sh.logRows + sh.rate
		msg := randK(rng, sh.n<<sh.logRows)
		want := encodeKOracle(msg, sh.logRows, sh.rate, sh.w)
		p := NewPlan(logD)
		for _, workers := range []int{1, 2, 4} {
			dst := make([]uint64, sh.w<<logD)
			for i := range dst {
				dst[i] = ^uint64(0)
			}
			p.EncodeK(dst, msg, 6, sh.rate, par.New(nil, workers))
			if !slices.Equal(dst, want) {
				t.Fatalf("%+v workers=%d: codeword differs from the oracle", sh, workers)
			}
		}
	}
}

func TestEncodeEIsEvaluation(t *testing.T) {
	rng := testrand.New(t)
	for _, sh := range []struct{ logRows, rate, fold int }{
		{0, 1, 0}, {2, 3, 2}, {4, 1, 4}, {5, 6, 3}, {3, 12, 1}, {8, 2, 4},
	} {
		logD := sh.logRows + sh.rate
		lanes := 1 << sh.fold
		msg := randE(rng, lanes<<sh.logRows)
		dst := make([]uint64, 3*lanes<<logD)
		EncodeE(dst, msg, sh.fold, sh.rate, par.New(nil, 2))
		qs := []int{0, (1 << logD) - 1}
		for range 16 {
			qs = append(qs, rng.IntN(1<<logD))
		}
		for _, q := range qs {
			row := dst[q*3*lanes : (q+1)*3*lanes]
			for l := range lanes {
				coeffs := make([]field.E, 1<<sh.logRows)
				for r := range coeffs {
					coeffs[r] = msg[r*lanes+l]
				}
				want := slowEvalE(coeffs, uint64(q), logD)
				got := field.E{C0: field.K(row[3*l]), C1: field.K(row[3*l+1]), C2: field.K(row[3*l+2])}
				if got != want {
					t.Fatalf("%+v q=%d lane %d: got %v want %v", sh, q, l, got, want)
				}
			}
		}
	}
}

func TestEncodeEWorkersAndOracle(t *testing.T) {
	rng := testrand.New(t)
	shapes := []struct{ logRows, rate, fold int }{{8, 3, 4}, {10, 1, 3}, {4, 8, 4}, {2, 12, 2}}
	if !testing.Short() {
		shapes = append(shapes, []struct{ logRows, rate, fold int }{{10, 3, 4}, {12, 1, 3}, {6, 9, 4}, {2, 14, 2}}...)
	}
	for _, sh := range shapes {
		logD := sh.logRows + sh.rate
		lanes := 1 << sh.fold
		msg := randE(rng, lanes<<sh.logRows)
		s := 3 * lanes
		want := make([]uint64, s<<logD)
		for rep := range 1 << sh.rate {
			copy(want[rep*len(msg)*3:], eWords(msg))
		}
		p := NewPlan(logD)
		p.forwardWordsRef(want, s, sh.rate)
		for _, workers := range []int{1, 2, 4} {
			dst := make([]uint64, s<<logD)
			p.EncodeE(dst, msg, sh.fold, sh.rate, par.New(nil, workers))
			if !slices.Equal(dst, want) {
				t.Fatalf("%+v workers=%d: codeword differs from the oracle", sh, workers)
			}
		}
	}
}

// The verifier reads a level-0 row reversed and folds it with the eq weights of the six
// lane-fold challenges; that must be the codeword, at the same point, of the lane-folded
// (E-valued) message. This ties the K and E encoders and the lane order together.
func TestLevel0FoldConsistency(t *testing.T) {
	rng := testrand.New(t)
	const logRows, rate, fold = 7, 2, 6
	for _, n := range []int{64, 29} {
		rows := 1 << logRows
		msg := randK(rng, n<<logRows)
		logD := logRows + rate
		dst := make([]uint64, 64<<logD)
		EncodeK(dst, msg, logRows+fold, fold, rate, par.New(nil, 2))

		r := randE(rng, fold)
		eq := make([]field.E, 1<<fold)
		field.EqTable(eq, r)
		folded := make([]field.E, rows)
		for b := range n {
			for j := range rows {
				folded[j] = folded[j].Add(eq[b].MulK(msg[b*rows+j]))
			}
		}
		enc := make([]uint64, 3<<logD)
		EncodeE(enc, folded, 0, rate, par.New(nil, 1))
		for q := range 1 << logD {
			row := dst[q*64 : (q+1)*64]
			var got field.E
			for i := range 64 {
				got = got.Add(eq[i].MulK(field.K(row[63-i]))) // reversed row
			}
			want := field.E{C0: field.K(enc[3*q]), C1: field.K(enc[3*q+1]), C2: field.K(enc[3*q+2])}
			if got != want {
				t.Fatalf("n=%d q=%d: folded row %v, codeword of folded message %v", n, q, got, want)
			}
		}
	}
}

// The verifier's induced weight at a Boolean point b is the novel-basis monomial X_b at the
// query, so Σ_i w_i·c(q_i) = Σ_b m_b·weight(b) for a codeword c of message m.
func TestInducedWeightAgreesWithEncoding(t *testing.T) {
	rng := testrand.New(t)
	const messageLog, rate = 5, 3
	msg := randE(rng, 1<<messageLog)
	enc := make([]uint64, 3<<(messageLog+rate))
	EncodeE(enc, msg, 0, rate, par.New(nil, 1))
	queries := make([]uint64, 7)
	weights := randE(rng, len(queries))
	var lhs field.E
	for i := range queries {
		q := rng.IntN(1 << (messageLog + rate))
		queries[i] = uint64(q)
		lhs = lhs.Add(weights[i].Mul(field.E{C0: field.K(enc[3*q]), C1: field.K(enc[3*q+1]), C2: field.K(enc[3*q+2])}))
	}
	var rhs field.E
	point := make([]field.E, messageLog)
	for b := range 1 << messageLog {
		for k := range point {
			point[k] = field.FromK(field.K(b >> k & 1))
		}
		rhs = rhs.Add(msg[b].Mul(inducedWeight(messageLog, queries, weights, point)))
	}
	if lhs != rhs {
		t.Fatalf("Σ w·c(q) = %v, Σ m·weight = %v", lhs, rhs)
	}
}

func TestEncodePanicsOnBadSizes(t *testing.T) {
	p := NewPlan(5)
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	mustPanic("ragged message", func() { p.EncodeK(make([]uint64, 64<<5), make([]field.K, 17), 6, 1, par.New(nil, 1)) })
	mustPanic("too many blocks", func() { p.EncodeK(make([]uint64, 64<<5), make([]field.K, 65<<4), 6, 1, par.New(nil, 1)) })
	mustPanic("row narrower than lanes", func() { p.EncodeK(make([]uint64, 3<<5), make([]field.K, 4<<4), 6, 1, par.New(nil, 1)) })
	mustPanic("E message", func() { p.EncodeE(make([]uint64, 48<<5), make([]field.E, 15<<4), 4, 1, par.New(nil, 1)) })
	mustPanic("E codeword", func() { p.EncodeE(make([]uint64, 47<<5), make([]field.E, 16<<4), 4, 1, par.New(nil, 1)) })
	mustPanic("rate", func() { p.EncodeK(make([]uint64, 64<<5), make([]field.K, 64), 6, 6, par.New(nil, 1)) })
}

// Every split of the engine (top passes, fused fills, sub-block sizes) gives the same
// codeword: sweep the sub-block target so the small shapes take every path.
func TestEncodeEnginePaths(t *testing.T) {
	rng := testrand.New(t)
	saved := subTargetLog
	defer func() { subTargetLog = saved }()
	for _, sh := range []struct{ logRows, rate, n, w int }{{6, 1, 64, 64}, {7, 3, 9, 64}, {5, 4, 2, 2}, {8, 2, 64, 64}, {7, 0, 64, 64}, {6, 0, 3, 5}} {
		msg := randK(rng, sh.n<<sh.logRows)
		want := encodeKOracle(msg, sh.logRows, sh.rate, sh.w)
		emsg := randE(rng, 8<<sh.logRows)
		ewant := make([]uint64, 24<<(sh.logRows+sh.rate))
		for rep := range 1 << sh.rate {
			copy(ewant[rep*len(emsg)*3:], eWords(emsg))
		}
		p := NewPlan(sh.logRows + sh.rate)
		p.forwardWordsRef(ewant, 24, sh.rate)
		for st := 8; st <= 20; st++ {
			subTargetLog = st
			for _, workers := range []int{1, 3} {
				dst := make([]uint64, sh.w<<p.logD)
				// Each range handed to done is final when it is handed over: a copy
				// of every range taken then must end up as the codeword.
				seen := make([]uint64, len(dst))
				calls := make([]int, 1<<p.logD)
				var mu sync.Mutex
				p.EncodeKThen(dst, msg, 6, sh.rate, par.New(nil, workers), func(lo, hi int) {
					if size := hi - lo; size <= 0 || size&(size-1) != 0 || lo%size != 0 {
						t.Errorf("%+v sub=%d: done(%d, %d) is not an aligned power-of-two range", sh, st, lo, hi)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					copy(seen[lo*sh.w:hi*sh.w], dst[lo*sh.w:hi*sh.w])
					for r := lo; r < hi; r++ {
						calls[r]++
					}
				})
				if !slices.Equal(dst, want) {
					t.Fatalf("%+v sub=%d workers=%d: K codeword differs", sh, st, workers)
				}
				if i := slices.IndexFunc(calls, func(c int) bool { return c != 1 }); i >= 0 {
					t.Fatalf("%+v sub=%d workers=%d: row %d handed to done %d times", sh, st, workers, i, calls[i])
				}
				if !slices.Equal(seen, want) {
					t.Fatalf("%+v sub=%d workers=%d: a range handed to done was not final", sh, st, workers)
				}
				edst := make([]uint64, len(ewant))
				p.EncodeE(edst, emsg, 3, sh.rate, par.New(nil, workers))
				if !slices.Equal(edst, ewant) {
					t.Fatalf("%+v sub=%d workers=%d: E codeword differs", sh, st, workers)
				}
			}
		}
	}
}

// FuzzEncodeK holds the engine to the layer-by-layer oracle on arbitrary small shapes,
// lane counts, row widths and worker counts.
func FuzzEncodeK(f *testing.F) {
	f.Add(uint8(5), uint8(1), uint8(64), uint8(0), uint8(2), uint64(1))
	f.Add(uint8(8), uint8(3), uint8(7), uint8(9), uint8(3), uint64(2))
	f.Fuzz(func(t *testing.T, logRows, rate, n, extra, workers uint8, seed uint64) {
		lr, rt := int(logRows%10), int(rate%5)
		nl := int(n%64) + 1
		w := min(64, nl+int(extra%64))
		msg := make([]field.K, nl<<lr)
		x := seed | 1
		for i := range msg {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			msg[i] = field.K(x)
		}
		want := encodeKOracle(msg, lr, rt, w)
		dst := make([]uint64, w<<(lr+rt))
		NewPlan(lr+rt).EncodeK(dst, msg, 6, rt, par.New(nil, int(workers%5)))
		if !slices.Equal(dst, want) {
			t.Fatalf("logRows=%d rate=%d lanes=%d width=%d workers=%d: codeword differs", lr, rt, nl, w, workers%5)
		}
	})
}

// TestEncodeKStrips holds the lane-major top pass, cut into several strips per worker
// (each transposed and then transformed by one worker), to the oracle at 1 to 3 workers.
func TestEncodeKStrips(t *testing.T) {
	rng := testrand.New(t)
	saved := subTargetLog
	defer func() { subTargetLog = saved }()
	// With 2^10-byte sub-blocks the first top pass of a 2^13-row codeword runs six
	// layers over segments of 64 rows, cut into strips of 16 rows.
	subTargetLog = 10
	for _, sh := range []struct{ logRows, rate, n, w int }{{12, 1, 64, 64}, {12, 1, 37, 64}, {11, 2, 37, 37}} {
		msg := randK(rng, sh.n<<sh.logRows)
		want := encodeKOracle(msg, sh.logRows, sh.rate, sh.w)
		p := NewPlan(sh.logRows + sh.rate)
		for _, workers := range []int{1, 2, 3} {
			dst := make([]uint64, sh.w<<p.logD)
			for i := range dst {
				dst[i] = ^uint64(0)
			}
			p.EncodeK(dst, msg, 6, sh.rate, par.New(nil, workers))
			if !slices.Equal(dst, want) {
				t.Fatalf("%+v workers=%d: codeword differs from the oracle", sh, workers)
			}
		}
	}
}

package lincheck

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/par"
)

// publicCase is a toy block with a public window: slots [live, 2^nLog) repeat slot
// 0, and the table's rows are the witness's own bits in the window (an honest
// statement) for the live slots.
type publicCase struct {
	*lincheckCase
	win   Window
	table *Table
}

func newPublicCase(rng *rand.Rand, logSize, nLog, live int, win Window) *publicCase {
	c := newToyCircuit(rng, logSize)
	q := toyWitness(rng, c, nLog, 0)
	words := n0(c)
	for s := live; s < 1<<nLog; s++ {
		copy(q[s*words:(s+1)*words], q[:words])
	}
	lc := &lincheckCase{c: c, q: q, nLog: nLog, live: live, zc: honestClaims(rng, c, q, nLog), words: words}
	rows := make([][]uint64, live)
	for s := range rows {
		rows[s] = make([]uint64, (1<<win.Log+63)/64)
		for j := 0; j < 1<<win.Log; j++ {
			if bitAt(q, words, s, win.Offset+j) {
				rows[s][j/64] |= 1 << (j % 64)
			}
		}
	}
	return &publicCase{lincheckCase: lc, win: win, table: &Table{W: win, Rows: rows}}
}

func (pc *publicCase) prove(workers int) (*fakeTranscript, Claim) {
	tr := &fakeTranscript{}
	w := pc.win
	cl := new(Scratch).ProvePublic(tr, pc.c, pc.q, pc.live, pc.zc, &w, par.New(nil, workers))
	return tr, cl
}

func randMask(rng *rand.Rand, log int) []uint64 {
	m := make([]uint64, (1<<log+63)/64)
	for i := range m {
		m[i] = rng.Uint64()
	}
	if log < 6 {
		m[0] &= 1<<(1<<log) - 1
	}
	return m
}

func TestPublicTermRoundTrip(t *testing.T) {
	rng := testrand.New(t)
	for _, tc := range []struct {
		logSize, nLog, live int
		win                 Window
	}{
		{8, 3, 8, Window{Offset: 64, Log: 6}},
		{9, 3, 5, Window{Offset: 100, Log: 7, Mask: randMask(rng, 7)}},
		{9, 4, 1, Window{Offset: 0, Log: 9, Mask: randMask(rng, 9)}},
		{10, 2, 3, Window{Offset: 512, Log: 3, Mask: randMask(rng, 3)}},
	} {
		pc := newPublicCase(rng, tc.logSize, tc.nLog, tc.live, tc.win)
		tr, cl := pc.prove(1)
		got, err := VerifyPublic(tr.VerifierCopy(), pc.c, pc.zc, pc.table)
		if err != nil {
			t.Fatalf("%+v: honest proof rejected: %v", tc, err)
		}
		if !equalEs(got.Point, cl.Point) || !equalEs(got.S, cl.S) {
			t.Fatalf("%+v: verifier's claim differs from the prover's", tc)
		}
		tr2, _ := pc.prove(2)
		if !equalEs(tr.Stream, tr2.Stream) {
			t.Fatalf("%+v: the proof depends on the worker count", tc)
		}
		// The term changes the transcript: the same proof does not verify without it,
		// and a proof without the term does not verify with it.
		if _, err := Verify(tr.VerifierCopy(), pc.c, pc.zc); err == nil {
			t.Fatalf("%+v: a public-term proof verified without the term", tc)
		}
		plain, _ := pc.lincheckCase.prove(1)
		if _, err := VerifyPublic(plain.VerifierCopy(), pc.c, pc.zc, pc.table); err == nil {
			t.Fatalf("%+v: a proof without the term verified with it", tc)
		}
	}
}

// TestPublicTermBindsEveryPinnedBit flips each pinned public bit of each slot (the
// padding slots through row 0) and expects a rejection; flipping an unpinned bit
// changes nothing.
func TestPublicTermBindsEveryPinnedBit(t *testing.T) {
	rng := testrand.New(t)
	win := Window{Offset: 128, Log: 6, Mask: randMask(rng, 6)}
	pc := newPublicCase(rng, 9, 3, 6, win)
	tr, _ := pc.prove(1)
	for s := range pc.table.Rows {
		for j := 0; j < 1<<win.Log; j++ {
			pc.table.Rows[s][j/64] ^= 1 << (j % 64)
			_, err := VerifyPublic(tr.VerifierCopy(), pc.c, pc.zc, pc.table)
			pc.table.Rows[s][j/64] ^= 1 << (j % 64)
			switch {
			case win.pinned(j) && !errors.Is(err, ErrTerminal):
				t.Fatalf("slot %d, pinned column %d flipped: err = %v, want ErrTerminal", s, win.Offset+j, err)
			case !win.pinned(j) && err != nil:
				t.Fatalf("slot %d, unpinned column %d flipped: %v", s, win.Offset+j, err)
			}
		}
	}
	// A statement with one more slot than proved (a padding slot that claims other
	// bits than slot 0's) is refused too.
	extra := append([]uint64(nil), pc.table.Rows[0]...)
	for j := range 1 << win.Log {
		if win.pinned(j) {
			extra[j/64] ^= 1 << (j % 64)
			break
		}
	}
	longer := &Table{W: win, Rows: append(append([][]uint64(nil), pc.table.Rows...), extra)}
	if _, err := VerifyPublic(tr.VerifierCopy(), pc.c, pc.zc, longer); !errors.Is(err, ErrTerminal) {
		t.Fatalf("a padding slot's differing public bits: err = %v, want ErrTerminal", err)
	}
}

// TestPublicTermWitnessMismatch: a witness whose pinned bits differ from the table in
// one slot cannot be proved against it.
func TestPublicTermWitnessMismatch(t *testing.T) {
	rng := testrand.New(t)
	win := Window{Offset: 64, Log: 6}
	pc := newPublicCase(rng, 8, 3, 8, win)
	pc.q[5*pc.words+(win.Offset+7)/64] ^= 1 << ((win.Offset + 7) % 64)
	pc.zc = honestClaims(rng, pc.c, pc.q, pc.nLog)
	tr, _ := pc.prove(1)
	if _, err := VerifyPublic(tr.VerifierCopy(), pc.c, pc.zc, pc.table); !errors.Is(err, ErrTerminal) {
		t.Fatalf("err = %v, want ErrTerminal", err)
	}
}

func TestPublicWindowChecked(t *testing.T) {
	rng := testrand.New(t)
	lc := newLincheckCase(rng, 8, 3, 0)
	for _, w := range []Window{
		{Offset: 200, Log: 6},                     // past the block's 256 columns
		{Offset: -1, Log: 2},                      // negative
		{Offset: 0, Log: 6, Mask: []uint64{1, 2}}, // mask of the wrong length
		{Offset: 0, Log: 17},
	} {
		tr := &fakeTranscript{}
		if _, err := VerifyPublic(tr, lc.c, lc.zc, &Table{W: w}); !errors.Is(err, ErrPublic) {
			t.Fatalf("window %+v: err = %v, want ErrPublic", w, err)
		}
	}
}

// TestTableEvalMatchesDefinition checks Eval against the definition, with distinct
// rows and with runs of equal rows (which Eval adds once): runs at the start (where
// the padding weight joins), in the middle, at the end, and equal rows apart.
func TestTableEvalMatchesDefinition(t *testing.T) {
	rng := testrand.New(t)
	win := Window{Offset: 0, Log: 5, Mask: randMask(rng, 5)}
	distinct := make([][]uint64, 7)
	for i := range distinct {
		distinct[i] = []uint64{rng.Uint64() & (1<<32 - 1)}
	}
	for _, pattern := range [][]int{
		{0, 1, 2, 3, 4},
		{0, 0, 1, 2, 2},
		{0, 1, 1, 1, 2, 0},
		{0, 1, 2, 2, 2, 2, 2},
		{0, 0, 0, 0, 0},
		{3, 4, 3, 4, 3, 3},
		{0, 1, 2, 3, 4, 5, 6, 6},
	} {
		rows := make([][]uint64, len(pattern))
		for i, p := range pattern {
			rows[i] = slices.Clone(distinct[p]) // equal contents, distinct slices
		}
		tab := &Table{W: win, Rows: rows}
		tau, chi := randEs(rng, 5), randEs(rng, 3)
		eqT := make([]field.E, 32)
		field.EqTable(eqT, tau)
		eqS := make([]field.E, 8)
		field.EqTable(eqS, chi)
		var want field.E
		for s := range 8 {
			row := rows[0]
			if s < len(rows) {
				row = rows[s]
			}
			for j := range 32 {
				if win.pinned(j) && row[0]>>j&1 == 1 {
					want = want.Add(eqT[j].Mul(eqS[s]))
				}
			}
		}
		if got := tab.Eval(tau, chi); got != want {
			t.Fatalf("rows %v: Eval = %v, want %v", pattern, got, want)
		}
	}
}

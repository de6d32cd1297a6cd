package lincheck

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
)

// The public-input term. A flow whose blocks carry public bits (an XMSS key, a
// message, asserted zeros) pins them with one more term of the lincheck, beside the
// constant column's α³ term. The pinned columns are the columns Offset+j of a window
// of 2^Log columns with bit j set in Mask. After α the verifier draws τ (Log
// challenges) and both sides add
//
//	α⁴·Σ_j mask(j)·eq(τ, j)·ẑ(Offset+j, chi_out)
//
// to the sumcheck: the prover adds α⁴·mask(j)·eq(τ, j) to comb at those columns, the
// verifier adds α⁴·P(τ, chi_out) to the claim, where P is the multilinear extension
// of the masked public table pub(j, s) = mask(j)·(public bit j of slot s), and the
// same weights times the terminal's column weights to the terminal. Only the
// verifier needs P's value; the prover needs just the window. P(τ, chi_out) is one
// evaluation of a public multilinear polynomial at a point fixed by the transcript,
// so a parent proof can defer it as a claim (Public is an interface for that).

// Window says which columns of every block the public term pins: the columns
// Offset+j, 0 ≤ j < 2^Log, with bit j of Mask set (Mask nil: all of them).
type Window struct {
	Offset int
	Log    int
	Mask   []uint64
}

// ErrPublic reports a public-input term that does not fit the circuit.
var ErrPublic = errors.New("lincheck: public-input term does not fit the circuit")

// check reports whether w fits a block of 2^logSize columns.
func (w Window) check(logSize int) error {
	switch {
	case w.Log < 0 || w.Log > 16:
		return fmt.Errorf("%w: window of 2^%d columns", ErrPublic, w.Log)
	case w.Offset < 0 || w.Offset > 1<<logSize-1<<w.Log: // not Offset + 2^Log: it can wrap
		return fmt.Errorf("%w: window [%d, %d) outside a block of 2^%d columns", ErrPublic, w.Offset, w.Offset+1<<w.Log, logSize)
	case w.Mask != nil && len(w.Mask) != (1<<w.Log+63)/64:
		return fmt.Errorf("%w: mask of %d words for 2^%d columns", ErrPublic, len(w.Mask), w.Log)
	}
	return nil
}

// pinned reports whether column Offset+j is pinned.
func (w Window) pinned(j int) bool { return w.Mask == nil || w.Mask[j/64]>>(j%64)&1 == 1 }

// Pinned returns the number of pinned columns.
func (w Window) Pinned() int {
	if w.Mask == nil {
		return 1 << w.Log
	}
	n := 0
	for _, m := range w.Mask {
		n += bits.OnesCount64(m)
	}
	return n
}

// weights writes dst[j] = mask(j)·eq(τ, j) (2^Log entries).
func (w Window) weights(dst, tau []field.E) {
	field.EqTable(dst, tau)
	if w.Mask != nil {
		for j := range dst {
			if !w.pinned(j) {
				dst[j] = field.Zero
			}
		}
	}
}

// Public is the verifier's view of a public-input term: the window it pins and the
// evaluation P(τ, chi_out) of the masked public table (see the package's public
// term). Table is the direct implementation; a recursive verifier may instead
// return a value it proves later.
type Public interface {
	Window() Window
	// Eval returns P(τ, chi_out): τ has Window().Log coordinates (low column bit
	// first), chi_out one per slot bit (low first).
	Eval(tau, chiOut []field.E) field.E
}

// Table is a public table held in full: Rows[s] are slot s's 2^Log public bits
// (bit j of the window at Rows[s][j/64] bit j%64; unpinned bits are ignored). Slots
// at or past len(Rows) repeat Rows[0], as a Flock flow's padding slots repeat its
// first instance.
type Table struct {
	W    Window
	Rows [][]uint64
}

// Window is the pinned window.
func (t *Table) Window() Window { return t.W }

// Eval returns P(τ, chi_out) in O(slots + set bits): each slot's eq weight is added
// into the pinned positions its row sets, then weighted by eq(τ, ·).
func (t *Table) Eval(tau, chiOut []field.E) field.E {
	n := 1 << t.W.Log
	eqOut := make([]field.E, 1<<len(chiOut))
	field.EqTable(eqOut, chiOut)
	rowWeight := eqOut[:min(len(t.Rows), len(eqOut))]
	var pad field.E
	for _, e := range eqOut[len(rowWeight):] {
		pad = pad.Add(e)
	}
	pair := evalScratches.Get()
	defer evalScratches.Put(pair)
	pair[0], pair[1] = buffers.Grow(pair[0], n), buffers.Grow(pair[1], n)
	acc := pair[0]
	clear(acc)
	add := func(row []uint64, e field.E) {
		for k, word := range row[:min(len(row), (n+63)/64)] {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &= word - 1
				if j := 64*k + b; j < n {
					acc[j] = acc[j].Add(e)
				}
			}
		}
	}
	// A run of equal rows (a segment's padding slots repeat one row) is added once,
	// at the sum of its weights.
	var run []uint64
	var runWeight field.E
	for s, row := range t.Rows[:len(rowWeight)] {
		e := rowWeight[s]
		if s == 0 {
			e = e.Add(pad)
		}
		if s > 0 && slices.Equal(row, run) {
			runWeight = runWeight.Add(e)
			continue
		}
		if s > 0 {
			add(run, runWeight)
		}
		run, runWeight = row, e
	}
	if len(rowWeight) > 0 {
		add(run, runWeight)
	}
	w := pair[1]
	t.W.weights(w, tau)
	return field.InnerProduct(w, acc)
}

// evalScratches holds the verifier's two window-long vectors (Table.Eval's, and
// Terminal's), kept between verifications.
var evalScratches buffers.Shelf[[2][]field.E]

// addPublic adds scale·mask(j)·eq(τ, j) to comb[Offset+j].
func addPublic(comb []field.E, w Window, tau []field.E, scale field.E, tmp []field.E) {
	w.weights(tmp, tau)
	for j, x := range tmp {
		if x != field.Zero {
			comb[w.Offset+j] = comb[w.Offset+j].Add(scale.Mul(x))
		}
	}
}

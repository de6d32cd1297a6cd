package recursion

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/par"
)

// Tapes (docs/recursion.md §6.4): a computation over E whose inputs are committed
// values (E elements held in three consecutive K words of a segment's column: a
// challenge a transcript block squeezed, a stream scalar it absorbed) recorded as what
// a parent proves about it with no value revealed: every product of two non-constant
// values is a product of an arithmetic segment (ArithBlock), every other step is
// linear, and the wiring is relations across segments (flows.Relation): each product's
// operands equal their linear forms, each assertion's form is zero. A verifier's check
// written on a Tape thus becomes part of the parent's proof.

// Atom is a committed E value: an input at word Word of segment Segment (its c0; c1
// and c2 follow), or, with Segment = UnitAtom, the output of unit number Word of the
// tape.
type Atom struct{ Segment, Word int }

// UnitAtom marks a unit's output.
const UnitAtom = -1

// Lin is Σ_t Coeff_t·Atom_t + C.
type Lin struct {
	C     field.E
	Terms []LinTerm
}

// LinTerm is one term of a Lin.
type LinTerm struct {
	Atom  Atom
	Coeff field.E
}

// IsConst reports whether l has no terms.
func (l Lin) IsConst() bool { return len(l.Terms) == 0 }

// Add returns l + m.
func (l Lin) Add(m Lin) Lin {
	t := make([]LinTerm, 0, len(l.Terms)+len(m.Terms))
	return Lin{C: l.C.Add(m.C), Terms: append(append(t, l.Terms...), m.Terms...)}
}

// Scale returns e·l.
func (l Lin) Scale(e field.E) Lin {
	t := make([]LinTerm, len(l.Terms))
	for i, x := range l.Terms {
		t[i] = LinTerm{x.Atom, e.Mul(x.Coeff)}
	}
	return Lin{C: e.Mul(l.C), Terms: t}
}

// ConstLin is the constant c.
func ConstLin(c field.E) Lin { return Lin{C: c} }

// Tape records units (products, Frobenius maps) and assertions.
type Tape struct {
	// Units are the tape's units in order; unit i's output is Atom{UnitAtom, i}.
	Units []TapeUnit
	// Asserts are forms that must be zero, with what each checks.
	Asserts []TapeAssert
}

// TapeUnit is a product X·Y or, when Square, X² (the Frobenius map: GF(2)-linear in
// X's bits but not E-linear, so it too is a unit).
type TapeUnit struct {
	X, Y   Lin
	Square bool
}

// TapeAssert is one assertion: Form = 0.
type TapeAssert struct {
	What string
	Form Lin
}

// Input is the committed value at word word of segment seg.
func (t *Tape) Input(seg, word int) Lin {
	return Lin{Terms: []LinTerm{{Atom{seg, word}, field.One}}}
}

// Reserve makes room for units more units and asserts more assertions without
// growing the lists again.
func (t *Tape) Reserve(units, asserts int) {
	t.Units = slices.Grow(t.Units, units)
	t.Asserts = slices.Grow(t.Asserts, asserts)
}

func (t *Tape) unit(u TapeUnit) Lin {
	t.Units = appendDoubling(t.Units, u)
	return Lin{Terms: []LinTerm{{Atom{UnitAtom, len(t.Units) - 1}, field.One}}}
}

// Mul returns x·y: a product of the tape unless one side is constant.
func (t *Tape) Mul(x, y Lin) Lin {
	switch {
	case x.IsConst():
		return y.Scale(x.C)
	case y.IsConst():
		return x.Scale(y.C)
	}
	return t.unit(TapeUnit{X: x, Y: y})
}

// Frob returns x^(2^k): k squaring units of the tape unless x is constant.
func (t *Tape) Frob(x Lin, k int) Lin {
	if x.IsConst() {
		return ConstLin(x.C.Frobenius(k))
	}
	for range k {
		x = t.unit(TapeUnit{X: x, Square: true})
	}
	return x
}

// Products is the number of product units.
func (t *Tape) Products() int {
	n := 0
	for _, u := range t.Units {
		if !u.Square {
			n++
		}
	}
	return n
}

// Squares is the number of squaring units.
func (t *Tape) Squares() int { return len(t.Units) - t.Products() }

// Assert records that x = 0.
func (t *Tape) Assert(what string, x Lin) { t.Asserts = appendDoubling(t.Asserts, TapeAssert{what, x}) }

// appendDoubling is append for a tape's lists, which double when full (by at least
// tapeGrowMin), not by the quarter append takes past 256 entries: a child's replay
// appends some 10,000 units and 12,000 assertions one at a time, and each growth
// copies the whole list, whose entries hold pointers (a bulk write barrier while
// the collector marks), into memory freshly faulted in.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(tapeGrowMin, len(s)))
	}
	return append(s, v)
}

const tapeGrowMin = 1024

// Equal records that x = y.
func (t *Tape) Equal(what string, x, y Lin) { t.Assert(what, x.Add(y)) }

// Eval returns l's value, inputs read by input and units' outputs from units.
func (l Lin) Eval(input func(seg, word int) field.E, units []field.E) field.E {
	v := l.C
	for _, x := range l.Terms {
		var a field.E
		if x.Atom.Segment == UnitAtom {
			a = units[x.Atom.Word]
		} else {
			a = input(x.Atom.Segment, x.Atom.Word)
		}
		v = v.Add(x.Coeff.Mul(a))
	}
	return v
}

// Operands evaluates the units in order, inputs read by input: the products'
// operands (what the prover fills an arithmetic segment with), the squares' (a
// squaring segment's), and every unit's output.
func (t *Tape) Operands(input func(seg, word int) field.E) (ops [][2]field.E, sq []field.E, units []field.E) {
	units = make([]field.E, len(t.Units))
	for i, u := range t.Units {
		x := u.X.Eval(input, units)
		if u.Square {
			sq = append(sq, x)
			units[i] = x.Square()
			continue
		}
		y := u.Y.Eval(input, units)
		ops = append(ops, [2]field.E{x, y})
		units[i] = x.Mul(y)
	}
	return ops, sq, units
}

// TapeLayout places a tape's units: its products in segment FSeg of arithmetic block
// F (the i-th product at F.At(i)), its squares in segment SSeg of squaring block S.
type TapeLayout struct {
	F    *ArithBlock
	FSeg int
	S    *SquareBlock
	SSeg int
}

// Relations is the tape's wiring in layout l: per unit its operand relations (two
// for a product, one for a square), then the assertions, each E-valued relation on
// the three K words of every value it reads.
func (t *Tape) Relations(l TapeLayout) ([]flows.Relation, error) {
	return t.relationsInto(l, nil, 0)
}

// relScratch is the arrays a layout's relations are cut from (their terms' arena and
// the relations themselves), kept by a verifier from one verification to the next
// (relScratches): a warm verifier (serve, bench, a process verifying many proofs) then
// no longer makes and clears about 20 MB for each no-reveal merge it verifies. Every
// element is written before it is read.
type relScratch struct {
	terms []flows.RelationTerm
	rels  []flows.Relation
}

// relScratches holds the verifiers' idle relScratch values, one per verification
// that ran at once (a sync.Pool would hand them to the collector, and a verifier
// between merges, as in bench, would make them afresh).
var relScratches buffers.Shelf[relScratch]

// relationsInto is Relations cut from sc's arrays when sc is not nil (grown when too
// small), the relations' slice with room for extra more after them.
func (t *Tape) relationsInto(l TapeLayout, sc *relScratch, extra int) ([]flows.Relation, error) {
	index := make([]int, len(t.Units)) // unit → its index among its kind
	var nm, ns int
	for i, u := range t.Units {
		if u.Square {
			if l.S == nil {
				return nil, fmt.Errorf("recursion: tape: unit %d is a square and the layout has no squaring block", i)
			}
			index[i], ns = ns, ns+1
		} else {
			if l.F == nil {
				return nil, fmt.Errorf("recursion: tape: unit %d is a product and the layout has no arithmetic block", i)
			}
			index[i], nm = nm, nm+1
		}
	}
	// Items are the units, then the assertions. Each item's relations and their
	// terms have fixed counts (three terms per E-valued term, three for a unit's
	// own word), so the items are cut into chunks whose relations and terms start
	// at known places and are written side by side: the same relations, in the
	// same order and places, as one pass would write.
	items := len(t.Units) + len(t.Asserts)
	counts := func(i int) (rels, terms int) {
		if i < len(t.Units) {
			u := &t.Units[i]
			if u.Square {
				return 1, 3 + 3*len(u.X.Terms)
			}
			return 2, 6 + 3*len(u.X.Terms) + 3*len(u.Y.Terms)
		}
		if a := &t.Asserts[i-len(t.Units)]; !a.Form.IsConst() {
			return 1, 3 * len(a.Form.Terms)
		}
		return 0, 0
	}
	chunks := min(runtime.GOMAXPROCS(0), max(1, items/relationsChunk))
	// firstRel[c], firstTerm[c]: where chunk c's relations and terms start.
	firstRel, firstTerm := make([]int, chunks+1), make([]int, chunks+1)
	chunkOf := func(c int) int { return c * items / chunks }
	for c := range chunks {
		r, tm := firstRel[c], firstTerm[c]
		for i := chunkOf(c); i < chunkOf(c+1); i++ {
			dr, dt := counts(i)
			r, tm = r+dr, tm+dt
		}
		firstRel[c+1], firstTerm[c+1] = r, tm
	}
	nRels, size := firstRel[chunks], firstTerm[chunks]
	// A large arena is advised as huge pages before its first touch (buffers.Make):
	// its first faults were most of its cost in a one-shot verifier.
	var arena []flows.RelationTerm
	if sc != nil && cap(sc.terms) >= size {
		arena = sc.terms[:size]
	} else {
		arena = buffers.Make[flows.RelationTerm](size)
		if sc != nil {
			sc.terms = arena
		}
	}
	var out []flows.Relation
	if n := nRels + extra; sc != nil && cap(sc.rels) >= n {
		out = sc.rels[:nRels]
	} else {
		out = make([]flows.Relation, nRels, n)
		if sc != nil {
			sc.rels = out
		}
	}
	errs := make([]error, chunks)
	fill := func(c int) {
		errs[c] = t.relationsRange(l, index, chunkOf(c), chunkOf(c+1), out[firstRel[c]:firstRel[c+1]], arena[firstTerm[c]:firstTerm[c+1]])
	}
	// On the workers: a panic in a chunk is their error, not the process's.
	workers := par.New(nil, chunks)
	workers.For(chunks, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			fill(c)
		}
	}, par.PerWorker(1))
	if err := workers.Err(); err != nil {
		return nil, fmt.Errorf("recursion: tape: relations: %w", err)
	}
	// The first failing item's error, as one pass in order would return.
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// relationsChunk is the fewest tape items (units and assertions) a chunk of
// relationsInto's side-by-side work takes: a merge's tape has about 22,000 (9,950
// units and 11,860 assertions) per leaf of 200 signers at rate 2.
const relationsChunk = 4096

// relationsRange writes the relations of items [lo, hi) (units, then assertions,
// numbered on) into out and their terms into arena, both exactly their size
// (relationsInto's counts); index is each unit's index among its kind.
func (t *Tape) relationsRange(l TapeLayout, index []int, lo, hi int, out []flows.Relation, arena []flows.RelationTerm) error {
	out1 := func(i int) (int, int) {
		if t.Units[i].Square {
			s, u := l.S.At(index[i])
			return l.SSeg, l.S.SegmentWord(s, l.S.OutWord(u))
		}
		s, u := l.F.At(index[i])
		return l.FSeg, l.F.SegmentWord(s, l.F.ZWord(u))
	}
	word := func(a Atom) (int, int, error) {
		if a.Segment != UnitAtom {
			return a.Segment, a.Word, nil
		}
		if a.Word < 0 || a.Word >= len(t.Units) {
			return 0, 0, fmt.Errorf("recursion: tape: unit %d of %d", a.Word, len(t.Units))
		}
		seg, w := out1(a.Word)
		return seg, w, nil
	}
	one := flows.LinearTermsE(0, field.One)
	at := 0
	put := func(tm flows.RelationTerm) {
		arena[at] = tm
		at++
	}
	// relation is lin + its unit's word (seg, w; seg < 0: none) = 0, i.e. Σ terms =
	// C (characteristic 2).
	relation := func(lin Lin, seg, w int) (flows.Relation, error) {
		start := at
		if seg >= 0 {
			for k, tm := range one {
				put(flows.RelationTerm{Segment: seg, Word: w + k, Coeff: tm.Coeff})
			}
		}
		for _, x := range lin.Terms {
			seg, w, err := word(x.Atom)
			if err != nil {
				return flows.Relation{}, err
			}
			ts := one
			if x.Coeff != field.One {
				ts = flows.LinearTermsE(0, x.Coeff)
			}
			for k, tm := range ts {
				put(flows.RelationTerm{Segment: seg, Word: w + k, Coeff: tm.Coeff})
			}
		}
		return flows.Relation{Value: lin.C, Terms: arena[start:at:at]}, nil
	}
	r := 0
	for i := lo; i < hi; i++ {
		if i >= len(t.Units) {
			a := &t.Asserts[i-len(t.Units)]
			if a.Form.IsConst() {
				if !a.Form.C.IsZero() {
					return fmt.Errorf("recursion: tape: %s is a nonzero constant", a.What)
				}
				continue
			}
			rel, err := relation(a.Form, -1, 0)
			if err != nil {
				return err
			}
			out[r], r = rel, r+1
			continue
		}
		u := &t.Units[i]
		if u.Square {
			s, v := l.S.At(index[i])
			rel, err := relation(u.X, l.SSeg, l.S.SegmentWord(s, l.S.InWord(v)))
			if err != nil {
				return err
			}
			out[r], r = rel, r+1
			continue
		}
		s, v := l.F.At(index[i])
		for side, lin := range [2]Lin{u.X, u.Y} {
			w := l.F.XWord(v)
			if side == 1 {
				w = l.F.YWord(v)
			}
			rel, err := relation(lin, l.FSeg, l.F.SegmentWord(s, w))
			if err != nil {
				return err
			}
			out[r], r = rel, r+1
		}
	}
	return nil
}

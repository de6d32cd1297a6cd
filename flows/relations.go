package flows

import (
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// Relations across segments (docs/recursion.md §6.4): a relation is a sparse linear
// form over packed K words of any segments' columns with a public value,
// Σ_t Coeff_t·col_{Segment_t}(Word_t) = Value; a copy claim is a list of relations
// col_From(FromWords[i]) + col_To(ToWords[i]) = 0 (characteristic 2). The verifier
// builds them from the statement, before any of their challenges.
//
// After the last ring switch, before the linear claims, the relations r = 0, 1, …
// (Evaluations.Relations, then each copy claim's pairs in order) are batched by
// τ (⌈log2 count⌉ coordinates): for each segment s they touch, in increasing order,
// the prover sends v_s = Σ_r eq(τ, r)·Σ_{t of r on s} Coeff_t·col_s(Word_t), except for
// the last segment, whose v_s the verifier sets so that Σ_s v_s = Σ_r eq(τ, r)·Value_r.
// Each v_s becomes a linear claim on segment s (appended to Evaluations.Linear, in
// segment order) and is proved with them.
//
// If a relation fails, Σ_r eq(τ, r)·(form_r − Value_r) is a nonzero multilinear
// polynomial in τ, zero with probability at most ⌈log2 count⌉/|E|; otherwise the sent
// values make at least one of the linear claims false. Segment s's weight is
// Σ_r eq(τ, r)·Σ_t Coeff_t·eq(Word_t, ·): the multilinear extension at (τ, ·) of a fixed
// sparse matrix (row r holding relation r's coefficients on s), so a verifier that
// cannot evaluate it now may defer it as a claim on a fixed polynomial, as the
// lincheck's matrices are.

// RelationTerm is one word of a relation.
type RelationTerm struct {
	Segment, Word int
	Coeff         field.E
}

// Relation is Σ_t Coeff_t·col_{Segment_t}(Word_t) = Value.
type Relation struct {
	Terms []RelationTerm
	Value field.E
}

// CopyClaim is col_From(FromWords[i]) = col_To(ToWords[i]) for every i, on packed K
// words of two segments' columns (word-in-block bits low, then the slot bits).
type CopyClaim struct {
	From, To           int
	FromWords, ToWords []int
}

func checkRelations(rels []Relation, copies []CopyClaim, places []open.Placement) error {
	// The words are checked first, the message built only for a bad one.
	ok := func(seg, w int) bool {
		return seg >= 0 && seg < len(places) && w >= 0 && w < 1<<places[seg].Variables
	}
	bad := func(what string, seg, w int) error {
		if seg < 0 || seg >= len(places) {
			return fmt.Errorf("%w: %s: segment %d of %d", ErrInput, what, seg, len(places))
		}
		return fmt.Errorf("%w: %s: word %d of a %d-word column", ErrInput, what, w, 1<<places[seg].Variables)
	}
	for i, r := range rels {
		if len(r.Terms) == 0 {
			return fmt.Errorf("%w: relation %d has no terms", ErrInput, i)
		}
		for j, t := range r.Terms {
			if !ok(t.Segment, t.Word) {
				return bad(fmt.Sprintf("relation %d, term %d", i, j), t.Segment, t.Word)
			}
		}
	}
	for i, c := range copies {
		if len(c.FromWords) == 0 || len(c.FromWords) != len(c.ToWords) {
			return fmt.Errorf("%w: copy claim %d pairs %d words with %d", ErrInput, i, len(c.FromWords), len(c.ToWords))
		}
		for j := range c.FromWords {
			if !ok(c.From, c.FromWords[j]) {
				return bad(fmt.Sprintf("copy claim %d, from word %d", i, j), c.From, c.FromWords[j])
			}
			if !ok(c.To, c.ToWords[j]) {
				return bad(fmt.Sprintf("copy claim %d, to word %d", i, j), c.To, c.ToWords[j])
			}
		}
	}
	return nil
}

// relationBatch is the relations batched at τ: per touched segment (increasing), its
// linear claim's terms; and the batched value Σ_r eq(τ, r)·Value_r.
type relationBatch struct {
	segments []int
	terms    [][]LinearTerm
	target   field.E
}

// batchRelations draws τ from sample and batches rels then copies' pairs.
func batchRelations(rels []Relation, copies []CopyClaim, segments int, sample func() field.E) relationBatch {
	eq := relationsEq(rels, copies, sample)
	// Each segment's terms, counted first so that each list is allocated once.
	counts := relationCounts(rels, copies, segments)
	perSeg := make([][]LinearTerm, segments)
	for s, n := range counts {
		perSeg[s] = make([]LinearTerm, 0, n)
	}
	var b relationBatch
	for r, rel := range rels {
		for _, t := range rel.Terms {
			perSeg[t.Segment] = append(perSeg[t.Segment], LinearTerm{Word: t.Word, Coeff: eq[r].Mul(t.Coeff)})
		}
		if !rel.Value.IsZero() {
			b.target = b.target.Add(eq[r].Mul(rel.Value))
		}
	}
	r := len(rels)
	for _, c := range copies {
		for i := range c.FromWords {
			perSeg[c.From] = append(perSeg[c.From], LinearTerm{Word: c.FromWords[i], Coeff: eq[r]})
			perSeg[c.To] = append(perSeg[c.To], LinearTerm{Word: c.ToWords[i], Coeff: eq[r]})
			r++
		}
	}
	for s, ts := range perSeg {
		if len(ts) > 0 {
			b.segments = append(b.segments, s)
			b.terms = append(b.terms, ts)
		}
	}
	return b
}

// claims are the batch's linear claims at per-segment values vs.
func (b *relationBatch) claims(vs []field.E) []LinearClaim {
	out := make([]LinearClaim, len(b.segments))
	for k, s := range b.segments {
		out[k] = LinearClaim{Segment: s, Terms: b.terms[k], Value: vs[k]}
	}
	return out
}

// last sets vs's last entry so that the values add up to the target.
func (b *relationBatch) last(vs []field.E) { lastValue(b.target, vs) }

// lastValue sets vs's last entry so that the values add up to target: the relations'
// last touched segment's value, which neither side sends.
func lastValue(target field.E, vs []field.E) {
	v := target
	for _, x := range vs[:len(vs)-1] {
		v = v.Add(x)
	}
	vs[len(vs)-1] = v
}

// proveRelations runs the relations' prover side and returns their linear claims.
func proveRelations(tr *transcript.Prover, rels []Relation, copies []CopyClaim, places []open.Placement, stack []field.K) ([]LinearClaim, error) {
	if len(rels) == 0 && len(copies) == 0 {
		return nil, nil
	}
	if err := checkRelations(rels, copies, places); err != nil {
		return nil, err
	}
	b := batchRelations(rels, copies, len(places), tr.Sample)
	vs := make([]field.E, len(b.segments))
	for k, s := range b.segments[:len(vs)-1] {
		col := stack[places[s].Offset:]
		for _, t := range b.terms[k] {
			vs[k] = vs[k].Add(t.Coeff.MulK(col[t.Word]))
		}
		tr.Send(vs[k])
	}
	b.last(vs)
	return b.claims(vs), nil
}

// verifyRelations is proveRelations' verifier twin. It draws τ and receives the
// values as batchRelations and proveRelations do, but never forms the batched terms
// (a list as long as the relations' terms, which a verifier reads once, at the linear
// claims' point): each claim's weight there is summed from the relations themselves
// (relationWeights: one pass over them per touched segment, which compares a term's
// segment before any product), the same sum in another order.
func verifyRelations(tr *transcript.Verifier, rels []Relation, copies []CopyClaim, places []open.Placement) ([]LinearClaim, error) {
	if len(rels) == 0 && len(copies) == 0 {
		return nil, nil
	}
	if err := checkRelations(rels, copies, places); err != nil {
		return nil, err
	}
	rw := newRelationWeights(rels, copies, len(places), tr.Sample)
	vs := make([]field.E, len(rw.segments))
	for k, s := range rw.segments[:len(vs)-1] {
		var err error
		if vs[k], err = tr.Receive(); err != nil {
			return nil, fmt.Errorf("flows: relations on segment %d: %w", s, err)
		}
	}
	lastValue(rw.target, vs)
	out := make([]LinearClaim, len(rw.segments))
	for k, s := range rw.segments {
		out[k] = LinearClaim{Segment: s, Value: vs[k], weight: func(rho []field.E) field.E { return rw.weight(s, rho) }, weightTerms: rw.counts[s]}
	}
	return out, nil
}

// relationWeights is a relation batch as its verifier holds it: τ's eq table over the
// relations then the copies' pairs, the batched value, and per touched segment
// (increasing) the count of its terms.
type relationWeights struct {
	rels     []Relation
	copies   []CopyClaim
	eq       []field.E
	segments []int
	counts   []int
	target   field.E
}

// relationsEq draws τ from sample, one coordinate per bit of the relations' and the
// copies' pairs' count, and returns eq(τ, ·) over them.
func relationsEq(rels []Relation, copies []CopyClaim, sample func() field.E) []field.E {
	count := len(rels)
	for _, c := range copies {
		count += len(c.FromWords)
	}
	tau := make([]field.E, bits.Len(uint(count-1)))
	for i := range tau {
		tau[i] = sample()
	}
	eq := make([]field.E, 1<<len(tau))
	field.EqTable(eq, tau)
	return eq
}

// relationCounts is, per segment, the number of terms the relations and the copies'
// pairs put on it.
func relationCounts(rels []Relation, copies []CopyClaim, segments int) []int {
	counts := make([]int, segments)
	for _, rel := range rels {
		for _, t := range rel.Terms {
			counts[t.Segment]++
		}
	}
	for _, c := range copies {
		counts[c.From] += len(c.FromWords)
		counts[c.To] += len(c.ToWords)
	}
	return counts
}

// newRelationWeights draws τ from sample as batchRelations does.
func newRelationWeights(rels []Relation, copies []CopyClaim, segments int, sample func() field.E) *relationWeights {
	rw := &relationWeights{rels: rels, copies: copies, eq: relationsEq(rels, copies, sample), counts: relationCounts(rels, copies, segments)}
	for r, rel := range rels {
		if !rel.Value.IsZero() {
			rw.target = rw.target.Add(rw.eq[r].Mul(rel.Value))
		}
	}
	for s, n := range rw.counts {
		if n > 0 {
			rw.segments = append(rw.segments, s)
		}
	}
	return rw
}

// weight is segment seg's batched weight at rho: Σ_r eq(τ, r)·Σ_{t of r on seg}
// Coeff_t·eq(Word_t, rho), with the copies' pairs, each eq read from two tables over
// rho's low and high halves.
func (rw *relationWeights) weight(seg int, rho []field.E) field.E {
	lo := len(rho) / 2
	eqLo, eqHi := make([]field.E, 1<<lo), make([]field.E, 1<<(len(rho)-lo))
	field.EqTable(eqLo, rho[:lo])
	field.EqTable(eqHi, rho[lo:])
	mask := 1<<lo - 1
	at := func(w int) field.E { return eqLo[w&mask].Mul(eqHi[w>>lo]) }
	var total field.E
	for r, rel := range rw.rels {
		var sum field.E
		for _, t := range rel.Terms {
			if t.Segment != seg {
				continue
			}
			e := at(t.Word)
			if t.Coeff != field.One {
				e = t.Coeff.Mul(e)
			}
			sum = sum.Add(e)
		}
		if !sum.IsZero() {
			total = total.Add(rw.eq[r].Mul(sum))
		}
	}
	r := len(rw.rels)
	for _, c := range rw.copies {
		for i := range c.FromWords {
			if c.From == seg {
				total = total.Add(rw.eq[r].Mul(at(c.FromWords[i])))
			}
			if c.To == seg {
				total = total.Add(rw.eq[r].Mul(at(c.ToWords[i])))
			}
			r++
		}
	}
	return total
}

// linearWithRelations is ev's linear claims followed by its relations' (the
// relations' transcript steps run first).
func (ev *Evaluations) linearWithRelations(rel []LinearClaim) []LinearClaim {
	if len(rel) == 0 {
		return ev.Linear
	}
	out := make([]LinearClaim, 0, len(ev.Linear)+len(rel))
	return append(append(out, ev.Linear...), rel...)
}

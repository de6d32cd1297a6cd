package flows

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
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

// batchRelations draws τ from sample and batches rels then copies' pairs. The
// relations' terms are scaled in chunks of relations side by side, each chunk writing
// at offsets past the earlier chunks' terms of each segment: the lists are one
// worker's whatever the workers.
func batchRelations(rels []Relation, copies []CopyClaim, segments int, sample func() field.E, workers par.Workers) relationBatch {
	eq := relationsEq(rels, copies, sample)
	total := 0
	for _, rel := range rels {
		total += len(rel.Terms)
	}
	k := max(1, min(workers.N(), total/sparseChunk, len(rels)))
	bounds := make([]int, k+1)
	for c := range bounds {
		bounds[c] = c * len(rels) / k
	}
	// at[c][s]: where chunk c's first term on segment s goes (first its count); the
	// relations' terms of a segment then fill next[s] places, its copies' after.
	at := make([][]int, k)
	workers.Range(k, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			at[c] = make([]int, segments)
			for _, rel := range rels[bounds[c]:bounds[c+1]] {
				for _, t := range rel.Terms {
					at[c][t.Segment]++
				}
			}
		}
	}, par.PerWorker(1))
	next := make([]int, segments)
	for c := range at {
		for s, n := range at[c] {
			at[c][s], next[s] = next[s], next[s]+n
		}
	}
	counts := slices.Clone(next)
	addCopyCounts(counts, copies)
	perSeg := make([][]LinearTerm, segments)
	for s, n := range counts {
		perSeg[s] = make([]LinearTerm, n)
	}
	targets := make([]field.E, k)
	workers.Range(k, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			pos := at[c]
			for r := bounds[c]; r < bounds[c+1]; r++ {
				rel := &rels[r]
				e := eq[r]
				for _, t := range rel.Terms {
					perSeg[t.Segment][pos[t.Segment]] = LinearTerm{Word: t.Word, Coeff: scaleBy(e, t.Coeff)}
					pos[t.Segment]++
				}
				if !rel.Value.IsZero() {
					targets[c] = targets[c].Add(eq[r].Mul(rel.Value))
				}
			}
		}
	}, par.PerWorker(1))
	var b relationBatch
	for _, t := range targets {
		b.target = b.target.Add(t)
	}
	r := len(rels)
	for _, c := range copies {
		for i := range c.FromWords {
			perSeg[c.From][next[c.From]] = LinearTerm{Word: c.FromWords[i], Coeff: eq[r]}
			next[c.From]++
			perSeg[c.To][next[c.To]] = LinearTerm{Word: c.ToWords[i], Coeff: eq[r]}
			next[c.To]++
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

// scaleBy is e·c, with c one (no product: 133,608 of a 2→1 merge's 397,696 relation
// terms) or a base-field element (one E·K product) taken apart.
func scaleBy(e, c field.E) field.E {
	switch {
	case c == field.One:
		return e
	case c.C1.IsZero() && c.C2.IsZero():
		return e.MulK(c.C0)
	}
	return e.Mul(c)
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
func proveRelations(tr *transcript.Prover, rels []Relation, copies []CopyClaim, places []open.Placement, stack []field.K, workers par.Workers) ([]LinearClaim, error) {
	if len(rels) == 0 && len(copies) == 0 {
		return nil, nil
	}
	if err := checkRelations(rels, copies, places); err != nil {
		return nil, err
	}
	b := batchRelations(rels, copies, len(places), tr.Sample, workers)
	vs := make([]field.E, len(b.segments))
	for k, s := range b.segments[:len(vs)-1] {
		col, ts := stack[places[s].Offset:], b.terms[k]
		vs[k] = par.Sum(workers, len(ts), field.E.Add, func(lo, hi int) field.E {
			var v field.E
			for _, t := range ts[lo:hi] {
				v = v.Add(t.Coeff.MulK(col[t.Word]))
			}
			return v
		}, par.MinChunk(sparseChunk))
		tr.Send(vs[k])
	}
	b.last(vs)
	return b.claims(vs), nil
}

// verifyRelations is proveRelations' verifier twin. It draws τ and receives the
// values as batchRelations and proveRelations do, but never forms the batched terms
// (a list as long as the relations' terms, which a verifier reads once, at the linear
// claims' point): each claim's weight there is summed from the relations themselves
// (relationWeights: one pass over them for every touched segment, once the linear
// claims' sumcheck has fixed each segment's point), the same sum in another order.
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
		out[k] = LinearClaim{Segment: s, Value: vs[k], rel: rw, weightTerms: rw.counts[s]}
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
	// at is every touched segment's weight once prepare has computed them.
	at []preparedWeight
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
	addCopyCounts(counts, copies)
	return counts
}

// addCopyCounts adds to counts (per segment) the terms the copies' pairs put there.
func addCopyCounts(counts []int, copies []CopyClaim) {
	for _, c := range copies {
		counts[c.From] += len(c.FromWords)
		counts[c.To] += len(c.ToWords)
	}
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
// Coeff_t·eq(Word_t, rho), with the copies' pairs. When prepare has computed every
// touched segment's weight at the points rho belongs to, it is read from there.
func (rw *relationWeights) weight(seg int, rho []field.E) field.E {
	if rw.at != nil && rw.at[seg].rho != nil && sameSlice(rw.at[seg].rho, rho) {
		return rw.at[seg].w
	}
	points := make([][]field.E, len(rw.counts))
	points[seg] = rho
	return rw.weights(points)[seg]
}

// prepare computes every touched segment's weight at points[s] in one pass over the
// relations (weights), for weight to read.
func (rw *relationWeights) prepare(points [][]field.E) {
	w := rw.weights(points)
	rw.at = make([]preparedWeight, len(rw.counts))
	for s, p := range points {
		if p != nil {
			rw.at[s] = preparedWeight{rho: p, w: w[s]}
		}
	}
}

// preparedWeight is one segment's weight at rho, as prepare computed it (rho nil:
// not computed).
type preparedWeight struct {
	rho []field.E
	w   field.E
}

// sameSlice reports whether a and b are the same slice (one array, one length).
func sameSlice(a, b []field.E) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// weights is, for every segment s with a point (points[s] != nil), its batched weight
// at points[s], summed in one pass over the relations. Each eq(word, ρ) is read from
// two tables over ρ's low and high halves; a relation's consecutive terms on one
// segment and one high half (an E-valued term's three K words) are summed against the
// low table and weighed by the high one once, and a relation's sum on each segment by
// eq(τ, r) once. Segments without a point are skipped.
func (rw *relationWeights) weights(points [][]field.E) []field.E {
	type table struct {
		lo       int
		mask     int
		eqLo     []field.E
		eqHi     []field.E
		sum      field.E // the current relation's sum on this segment
		touched  bool
		included bool
	}
	tabs := make([]table, len(points))
	for s, rho := range points {
		if rho == nil {
			continue
		}
		lo := len(rho) / 2
		t := &tabs[s]
		t.lo, t.mask, t.included = lo, 1<<lo-1, true
		t.eqLo, t.eqHi = make([]field.E, 1<<lo), make([]field.E, 1<<(len(rho)-lo))
		field.EqTable(t.eqLo, rho[:lo])
		field.EqTable(t.eqHi, rho[lo:])
	}
	total := make([]field.E, len(points))
	var touched []int
	for r, rel := range rw.rels {
		// run is the sum of the current run of terms on segment seg and high half hi.
		var run field.E
		seg, hi := -1, -1
		flush := func() {
			if seg < 0 {
				return
			}
			t := &tabs[seg]
			t.sum = t.sum.Add(run.Mul(t.eqHi[hi]))
			if !t.touched {
				t.touched = true
				touched = append(touched, seg)
			}
		}
		for _, tm := range rel.Terms {
			t := &tabs[tm.Segment]
			if !t.included {
				continue
			}
			if h := tm.Word >> t.lo; tm.Segment != seg || h != hi {
				flush()
				seg, hi, run = tm.Segment, h, field.E{}
			}
			e := t.eqLo[tm.Word&t.mask]
			if tm.Coeff != field.One {
				e = tm.Coeff.Mul(e)
			}
			run = run.Add(e)
		}
		flush()
		for _, s := range touched {
			t := &tabs[s]
			if !t.sum.IsZero() {
				total[s] = total[s].Add(rw.eq[r].Mul(t.sum))
			}
			t.sum, t.touched = field.E{}, false
		}
		touched = touched[:0]
	}
	at := func(s, w int) field.E {
		t := &tabs[s]
		return t.eqLo[w&t.mask].Mul(t.eqHi[w>>t.lo])
	}
	r := len(rw.rels)
	for _, c := range rw.copies {
		for i := range c.FromWords {
			if tabs[c.From].included {
				total[c.From] = total[c.From].Add(rw.eq[r].Mul(at(c.From, c.FromWords[i])))
			}
			if tabs[c.To].included {
				total[c.To] = total[c.To].Add(rw.eq[r].Mul(at(c.To, c.ToWords[i])))
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

package flows

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/open"
	"github.com/leanpipe/leanpipe/transcript"
)

// Linear claims on segment columns (docs/recursion.md §4.4): a claim that a sparse,
// public E-linear form of a segment's packed K words has a public value,
// Σ_t coeff_t·col(word_t) = Value. The verifier builds the claims from the statement,
// so they are fixed before any of their challenges. After the last ring switch one
// challenge γ batches every claim, Σ_c γ^c·(form_c − Value_c) = 0, and one degree-2
// sumcheck over the segments' column variables (lowest first, round polynomials as
// (c0, c2); see below for segments of different sizes) reduces each segment's batch to
// its column at a random point ρ: the prover sends col(ρ), the verifier checks the last
// round against Σ W(ρ)·col(ρ), W a batch's weight's multilinear extension (one product
// per term, through split eq tables), and each col(ρ) joins the stacked opening as a
// point claim. A false claim passes with probability at most (claims + 2·variables)/|E|.

// LinearTerm is one word of a linear claim: coefficient Coeff on the packed word at
// index Word of the segment's column (word-in-block bits low, then the slot bits).
type LinearTerm struct {
	Word  int
	Coeff field.E
}

// LinearClaim is Σ_t Coeff_t·col(Word_t) = Value on segment Segment's column. A word
// may appear in several terms (their coefficients add).
type LinearClaim struct {
	Segment int
	Terms   []LinearTerm
	Value   field.E
	// rel, when set (a verifier's relation claim), holds the claim's weight at a
	// point of its segment in place of Terms, which stays nil; weightTerms is the
	// terms' count that weight stands for (the trace's).
	rel         *relationWeights
	weightTerms int
}

func checkLinear(claims []LinearClaim, places []open.Placement) error {
	for i, c := range claims {
		if c.Segment < 0 || c.Segment >= len(places) {
			return fmt.Errorf("%w: linear claim %d on segment %d of %d", ErrInput, i, c.Segment, len(places))
		}
		words := 1 << places[c.Segment].Variables
		for j, t := range c.Terms {
			if t.Word < 0 || t.Word >= words {
				return fmt.Errorf("%w: linear claim %d, term %d: word %d of a %d-word column", ErrInput, i, j, t.Word, words)
			}
		}
	}
	return nil
}

// linearBatch is one segment's claims batched: γ^c is the claim's power.
type linearBatch struct {
	segment int
	claims  []int // indices into the claims, in order
}

// linearBatches groups the claims by segment, segments in increasing order.
func linearBatches(claims []LinearClaim, segments int) []linearBatch {
	var out []linearBatch
	for s := range segments {
		b := linearBatch{segment: s}
		for i, c := range claims {
			if c.Segment == s {
				b.claims = append(b.claims, i)
			}
		}
		if len(b.claims) > 0 {
			out = append(out, b)
		}
	}
	return out
}

func claimPowers(n int, gamma field.E) []field.E {
	p := make([]field.E, n)
	field.Powers(p, gamma)
	return p
}

// The segments' batches share one sumcheck of V rounds, V the most variables of any:
// a batch over v variables joins at round V − v (its claimed sum added to the running
// claim then), so its variables are bound by the last v challenges, lowest first. After
// the rounds the prover sends each batch's column at its point, in segment order, and
// the verifier checks the last round against Σ_b W_b(ρ_b)·col_b(ρ_b).

// proveLinear runs the prover side and returns the point claims (one per segment with
// claims, in increasing segment order) for the stacked opening. A batch's weight is
// sparse (its terms' words), so the prover keeps it sparse: the round sums read the
// column only where the weight is nonzero, and only the column is folded in full (on
// the workers, from K to E in its first round).
func proveLinear(tr *transcript.Prover, claims []LinearClaim, places []open.Placement, stackLog int, stack []field.K, workers par.Workers) ([]open.PointClaim, error) {
	return proveLinearIn(tr, claims, places, stackLog, stack, workers, nil)
}

// proveLinearIn is proveLinear folding the columns into spare's memory where it fits
// (contents unspecified; every fold writes its whole table before any read), new
// memory otherwise.
func proveLinearIn(tr *transcript.Prover, claims []LinearClaim, places []open.Placement, stackLog int, stack []field.K, workers par.Workers, spare [][]field.E) ([]open.PointClaim, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	if err := checkLinear(claims, places); err != nil {
		return nil, err
	}
	pow := claimPowers(len(claims), tr.Sample())
	batches := linearBatches(claims, len(places))
	cols := make([]foldingColumn, len(batches))
	ws := make([]sparseWeight, len(batches))
	rounds := 0
	for k, b := range batches {
		p := places[b.segment]
		cols[k].k = stack[p.Offset : p.Offset+1<<p.Variables]
		ws[k] = newSparseWeight(claims, b.claims, pow, 1<<p.Variables, workers)
		cols[k].levels = foldLevels(len(ws[k].idx), p.Variables)
		rounds = max(rounds, p.Variables)
	}
	// A column of 2^v words folds into tables of 2^(v-l) and 2^(v-l-1) entries (the
	// two it alternates between, l its levels), largest first so that spare's
	// pieces serve the largest.
	carve := func(n int) []field.E {
		for i, sp := range spare {
			if len(sp) >= n {
				spare[i] = sp[n:]
				return sp[:n:n]
			}
		}
		return buffers.Make[field.E](n)
	}
	for _, k := range largestColumns(batches, places) {
		h := max(1<<places[batches[k].segment].Variables>>cols[k].levels, 1)
		cols[k].first, cols[k].second = carve(h), carve(max(h/2, 1))
	}
	rho := make([]field.E, rounds)
	for r := range rho {
		var q0, q1, qInf field.E
		for k, b := range batches {
			if r < rounds-places[b.segment].Variables {
				continue
			}
			a0, a1, ai := ws[k].roundSums(&cols[k], workers)
			q0, q1, qInf = q0.Add(a0), q1.Add(a1), qInf.Add(ai)
		}
		tr.SendRoundPoly([]field.E{q0, q0.Add(q1).Add(qInf), qInf}, false)
		rho[r] = tr.Sample()
		for k, b := range batches {
			if r < rounds-places[b.segment].Variables {
				continue
			}
			cols[k].fold(rho[r], workers)
			ws[k].fold(rho[r], workers)
		}
		if err := workers.Err(); err != nil {
			return nil, err
		}
	}
	var out []open.PointClaim
	for k, b := range batches {
		p := places[b.segment]
		v := cols[k].at(0)
		tr.Send(v)
		out = append(out, open.PointClaim{Point: stackPoint(p, stackLog, rho[rounds-p.Variables:]), Value: v})
	}
	return out, nil
}

// foldingColumn is a segment's column as the linear sumcheck folds it: its K words
// until its first levels folds, then E tables, alternating between two buffers (a
// fold reads e and writes next, so the workers never overlap, then the two swap).
// While the column is still K, the challenges drawn so far wait in pend, and the
// round sums fold the few words they read on the spot (at); the levels-th fold then
// folds all levels at once, a cache-sized chunk of words at a time, so that the
// first tables (the largest, twice and once the column's bytes) never go through
// memory. Folded one level at a time, the linear claims' columns over a 2→1 merge's
// 2^23-word stack read and wrote about 440 MB (counted, not measured).
type foldingColumn struct {
	k       []field.K
	e, next []field.E // the current table (nil while k is) and the other buffer
	// first and second are the tables the first fold writes and the one after it
	// (2^(v-levels) and 2^(v-levels-1) entries).
	first, second []field.E
	levels        int       // folds the K words take at once (0 counts as 1: none pending)
	pend          []field.E // the challenges of the folds pending
}

// maxFoldLevels is the most folds a column keeps pending: the round sums then fold
// up to 2^(maxFoldLevels-1) words per value they read.
const maxFoldLevels = 3

// foldLevels is how many folds a column of 2^v words keeps pending under a weight of
// nnz nonzero entries. Round r's sums fold 2^r words on the spot for each of about
// 2·nnz values (a product a word, estimated at 8 ns), where a pass over the column
// saved costs an estimated 4 ns a word: three levels while nnz ≤ 2^v/32, two while
// nnz ≤ 2^v/8, else one (a fold each round). The estimates set only the speed, never
// the bytes.
func foldLevels(nnz, v int) int {
	levels := 1
	switch {
	case nnz<<5 <= 1<<v:
		levels = 3
	case nnz<<3 <= 1<<v:
		levels = 2
	}
	return max(1, min(levels, maxFoldLevels, v))
}

// largestColumns lists the batches by decreasing column size.
func largestColumns(batches []linearBatch, places []open.Placement) []int {
	order := make([]int, len(batches))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return places[batches[b].segment].Variables - places[batches[a].segment].Variables
	})
	return order
}

func (c *foldingColumn) len() int {
	if c.e == nil {
		return len(c.k) >> len(c.pend)
	}
	return len(c.e)
}

// at is the column's entry i at the folds so far.
func (c *foldingColumn) at(i int) field.E {
	if c.e != nil {
		return c.e[i]
	}
	m := len(c.pend)
	if m == 0 {
		return field.FromK(c.k[i])
	}
	// The 2^m words of entry i, folded a level at a time as FoldLowK and FoldLow do.
	var buf [1 << (maxFoldLevels - 1)]field.E
	w := c.k[i<<m : (i+1)<<m]
	for j := range len(w) / 2 {
		buf[j] = c.pend[0].MulK(w[2*j].Add(w[2*j+1])).Add(field.FromK(w[2*j]))
	}
	for l, n := 1, len(w)/2; l < m; l, n = l+1, n/2 {
		for j := range n / 2 {
			buf[j] = c.pend[l].Mul(buf[2*j].Add(buf[2*j+1])).Add(buf[2*j])
		}
	}
	return buf[0]
}

// foldChunk is the fewest entries a worker folds.
const foldChunk = 1 << 12

// fold fixes the column's lowest variable to r.
func (c *foldingColumn) fold(r field.E, workers par.Workers) {
	if c.e == nil {
		c.pend = append(c.pend, r)
		if len(c.pend) < max(c.levels, 1) && len(c.k)>>len(c.pend) > 1 {
			return
		}
		// The pending folds, at once: tables not given (or short) are made here.
		h := len(c.k) >> len(c.pend)
		if len(c.first) < h {
			c.first = buffers.Make[field.E](h)
		}
		if len(c.second) < max(h/2, 1) {
			c.second = make([]field.E, max(h/2, 1))
		}
		dst := c.first[:h]
		foldLevelsK(dst, c.k, c.pend, workers)
		c.e, c.next, c.k, c.pend = dst, c.second, nil, nil
		return
	}
	h := c.len() / 2
	src, dst := c.e, c.next[:h]
	workers.Range(h, func(lo, hi int) { field.FoldLow(dst[lo:hi], src[2*lo:2*hi], r) }, par.MinChunk(foldChunk))
	c.e, c.next = dst, src
}

// foldLevelsK writes into dst (len(src) >> len(rs) entries) src folded at rs[0], then
// rs[1], and so on: FoldLowK then FoldLow, a chunk of foldChunk words at a time
// through two scratch tables a worker.
func foldLevelsK(dst []field.E, src []field.K, rs []field.E, workers par.Workers) {
	if len(rs) == 1 {
		workers.Range(len(dst), func(lo, hi int) { field.FoldLowK(dst[lo:hi], src[2*lo:2*hi], rs[0]) }, par.MinChunk(foldChunk))
		return
	}
	chunk := max(foldChunk, 1<<len(rs)) >> len(rs) // dst entries a chunk
	chunks := (len(dst) + chunk - 1) / chunk
	workers.Range(chunks, func(lo, hi int) {
		// Level l writes scratch[l%2] (level 0 the largest table), the last dst.
		scratch := [2][]field.E{make([]field.E, chunk<<(len(rs)-1)), make([]field.E, chunk<<(len(rs)-2))}
		for ch := lo; ch < hi; ch++ {
			d := dst[ch*chunk : min((ch+1)*chunk, len(dst))]
			n := len(d) << (len(rs) - 1)
			cur := scratch[0][:n]
			field.FoldLowK(cur, src[ch*chunk<<len(rs):ch*chunk<<len(rs)+2*n], rs[0])
			for l := 1; l < len(rs); l++ {
				n /= 2
				next := scratch[l%2][:n]
				if l == len(rs)-1 {
					next = d
				}
				field.FoldLow(next, cur, rs[l])
				cur = next
			}
		}
	}, par.MinChunk(max(1, foldChunk/chunk)))
}

// sparseWeight is a batch's weight Σ_c γ^c Σ_t coeff_t·eq(word_t, ·) as its nonzero
// entries, by increasing index.
type sparseWeight struct {
	idx []int
	w   []field.E
}

func newSparseWeight(claims []LinearClaim, which []int, pow []field.E, words int, workers par.Workers) sparseWeight {
	n := 0
	for _, i := range which {
		n += len(claims[i].Terms)
	}
	if words > 0 && n >= words/denseTerms {
		return denseSparseWeight(claims, which, pow, words)
	}
	// Every term's weight (side by side: one product each), sorted by word and
	// summed per word (a sort of one list rather than a map's insertions: addition
	// is exact, so the order of the sums does not matter).
	es := make([]sparseEntry, n)
	top := 0
	at := 0
	for _, i := range which {
		ts, p, dst := claims[i].Terms, pow[i], es[at:at+len(claims[i].Terms)]
		workers.Range(len(ts), func(lo, hi int) {
			for j := lo; j < hi; j++ {
				dst[j] = sparseEntry{ts[j].Word, scaleBy(p, ts[j].Coeff)}
			}
		}, par.MinChunk(sparseChunk))
		for _, t := range ts {
			top = max(top, t.Word)
		}
		at += len(ts)
	}
	es = sortEntries(es, top, workers)
	var sw sparseWeight
	sw.idx, sw.w = make([]int, 0, len(es)), make([]field.E, 0, len(es))
	for j := 0; j < len(es); {
		word, w := es[j].word, es[j].w
		for j++; j < len(es) && es[j].word == word; j++ {
			w = w.Add(es[j].w)
		}
		sw.idx, sw.w = append(sw.idx, word), append(sw.w, w)
	}
	return sw
}

// denseTerms: a batch with at least a column's words / denseTerms terms sums them in
// a table as long as the column (denseSparseWeight) rather than sorting them: the
// products segment of a 2→1 merge (2^20 words, about 79K distinct among many more
// terms) took 13.8 ms to sort at two workers.
const denseTerms = 4

// denseSparseWeight is newSparseWeight summing the terms at their words in a table of
// the column's length, with a bitmap of the words any term names: the same entries
// (every named word, in increasing order, its weights summed) without a sort.
func denseSparseWeight(claims []LinearClaim, which []int, pow []field.E, words int) sparseWeight {
	acc := make([]field.E, words)
	named := make([]uint64, (words+63)/64)
	for _, i := range which {
		p := pow[i]
		for _, t := range claims[i].Terms {
			acc[t.Word] = acc[t.Word].Add(scaleBy(p, t.Coeff))
			named[t.Word>>6] |= 1 << (t.Word & 63)
		}
	}
	count := 0
	for _, m := range named {
		count += bits.OnesCount64(m)
	}
	sw := sparseWeight{idx: make([]int, 0, count), w: make([]field.E, 0, count)}
	for b, m := range named {
		for ; m != 0; m &= m - 1 {
			word := b<<6 | bits.TrailingZeros64(m)
			sw.idx, sw.w = append(sw.idx, word), append(sw.w, acc[word])
		}
	}
	return sw
}

// sparseEntry is one term's word and weight.
type sparseEntry struct {
	word int
	w    field.E
}

// sparseChunk is the fewest entries a worker takes in the sparse weight's passes.
const sparseChunk = 1 << 14

// radixBits is the width of a digit of sortEntries' radix sort: two passes for words
// below 2^22, with counts that stay in the first-level cache.
const radixBits = 11

// sortEntries sorts es by word (each at most top), least significant digit first, a
// stable counting sort a pass (the result may be a new slice), each pass over chunks
// side by side: every chunk counts its digits, then writes its entries from offsets
// that put chunk c's entries of a digit after those of the chunks before it, so the
// order is one worker's whatever the workers. A comparison sort of a 2→1 merge's
// products segment (191K terms) took 13 ms at two workers.
func sortEntries(es []sparseEntry, top int, workers par.Workers) []sparseEntry {
	if len(es) < 64 {
		// A short list: not worth the digit counts' passes.
		slices.SortFunc(es, func(a, b sparseEntry) int { return a.word - b.word })
		return es
	}
	const digits = 1 << radixBits
	k := max(1, min(workers.N(), len(es)/sparseChunk))
	bounds := make([]int, k+1)
	for c := range bounds {
		bounds[c] = c * len(es) / k
	}
	counts := make([][digits]int, k)
	tmp := make([]sparseEntry, len(es))
	for shift := 0; shift < bits.Len(uint(top)); shift += radixBits {
		src, dst := es, tmp
		workers.Range(k, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				cnt := &counts[c]
				clear(cnt[:])
				for _, e := range src[bounds[c]:bounds[c+1]] {
					cnt[e.word>>shift&(digits-1)]++
				}
			}
		}, par.PerWorker(1))
		sum := 0
		for d := range digits {
			for c := range counts {
				counts[c][d], sum = sum, sum+counts[c][d]
			}
		}
		workers.Range(k, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				at := &counts[c]
				for _, e := range src[bounds[c]:bounds[c+1]] {
					d := e.word >> shift & (digits - 1)
					dst[at[d]] = e
					at[d]++
				}
			}
		}, par.PerWorker(1))
		es, tmp = tmp, es
	}
	return es
}

// cuts are k+1 positions of the nonzero entries, the first 0 and the last their
// count, none between the two entries of one pair: the chunks of a parallel pass.
func (sw *sparseWeight) cuts(k int) []int {
	out := make([]int, k+1)
	for c := 1; c < k; c++ {
		j := max(out[c-1], c*len(sw.idx)/k)
		for j > 0 && j < len(sw.idx) && sw.idx[j]>>1 == sw.idx[j-1]>>1 {
			j++
		}
		out[c] = j
	}
	out[k] = len(sw.idx)
	return out
}

// chunks is how many chunks a pass over the weight takes on the workers.
func (sw *sparseWeight) chunks(workers par.Workers) int {
	return max(1, min(workers.N(), len(sw.idx)/sparseChunk))
}

// pairs calls fn for each pair (2p, 2p+1) holding a nonzero entry among entries
// [lo, hi), with both entries.
func (sw *sparseWeight) pairs(lo, hi int, fn func(p int, w0, w1 field.E)) {
	for j := lo; j < hi; {
		p := sw.idx[j] >> 1
		var w0, w1 field.E
		for ; j < hi && sw.idx[j]>>1 == p; j++ {
			if sw.idx[j]&1 == 0 {
				w0 = sw.w[j]
			} else {
				w1 = sw.w[j]
			}
		}
		fn(p, w0, w1)
	}
}

// roundSums is field.SumcheckRoundLow(col, weight) over the weight's nonzero pairs,
// chunks of them side by side.
func (sw *sparseWeight) roundSums(c *foldingColumn, workers par.Workers) (q0, q1, qInf field.E) {
	k := sw.chunks(workers)
	cut := sw.cuts(k)
	parts := make([][3]field.E, k)
	workers.Range(k, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			var s [3]field.E
			sw.pairs(cut[ch], cut[ch+1], func(p int, w0, w1 field.E) {
				f0, f1 := c.at(2*p), c.at(2*p+1)
				s[0] = s[0].Add(f0.Mul(w0))
				s[1] = s[1].Add(f1.Mul(w1))
				s[2] = s[2].Add(f0.Add(f1).Mul(w0.Add(w1)))
			})
			parts[ch] = s
		}
	}, par.PerWorker(1))
	for _, s := range parts {
		q0, q1, qInf = q0.Add(s[0]), q1.Add(s[1]), qInf.Add(s[2])
	}
	return q0, q1, qInf
}

// fold fixes the weight's lowest variable to r, chunks of pairs side by side.
func (sw *sparseWeight) fold(r field.E, workers par.Workers) {
	k := sw.chunks(workers)
	cut := sw.cuts(k)
	idx, w := make([][]int, k), make([][]field.E, k)
	workers.Range(k, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			sw.pairs(cut[ch], cut[ch+1], func(p int, w0, w1 field.E) {
				idx[ch] = append(idx[ch], p)
				w[ch] = append(w[ch], w0.Add(r.Mul(w0.Add(w1))))
			})
		}
	}, par.PerWorker(1))
	if k == 1 {
		sw.idx, sw.w = idx[0], w[0]
		return
	}
	sw.idx, sw.w = slices.Concat(idx...), slices.Concat(w...)
}

// verifyLinear is proveLinear's verifier twin.
func verifyLinear(tr *transcript.Verifier, claims []LinearClaim, places []open.Placement, stackLog int) ([]open.PointClaim, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	if err := checkLinear(claims, places); err != nil {
		return nil, err
	}
	pow := claimPowers(len(claims), tr.Sample())
	batches := linearBatches(claims, len(places))
	rounds := 0
	sums := make([]field.E, len(batches))
	for k, b := range batches {
		rounds = max(rounds, places[b.segment].Variables)
		for _, i := range b.claims {
			sums[k] = sums[k].Add(pow[i].Mul(claims[i].Value))
		}
	}
	var running field.E
	rho := make([]field.E, rounds)
	for r := range rho {
		for k, b := range batches {
			if r == rounds-places[b.segment].Variables {
				running = running.Add(sums[k])
			}
		}
		q, err := tr.RoundPoly(3, running, nil)
		if err != nil {
			return nil, fmt.Errorf("flows: linear claims, round %d: %w", r, err)
		}
		rho[r] = tr.Sample()
		running = field.PolyEval(q, rho[r])
	}
	// The relation claims' weights are summed for all their segments at once.
	points := make([][]field.E, len(places))
	for _, b := range batches {
		points[b.segment] = rho[rounds-places[b.segment].Variables:]
	}
	for _, c := range claims {
		if c.rel != nil && c.rel.at == nil {
			c.rel.prepare(points)
		}
	}
	var out []open.PointClaim
	var want field.E
	for _, b := range batches {
		p := places[b.segment]
		v, err := tr.Receive()
		if err != nil {
			return nil, fmt.Errorf("flows: linear claims on segment %d: %w", b.segment, err)
		}
		pt := points[b.segment]
		want = want.Add(linearWeightAt(claims, b.claims, pow, pt).Mul(v))
		out = append(out, open.PointClaim{Point: stackPoint(p, stackLog, pt), Value: v})
	}
	if want != running {
		return nil, fmt.Errorf("%w: the linear claims do not hold", ErrInput)
	}
	return out, nil
}

// linearWeightAt is W(ρ) = Σ_c γ^c Σ_t coeff_t·eq(word_t, ρ), each eq read from two
// tables over ρ's low and high halves.
func linearWeightAt(claims []LinearClaim, which []int, pow []field.E, rho []field.E) field.E {
	lo := len(rho) / 2
	eqLo, eqHi := make([]field.E, 1<<lo), make([]field.E, 1<<(len(rho)-lo))
	field.EqTable(eqLo, rho[:lo])
	field.EqTable(eqHi, rho[lo:])
	mask := 1<<lo - 1
	var total field.E
	for _, i := range which {
		if rw := claims[i].rel; rw != nil {
			total = total.Add(pow[i].Mul(rw.weight(claims[i].Segment, rho)))
			continue
		}
		// Terms on one high half of the index share its eq factor: a run of them is
		// summed against the low table, then weighed once (terms of coefficient one
		// take no product).
		var sum, run field.E
		hi := -1
		for _, t := range claims[i].Terms {
			if h := t.Word >> lo; h != hi {
				if hi >= 0 {
					sum = sum.Add(run.Mul(eqHi[hi]))
				}
				hi, run = h, field.E{}
			}
			e := eqLo[t.Word&mask]
			if t.Coeff != field.One {
				e = t.Coeff.Mul(e)
			}
			run = run.Add(e)
		}
		if hi >= 0 {
			sum = sum.Add(run.Mul(eqHi[hi]))
		}
		total = total.Add(pow[i].Mul(sum))
	}
	return total
}

// LinearTermsE returns the terms of coeff·x for an E value x held in three consecutive
// words from word (its coefficients c0, c1, c2 on the basis 1, Y, Y²): coeff·x =
// Σ_k (coeff·Y^k)·c_k.
func LinearTermsE(word int, coeff field.E) [3]LinearTerm {
	y := [3]field.E{field.One, {C1: 1}, {C2: 1}}
	return [3]LinearTerm{{word, coeff}, {word + 1, coeff.Mul(y[1])}, {word + 2, coeff.Mul(y[2])}}
}

package open

import (
	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/ntt"
	"github.com/leanpipe/leanpipe/par"
	"github.com/leanpipe/leanpipe/stages/commit"
)

// inverseRoots returns 1/roots[k] (0 for a zero root) for k < n.
func inverseRoots(n int) []field.K {
	roots := ntt.SubspaceRootsK(n)
	inv := make([]field.K, n)
	for k := range inv {
		if roots[k] != 0 {
			inv[k] = roots[k].Inv()
		}
	}
	return inv
}

// basisFactors writes v_k = W_k(q) (the normalised subspace polynomials at the
// domain point q, k < len(dst)): the novel-basis polynomial X_x is Π_{k ∈ x} W_k, so
// the codeword at position q is Σ_x msg[x]·Π_{bit k of x set} v_k.
func basisFactors(dst []field.K, q uint64, roots, inv []field.K) {
	w := field.K(q)
	for k := range dst {
		dst[k] = w.Mul(inv[k])
		w = w.Square().Add(roots[k].Mul(w))
	}
}

// InducedWeight is the batched novel-basis column weight of a level's queries at
// point (spec annex B, the column-weight lemma): Σ_i w_i Π_k (1 + p_k(1 + W_k(q_i))).
// It is the multilinear extension of InducedTable's table.
func InducedWeight(messageLog int, queries []int, weights []field.E, point []field.E) field.E {
	if len(point) != messageLog || len(queries) != len(weights) {
		panic("open: InducedWeight dimensions")
	}
	roots := ntt.SubspaceRootsK(messageLog)
	inv := inverseRoots(messageLog)
	v := make([]field.K, messageLog)
	total := field.Zero
	for i, q := range queries {
		basisFactors(v, uint64(q), roots, inv)
		prod := weights[i]
		for k, p := range point {
			prod = prod.Mul(field.One.Add(p.MulK(1 ^ v[k])))
		}
		total = total.Add(prod)
	}
	return total
}

// InducedTable writes into dst (length 2^messageLog) the weight table
// dst[x] = Σ_i w_i Π_{bit k of x set} W_k(q_i), whose multilinear extension is
// InducedWeight. The work is split over workers by table range; the result does not
// depend on workers.
func InducedTable(dst []field.E, messageLog int, queries []int, weights []field.E, workers par.Workers) {
	new(induceScratch).table(dst, messageLog, queries, weights, workers)
}

// induceScratch holds InducedTable's working tables for reuse across proofs.
type induceScratch struct {
	plans    commit.PlanSource
	low      []field.K
	high     []field.E
	v        []field.K
	codeword []field.E
}

// levelTable writes a level's query weight table (InducedTable) for queries into
// its codeword of 2^(messageLog+rate) positions. With many queries against a
// short codeword it runs the encoder's transpose on the sparse vector of weights
// (about messageLog·2^(messageLog+rate) products), otherwise the per-query tensors
// (about queries·2^messageLog products); both run on the workers and give the same
// table.
func (s *induceScratch) levelTable(dst []field.E, messageLog, rate int, queries []int, weights []field.E, workers par.Workers) {
	if len(queries) > messageLog<<rate {
		s.codeword = buffers.Grow(s.codeword, 1<<(messageLog+rate))
		s.plans.Plan(messageLog+rate).InducedTable(dst, queries, weights, rate, s.codeword, workers)
		return
	}
	s.table(dst, messageLog, queries, weights, workers)
}

func (s *induceScratch) table(dst []field.E, messageLog int, queries []int, weights []field.E, workers par.Workers) {
	n := 1 << messageLog
	if len(dst) != n || len(queries) != len(weights) {
		panic("open: InducedTable dimensions")
	}
	roots := ntt.SubspaceRootsK(messageLog)
	inv := inverseRoots(messageLog)
	// Split x = hi·2^h + lo: the tensor of query i is L_i[lo]·H_i[hi], so each
	// worker owns a range of hi and builds only the low tensors it needs once.
	h := messageLog / 2
	lo := 1 << h
	hiN := n >> h
	if cap(s.low) < len(queries)*lo {
		s.low = make([]field.K, len(queries)*lo)
	}
	if cap(s.v) < messageLog {
		s.v = make([]field.K, messageLog)
	}
	low, v := s.low[:len(queries)*lo], s.v[:messageLog]
	s.high = buffers.Grow(s.high, len(queries)*hiN)
	high := s.high
	for i, q := range queries {
		basisFactors(v, uint64(q), roots, inv)
		kTensor(low[i*lo:(i+1)*lo], v[:h])
		ht := high[i*hiN : (i+1)*hiN]
		ht[0] = weights[i]
		m := 1
		for _, f := range v[h:] {
			for j := 0; j < m; j++ {
				ht[j+m] = ht[j].MulK(f)
			}
			m <<= 1
		}
	}
	workers.Range(hiN, func(a, b int) {
		for x := a; x < b; x++ {
			row := dst[x*lo : (x+1)*lo]
			clear(row)
			for i := range queries {
				c := high[i*hiN+x]
				if c.IsZero() {
					continue
				}
				field.AddScaledKE(row, low[i*lo:(i+1)*lo], c)
			}
		}
	})
}

// kTensor writes dst[x] = Π_{bit k of x set} v[k].
func kTensor(dst []field.K, v []field.K) {
	dst[0] = 1
	m := 1
	for _, f := range v {
		for j := 0; j < m; j++ {
			dst[j+m] = dst[j].Mul(f)
		}
		m <<= 1
	}
}

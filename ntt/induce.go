package ntt

import (
	"fmt"

	"github.com/leanpipe/leanpipe/field"
)

// TransposeE applies the transpose of the forward transform's layers start..LogD−1 to v
// in place (v holds len(v)/2^LogD interleaved lanes, as for ForwardE). The transpose of a
// butterfly (u, v) ← (u + λv, u + (1+λ)v) is (u, v) ← (u + v, λ(u + v) + v), and the
// layers run from the last to layer `start`. It runs on the calling goroutine.
func (p *Plan) TransposeE(v []field.E, start int) {
	lanes := p.lanesOf(len(v), "TransposeE")
	if start < 0 || start > p.logD {
		panic(fmt.Sprintf("ntt: TransposeE: start layer %d with dimension %d", start, p.logD))
	}
	buf, s := eWords(v), 3*lanes
	for layer := p.logD - 1; layer >= start; layer-- {
		half := (1 << (p.logD - layer - 1)) * s
		for b := range 1 << layer {
			// u ← u + v, then v ← v + λ·u: the inverse butterfly with the halves swapped.
			inv(buf[(2*b+1)*half:(2*b+2)*half], buf[2*b*half:(2*b+1)*half], p.twiddle(layer, b))
		}
	}
}

// InducedTable writes the table of a WHIR level's batched query weight over its message
// cube: dst[b] = Σ_i weights[i]·X_b(queries[i]) for b < 2^(LogD − logInvRate), where X_b is
// the novel basis and queries are codeword positions (< 2^LogD). Its multilinear extension
// at a point (low coordinate first) is the verifier's induced weight there, and
// Σ_b dst[b]·m_b = Σ_i weights[i]·c(queries[i]) for the codeword c of message m at this
// rate. It is the transpose of the encoder applied to the sparse vector of weights
// (scratch must hold 2^LogD values; it is overwritten). It runs on the calling goroutine.
func (p *Plan) InducedTable(dst []field.E, queries []int, weights []field.E, logInvRate int, scratch []field.E) {
	if logInvRate < 0 || logInvRate > p.logD {
		panic(fmt.Sprintf("ntt: InducedTable: log inverse rate %d with dimension %d", logInvRate, p.logD))
	}
	n := 1 << (p.logD - logInvRate)
	if len(dst) != n || len(scratch) != 1<<p.logD || len(queries) != len(weights) {
		panic(fmt.Sprintf("ntt: InducedTable: table %d (want %d), scratch %d (want %d), %d queries, %d weights",
			len(dst), n, len(scratch), 1<<p.logD, len(queries), len(weights)))
	}
	clear(scratch)
	for i, q := range queries {
		if q < 0 || q >= len(scratch) {
			panic(fmt.Sprintf("ntt: InducedTable: query %d outside the codeword of 2^%d", q, p.logD))
		}
		scratch[q] = scratch[q].Add(weights[i])
	}
	p.TransposeE(scratch, logInvRate)
	// The transpose of replication sums the replicas.
	copy(dst, scratch[:n])
	for rep := 1; rep < 1<<logInvRate; rep++ {
		for b, x := range scratch[rep*n : (rep+1)*n] {
			dst[b] = dst[b].Add(x)
		}
	}
}

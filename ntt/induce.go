package ntt

import (
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/par"
)

// TransposeE applies the transpose of the forward transform's layers start..LogD−1 to v
// in place (v holds len(v)/2^LogD interleaved lanes, as for ForwardE). The transpose of a
// butterfly (u, v) ← (u + λv, u + (1+λ)v) is (u, v) ← (u + v, λ(u + v) + v), and the
// layers run from the last to layer `start`. The layers whose butterflies stay inside
// aligned regions of about transposeRegionBytes run region by region (each region
// read once for all of them); the others run one at a time over the whole vector. The
// workers split the regions and each layer; the result does not depend on them.
func (p *Plan) TransposeE(v []field.E, start int, workers par.Workers) {
	lanes := p.lanesOf(len(v), "TransposeE")
	if start < 0 || start > p.logD {
		panic(fmt.Sprintf("ntt: TransposeE: start layer %d with dimension %d", start, p.logD))
	}
	buf, s := eWords(v), 3*lanes // s: the words of one row (a point's lanes)
	// Layer l pairs rows 2^(LogD−l−1) apart: the deepest layers, down to
	// LogD − deep, pair rows inside aligned regions of 2^deep rows.
	deep := min(p.logD-start, max(0, bits.Len(uint(transposeRegionBytes/(8*s)))-1))
	if deep > 0 {
		regionWords := s << deep
		workers.Range(len(buf)/regionWords, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				for layer := p.logD - 1; layer >= p.logD-deep; layer-- {
					half := s << (p.logD - layer - 1)
					blocks := regionWords / (2 * half)
					for k := range blocks {
						o := r*regionWords + 2*k*half
						inv(buf[o+half:o+2*half], buf[o:o+half], p.twiddle(layer, r*blocks+k))
					}
				}
			}
		})
	}
	for layer := p.logD - deep - 1; layer >= start; layer-- {
		half := s << (p.logD - layer - 1)
		// Each block's halves in pieces of at most transposePieceRows rows.
		piece := s << min(p.logD-layer-1, transposePieceLog)
		pieces := half / piece
		workers.Range((1<<layer)*pieces, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				b, o := i/pieces, (i%pieces)*piece
				u := 2*b*half + o
				inv(buf[u+half:u+half+piece], buf[u:u+piece], p.twiddle(layer, b))
			}
		})
	}
}

// transposeRegionBytes bounds the regions TransposeE finishes its deep layers in
// (an L2-sized block); transposePieceLog is log2 of the rows of one piece of a
// wider layer's work.
const (
	transposeRegionBytes = 256 << 10
	transposePieceLog    = 12
)

// InducedTable writes the table of a WHIR level's batched query weight over its message
// cube: dst[b] = Σ_i weights[i]·X_b(queries[i]) for b < 2^(LogD − logInvRate), where X_b is
// the novel basis and queries are codeword positions (< 2^LogD). Its multilinear extension
// at a point (low coordinate first) is the verifier's induced weight there, and
// Σ_b dst[b]·m_b = Σ_i weights[i]·c(queries[i]) for the codeword c of message m at this
// rate. It is the transpose of the encoder applied to the sparse vector of weights
// (scratch must hold 2^LogD values; it is overwritten), on the workers.
func (p *Plan) InducedTable(dst []field.E, queries []int, weights []field.E, logInvRate int, scratch []field.E, workers par.Workers) {
	if logInvRate < 0 || logInvRate > p.logD {
		panic(fmt.Sprintf("ntt: InducedTable: log inverse rate %d with dimension %d", logInvRate, p.logD))
	}
	n := 1 << (p.logD - logInvRate)
	if len(dst) != n || len(scratch) != 1<<p.logD || len(queries) != len(weights) {
		panic(fmt.Sprintf("ntt: InducedTable: table %d (want %d), scratch %d (want %d), %d queries, %d weights",
			len(dst), n, len(scratch), 1<<p.logD, len(queries), len(weights)))
	}
	for _, q := range queries {
		if q < 0 || q >= len(scratch) {
			panic(fmt.Sprintf("ntt: InducedTable: query %d outside the codeword of 2^%d", q, p.logD))
		}
	}
	// Clearing the codeword and summing the replicas stream the whole scratch: both
	// run on the workers (on one they were a tenth of the opening's serial time).
	par.Clear(workers, scratch, par.MinChunk(inducePieceValues))
	for i, q := range queries {
		scratch[q] = scratch[q].Add(weights[i])
	}
	p.TransposeE(scratch, logInvRate, workers)
	// The transpose of replication sums the replicas.
	workers.Range(n, func(lo, hi int) {
		out := dst[lo:hi]
		copy(out, scratch[lo:hi])
		for rep := 1; rep < 1<<logInvRate; rep++ {
			field.AddSlice(out, out, scratch[rep*n+lo:rep*n+hi])
		}
	}, par.MinChunk(inducePieceValues))
}

// inducePieceValues is the smallest piece of InducedTable's clear and replica sum
// one worker takes (96 KiB of E values).
const inducePieceValues = 1 << 12

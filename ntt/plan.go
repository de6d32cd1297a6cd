package ntt

import (
	"fmt"
	"sync"

	"github.com/leanpipe/leanpipe/field"
)

// MaxLogD is the largest transform dimension: the domain {0, …, 2^d − 1} and its basis
// x^0..x^{d-1} must stay inside K without reduction.
const MaxLogD = 63

// subspaceRootsK returns r_i = W_i(β_i) for i = 0..logN together with the table
// w[i][k] = Ŵ_i(β_{i+k}) for k < logN − i.
func subspaceTables(logN int) (roots []field.K, hat [][]field.K) {
	if logN < 0 || logN > MaxLogD {
		panic(fmt.Sprintf("ntt: dimension %d outside [0, %d]", logN, MaxLogD))
	}
	roots = make([]field.K, logN+1)
	hat = make([][]field.K, logN)
	// cur[m] = W_i(β_m) for m ≥ i, starting at W_0(β_m) = x^m.
	cur := make([]field.K, logN+1)
	for m := range logN + 1 {
		if m < 64 {
			cur[m] = field.K(1) << uint(m)
		}
	}
	for i := 0; i <= logN; i++ {
		roots[i] = cur[i]
		if i == logN {
			break
		}
		inv := cur[i].Inv()
		row := make([]field.K, logN-i)
		for k := range row {
			row[k] = cur[i+k].Mul(inv)
		}
		hat[i] = row
		ri := cur[i]
		for m := i + 1; m <= logN; m++ {
			w := cur[m]
			cur[m] = w.Mul(w ^ ri)
		}
	}
	return roots, hat
}

// SubspaceRootsK returns the logN+1 normalisation constants r_i = W_i(β_i), i = 0..logN,
// of the novel basis (r_0 = 1). They do not depend on the transform size: the list for a
// larger logN extends the one for a smaller.
func SubspaceRootsK(logN int) []field.K {
	roots, _ := subspaceTables(logN)
	return roots
}

// SubspaceRoots returns [SubspaceRootsK] lifted into E, the form in which the WHIR
// verifier's column weight Π_k (1 + p_k·(1 + W_k(q)/r_k)) uses them.
func SubspaceRoots(logN int) []field.E {
	roots := SubspaceRootsK(logN)
	out := make([]field.E, len(roots))
	for i, r := range roots {
		out[i] = field.FromK(r)
	}
	return out
}

// layerTwiddles holds the twiddles of one layer as two half tables: the twiddle of block
// b is lo[b & (len(lo)−1)] ^ hi[b >> loBits] (the twiddle is F2-linear in b).
type layerTwiddles struct {
	lo, hi []uint64
	loBits uint
}

// Plan holds the shape-dependent constants of a transform of dimension LogD: the
// normalised subspace-polynomial values and the twiddle tables of every layer. A Plan is
// immutable after NewPlan and safe for concurrent use; its size is O(LogD² + 2^{LogD/2})
// words, so callers may cache one per dimension.
type Plan struct {
	logD  int
	roots []field.K
	hat   [][]field.K
	tw    []layerTwiddles

	// scratch recycles the engine's per-worker gather buffers across calls on this plan.
	scratch sync.Pool
	// blockTwiddles recycles the deep phase's per-worker twiddle runs.
	blockTwiddles sync.Pool
}

// NewPlan builds the plan of the transform of dimension logD (2^logD points per lane).
// It panics when logD is outside [0, MaxLogD].
func NewPlan(logD int) *Plan {
	roots, hat := subspaceTables(logD)
	p := &Plan{logD: logD, roots: roots, hat: hat, tw: make([]layerTwiddles, logD)}
	for layer := range logD {
		basis := hat[logD-layer-1][1:] // basis[j] multiplies bit j of the block index
		loBits := (layer + 1) / 2
		p.tw[layer] = layerTwiddles{
			lo:     spanTable(basis[:loBits]),
			hi:     spanTable(basis[loBits:layer]),
			loBits: uint(loBits),
		}
	}
	return p
}

// spanTable returns all 2^len(basis) subset sums, indexed by the subset's bit mask.
func spanTable(basis []field.K) []uint64 {
	t := make([]uint64, 1<<len(basis))
	for j, b := range basis {
		half := 1 << j
		for k := range half {
			t[half+k] = t[k] ^ uint64(b)
		}
	}
	return t
}

// LogD returns the dimension of the transform.
func (p *Plan) LogD() int { return p.logD }

// Twiddle returns the twiddle λ of block `block` (0 ≤ block < 2^layer) at layer `layer`
// (0 ≤ layer < LogD): Σ_j bit_j(block)·Ŵ_{LogD−layer−1}(β_{LogD−layer+j}).
func (p *Plan) Twiddle(layer, block int) field.K {
	return field.K(p.twiddle(layer, block))
}

func (p *Plan) twiddle(layer, block int) uint64 {
	t := &p.tw[layer]
	return t.lo[block&(len(t.lo)-1)] ^ t.hi[block>>t.loBits]
}

// groupTwiddles writes the 2^j − 1 twiddles a radix-2^j group of block `block` at layer
// `layer` needs, breadth first: sub-layer d's 2^d twiddles at dst[2^d − 1 ..].
func (p *Plan) groupTwiddles(dst []uint64, layer, block, j int) {
	for d := range j {
		base := (1 << d) - 1
		for k := range 1 << d {
			dst[base+k] = p.twiddle(layer+d, block<<d|k)
		}
	}
}

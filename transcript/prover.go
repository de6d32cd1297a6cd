package transcript

import (
	"fmt"
	"github.com/leanpipe/leanpipe/par"
	"slices"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
)

// Challenger is what a protocol step needs when it only draws challenges and binds values
// both sides derive; Prover and Verifier implement it, so such a step is written once.
type Challenger interface {
	Observe(x field.E)
	Sample() field.E
	Samples(n int) []field.E
	SampleInto(dst []field.E)
	SampleQueries(blockLen, count int) []int
}

var (
	_ Challenger = (*Prover)(nil)
	_ Challenger = (*Verifier)(nil)
)

// Prover writes a proof: scalars onto the stream (each also observed), grinding nonces, and
// Merkle openings in both raw and wire form.
type Prover struct {
	fs       duplex
	stream   []field.E
	openings []merkle.RawOpening
	phases   []merkle.Phase
}

// NewProver starts a transcript for label and the public statement scalars.
func NewProver(label []byte, statement []field.E) *Prover {
	return &Prover{fs: newDuplex(label, statement), phases: []merkle.Phase{}}
}

// State returns the current chaining value.
func (p *Prover) State() State { return p.fs.cv }

// StreamLen returns the number of scalars sent so far.
func (p *Prover) StreamLen() int { return len(p.stream) }

// Observe binds a value both sides derive (not transmitted).
func (p *Prover) Observe(x field.E) { p.fs.observe(x) }

// ObserveDigest binds a digest both sides hold, as its two scalars (see DigestScalars).
func (p *Prover) ObserveDigest(d blake2s.Digest) {
	for _, x := range DigestScalars(d) {
		p.fs.observe(x)
	}
}

// AbsorbBytes binds a byte string (length frame, then 24-byte chunks).
func (p *Prover) AbsorbBytes(b []byte) { p.fs.absorbBytes(b) }

// Sample squeezes one challenge.
func (p *Prover) Sample() field.E { return p.fs.sample() }

// Samples squeezes n challenges.
func (p *Prover) Samples(n int) []field.E {
	out := make([]field.E, n)
	p.SampleInto(out)
	return out
}

// SampleInto fills dst with challenges, in order.
func (p *Prover) SampleInto(dst []field.E) {
	for i := range dst {
		dst[i] = p.fs.sample()
	}
}

// SampleQueries draws count query positions in [0, blockLen) (a power of two > 1).
func (p *Prover) SampleQueries(blockLen, count int) []int { return p.fs.sampleQueries(blockLen, count) }

// Send transmits x: appends it to the stream and observes it.
func (p *Prover) Send(x field.E) {
	p.fs.observe(x)
	p.stream = append(p.stream, x)
}

// SendMany sends each of xs in order.
func (p *Prover) SendMany(xs []field.E) {
	for _, x := range xs {
		p.Send(x)
	}
}

// SendDigest sends a digest as its two scalars (see DigestScalars).
func (p *Prover) SendDigest(d blake2s.Digest) {
	s := DigestScalars(d)
	p.SendMany(s[:])
}

// SendRoundPoly sends a sumcheck round polynomial given by its coefficients (constant
// first), leaving out the one the running claim fixes: c1 for a plain round, c0 for a
// round whose eq factor was pulled out (eq = true).
func (p *Prover) SendRoundPoly(coeffs []field.E, eq bool) {
	if len(coeffs) < 2 {
		panic("transcript: a round polynomial has at least two coefficients")
	}
	fixed := 1
	if eq {
		fixed = 0
	}
	for i, c := range coeffs {
		if i != fixed {
			p.Send(c)
		}
	}
}

// Grind finds the smallest nonce clearing bits of proof-of-work (bits = 0: nonce 0),
// binds it and puts E(nonce, 0, 0) on the stream. It returns the nonce.
func (p *Prover) Grind(bits int) uint64 { return p.GrindParallel(bits, par.Serial()) }

// GrindParallel is Grind searching on the workers; the nonce (the smallest passing one)
// does not depend on them. When the workers stop before the search ends (see
// par.Workers.Err), the transcript is to be discarded.
func (p *Prover) GrindParallel(bits int, workers par.Workers) uint64 {
	checkBits(bits)
	var n uint64
	if bits > 0 {
		n = grindSearch(p.fs.powBase(), bits, workers)
	}
	x := field.E{C0: field.K(n)}
	p.fs.absorbNonce(x)
	p.stream = append(p.stream, x)
	return n
}

// Open records one opening phase of tree at queries (any order, duplicates allowed): the
// pruned phase (stored rows) for the wire form and one unpruned opening (leaf image) per
// query for the raw form. Nothing is absorbed. It returns the opened leaf images in query
// order, as Verifier.Merkle does (for an unpadded tree, views into the tree's rows).
func (p *Prover) Open(tree *merkle.Tree, queries []int) [][]uint64 {
	for _, q := range queries {
		if q < 0 || q >= tree.Leaves() {
			panic(fmt.Sprintf("transcript: query %d outside [0, %d)", q, tree.Leaves()))
		}
	}
	phase := tree.OpenPhase(queries)
	pos := merkle.SortedUnique(queries)
	d := tree.Depth()
	paths := make([]merkle.Digest, 0, len(pos)*d)
	images := phase.Rows
	if tree.LeafWords() != tree.RowWords() {
		images = make([][]uint64, len(pos))
	}
	for k, r := range pos {
		paths = tree.AppendPath(paths, r)
		if tree.LeafWords() != tree.RowWords() {
			images[k] = tree.Leaf(r)
		}
	}
	rows := make([][]uint64, len(queries))
	for j, q := range queries {
		k, _ := slices.BinarySearch(pos, q)
		p.openings = append(p.openings, merkle.RawOpening{Leaf: images[k], Path: paths[k*d : (k+1)*d : (k+1)*d]})
		rows[j] = images[k]
		if tree.LeafWords() == tree.RowWords() {
			rows[j] = tree.Row(q)
		}
	}
	p.phases = append(p.phases, phase)
	return rows
}

// Proof returns the proof written so far, in both forms (it shares the prover's slices).
func (p *Prover) Proof() *Proof {
	return &Proof{Stream: p.stream, Openings: p.openings, Phases: p.phases}
}

package transcript

import (
	"fmt"
	"slices"

	"github.com/leanpipe/leanpipe/blake2s"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
)

// Verifier replays a proof: it reads the stream, re-derives every challenge and
// authenticates the Merkle openings. A proof with Phases (wire form) is read phase by
// phase; otherwise its raw Openings are read one per query. No method panics on proof
// content.
type Verifier struct {
	fs     duplex
	proof  *Proof
	wire   bool
	offset int // next stream scalar
	next   int // next raw opening or wire phase
	raw    []merkle.RawOpening
}

// NewVerifier starts a transcript over proof for label and the public statement.
func NewVerifier(proof *Proof, label []byte, statement []field.E) *Verifier {
	if proof == nil {
		proof = new(Proof) // an empty proof: every read fails as truncated
	}
	return &Verifier{fs: newDuplex(label, statement), proof: proof, wire: proof.Phases != nil}
}

// State returns the current chaining value.
func (v *Verifier) State() State { return v.fs.cv }

// Trace calls fn with every compression the transcript runs from now on, in order
// (nil stops): what a recursive verifier replays as compression gadgets.
func (v *Verifier) Trace(fn func(Step)) { v.fs.trace = fn }

// Compressions returns the number of BLAKE2s compressions the transcript has run
// so far (label and statement included; Merkle openings are not the transcript's):
// one per absorbed block and squeeze, two per grinding check with bits > 0 (the
// base and the nonce's), besides the nonce's absorb. A recursive verifier pays
// each as one compression gadget.
func (v *Verifier) Compressions() int { return v.fs.n }

// Offset returns the number of stream scalars read so far.
func (v *Verifier) Offset() int { return v.offset }

// Observe binds a value both sides derive (not transmitted).
func (v *Verifier) Observe(x field.E) { v.fs.observe(x) }

// ObserveDigest binds a digest both sides hold, as its two scalars.
func (v *Verifier) ObserveDigest(d blake2s.Digest) {
	for _, x := range DigestScalars(d) {
		v.fs.observe(x)
	}
}

// AbsorbBytes binds a byte string (length frame, then 24-byte chunks).
func (v *Verifier) AbsorbBytes(b []byte) { v.fs.absorbBytes(b) }

// Sample squeezes one challenge.
func (v *Verifier) Sample() field.E { return v.fs.sample() }

// Samples squeezes n challenges.
func (v *Verifier) Samples(n int) []field.E {
	out := make([]field.E, n)
	v.SampleInto(out)
	return out
}

// SampleInto fills dst with challenges, in order.
func (v *Verifier) SampleInto(dst []field.E) {
	for i := range dst {
		dst[i] = v.fs.sample()
	}
}

// SampleQueries draws count query positions in [0, blockLen) (a power of two > 1).
func (v *Verifier) SampleQueries(blockLen, count int) []int {
	return v.fs.sampleQueries(blockLen, count)
}

func (v *Verifier) take() (field.E, error) {
	if v.offset >= len(v.proof.Stream) {
		return field.Zero, fmt.Errorf("%w after %d scalars", ErrStreamExhausted, v.offset)
	}
	x := v.proof.Stream[v.offset]
	v.offset++
	return x, nil
}

// Receive reads the next stream scalar and observes it.
func (v *Verifier) Receive() (field.E, error) {
	x, err := v.take()
	if err != nil {
		return x, err
	}
	v.fs.observe(x)
	return x, nil
}

// ReceiveMany reads n scalars.
func (v *Verifier) ReceiveMany(n int) ([]field.E, error) {
	if n < 0 || n > len(v.proof.Stream)-v.offset {
		return nil, fmt.Errorf("%w: %d scalars wanted, %d left", ErrStreamExhausted, n, len(v.proof.Stream)-v.offset)
	}
	out := make([]field.E, n)
	for i := range out {
		out[i], _ = v.Receive()
	}
	return out, nil
}

// ReceiveDigest reads a digest sent as two scalars, rejecting a non-canonical one.
func (v *Verifier) ReceiveDigest() (blake2s.Digest, error) {
	s, err := v.ReceiveMany(2)
	if err != nil {
		return blake2s.Digest{}, err
	}
	return ScalarsDigest([2]field.E{s[0], s[1]})
}

// RoundPoly reads a sumcheck round polynomial of count coefficients (constant first) and
// derives the one the claim fixes: a plain round (eq == nil) has claim = h(0) + h(1) =
// c1 + … + c_d, fixing c1; a round with eq factor r pulled out has claim = c0 + r·(c1 + … +
// c_d), fixing c0.
func (v *Verifier) RoundPoly(count int, claim field.E, eq *field.E) ([]field.E, error) {
	return ReadRoundPoly(v.Receive, count, claim, eq)
}

// ReadRoundPoly is Verifier.RoundPoly on any source of received scalars: it reads the
// count−1 sent coefficients from receive and derives the one the claim fixes.
func ReadRoundPoly(receive func() (field.E, error), count int, claim field.E, eq *field.E) ([]field.E, error) {
	if count < 2 {
		panic("transcript: a round polynomial has at least two coefficients")
	}
	fixed := 1
	if eq != nil {
		fixed = 0
	}
	c := make([]field.E, count)
	for i := range c {
		if i == fixed {
			continue
		}
		x, err := receive()
		if err != nil {
			return nil, err
		}
		c[i] = x
	}
	if eq == nil {
		s := claim
		for _, x := range c[2:] {
			s = s.Add(x)
		}
		c[1] = s
	} else {
		var s field.E
		for _, x := range c[1:] {
			s = s.Add(x)
		}
		c[0] = claim.Add(eq.Mul(s))
	}
	return c, nil
}

// GrindCheck reads a grinding nonce, checks its bits of proof-of-work (bits = 0 admits
// only the zero nonce) and binds it. Any E nonce is accepted if it passes.
func (v *Verifier) GrindCheck(bits int) error {
	checkBits(bits)
	n, err := v.take()
	if err != nil {
		return err
	}
	ok := n.IsZero()
	if bits > 0 {
		base := v.fs.powBase()
		ok = powOK(base, n, bits)
		v.fs.n++ // the nonce's compression
		if v.fs.trace != nil {
			v.fs.trace(Step{In: base, Block: nonceBlock(n), Out: Compress(base, nonceBlock(n))})
		}
	}
	v.fs.absorbNonce(n)
	if !ok {
		return fmt.Errorf("%w: %d bits at scalar %d", ErrPow, bits, v.offset-1)
	}
	return nil
}

// Merkle reads the openings of queries (positions in [0, blockLen), blockLen a power of
// two) of a tree with rows of leafWords words, authenticates them against root and
// returns the rows in query order (views into the proof; read-only). A raw proof supplies
// one opening per query; a wire proof one phase, expanded with the queries.
func (v *Verifier) Merkle(root blake2s.Digest, blockLen int, queries []int, leafWords int) ([][]uint64, error) {
	return v.MerklePadded(root, blockLen, queries, leafWords, leafWords)
}

// MerklePadded is Merkle for a padded commitment (merkle.NewPadded): a wire phase stores
// rows of rowWords words whose leaf images are leafWords wide, led by zeros; a raw opening
// carries the full image, whose leading leafWords - rowWords words must be zero (the wire
// form supplies those zeros itself, so both forms accept exactly the same proofs). The
// rows come back as full images in both forms.
func (v *Verifier) MerklePadded(root blake2s.Digest, blockLen int, queries []int, rowWords, leafWords int) ([][]uint64, error) {
	if blockLen <= 0 || blockLen&(blockLen-1) != 0 {
		return nil, fmt.Errorf("%w: block length %d is not a power of two", ErrInvalidOpening, blockLen)
	}
	if rowWords < 0 || rowWords > leafWords {
		return nil, fmt.Errorf("%w: rows of %d words in leaves of %d", ErrInvalidOpening, rowWords, leafWords)
	}
	depth := 0
	for 1<<depth < blockLen {
		depth++
	}
	if v.wire {
		return v.merkleWire(root, depth, queries, rowWords, leafWords)
	}
	return v.merkleRaw(root, blockLen, depth, queries, leafWords, func(q int, leaf []uint64) error {
		if !allZero(leaf[:leafWords-rowWords]) {
			return fmt.Errorf("%w: opened row at query %d has a nonzero word in its %d-word zero prefix",
				ErrInvalidOpening, q, leafWords-rowWords)
		}
		return nil
	})
}

// merkleRaw reads one raw opening per query of a tree of the given depth and leaf
// width, checks each leaf with prefix (the leaf's width is checked first) and its path
// against root, and returns the leaves in query order.
func (v *Verifier) merkleRaw(root blake2s.Digest, blockLen, depth int, queries []int, leafWords int,
	prefix func(q int, leaf []uint64) error) ([][]uint64, error) {
	rows := make([][]uint64, len(queries))
	for j, q := range queries {
		if v.next >= len(v.proof.Openings) {
			return nil, fmt.Errorf("%w: opening %d", ErrMissingOpening, v.next)
		}
		o := v.proof.Openings[v.next]
		v.next++
		switch {
		case q < 0 || q >= blockLen:
			return nil, fmt.Errorf("%w: query %d outside [0, %d)", ErrInvalidOpening, q, blockLen)
		case len(o.Leaf) != leafWords:
			return nil, fmt.Errorf("%w: opened row has %d words, want %d", ErrInvalidOpening, len(o.Leaf), leafWords)
		case len(o.Path) != depth:
			return nil, fmt.Errorf("%w: path of %d siblings, want %d", ErrInvalidOpening, len(o.Path), depth)
		}
		if err := prefix(q, o.Leaf); err != nil {
			return nil, err
		}
		if merkle.PathRoot(o.Leaf, q, o.Path) != root {
			return nil, fmt.Errorf("%w: root mismatch at query %d", ErrInvalidOpening, q)
		}
		v.raw = append(v.raw, o)
		rows[j] = o.Leaf
	}
	return rows, nil
}

// allZero reports whether every word of w is zero.
func allZero(w []uint64) bool {
	var or uint64
	for _, x := range w {
		or |= x
	}
	return or == 0
}

func (v *Verifier) merkleWire(root blake2s.Digest, depth int, queries []int, rowWords, leafWords int) ([][]uint64, error) {
	if v.next >= len(v.proof.Phases) {
		return nil, fmt.Errorf("%w: phase %d", ErrMissingOpening, v.next)
	}
	ph := v.proof.Phases[v.next]
	v.next++
	for k, r := range ph.Rows {
		if len(r) != rowWords {
			return nil, fmt.Errorf("%w: phase row %d has %d words, want %d", ErrInvalidOpening, k, len(r), rowWords)
		}
	}
	pos := merkle.SortedUnique(queries)
	var open []merkle.RawOpening
	var err error
	if rowWords == leafWords {
		open, err = merkle.Expand(root, depth, pos, ph.Rows, ph.Siblings, queries)
	} else {
		open, err = merkle.ExpandPadded(root, depth, pos, ph.Rows, ph.Siblings, queries, leafWords)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: phase %d: %w", ErrInvalidOpening, v.next-1, err)
	}
	rows := make([][]uint64, len(open))
	for j := range open {
		rows[j] = open[j].Leaf
	}
	v.raw = append(v.raw, open...)
	return rows, nil
}

// Finish requires every stream scalar and every opening (raw) or phase (wire) consumed.
func (v *Verifier) Finish() error {
	left := len(v.proof.Openings)
	if v.wire {
		left = len(v.proof.Phases)
	}
	if v.offset != len(v.proof.Stream) || v.next != left {
		return fmt.Errorf("%w: %d of %d scalars and %d of %d openings read", ErrNotConsumed,
			v.offset, len(v.proof.Stream), v.next, left)
	}
	return nil
}

// RawProof returns the raw form of the proof read so far: the scalars read and one
// unpruned opening per query, phases in order. For a wire proof this is the expansion the
// reference verifier emits; it is meaningful only after Finish accepted.
func (v *Verifier) RawProof() *Proof {
	return &Proof{Stream: slices.Clone(v.proof.Stream[:v.offset]), Openings: slices.Clone(v.raw)}
}

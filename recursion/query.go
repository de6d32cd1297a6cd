package recursion

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/merkle"
	"github.com/leanpipe/leanpipe/ntt"
)

// Query blocks (segments Q0 and Q of docs/recursion.md §4.2–4.3). One block checks one
// WHIR query of a child proof: the opened row's leaf hash and Merkle path up to the
// level's root, the row's fold ⟨row, eq⟩ times the block's weight (its term of the
// level's enforced sum), and its term of the level's induced weight. The root, the eq
// table and the induced point are the same in every block of a level; the index bits
// and the weight (1 live, 0 padding) differ per block. A level-0 row is 64 K words
// (the stack's lanes; eq input l multiplies word l, so a verifier pins it to the lane
// weight of lane 63 − l, level-0 rows listing lanes in descending order); a later
// level's row is 24 words, 8 E elements of three words each.

// RowWords is a level-0 leaf's width: 64 K words (the stack's lanes).
const RowWords = 1 << 6

// LaterRowWords is a later level's leaf width: 8 E elements (three folds of E values).
const LaterRowWords = 24

// QueryBlock is the block circuit with its column layout: compiled for a prover
// (the embedded *circuit.Circuit, built on first need), or described for a verifier
// (Matrices evaluates the same code on a circuit.Evaluator, nothing built).
type QueryBlock struct {
	*circuit.Circuit
	level0  bool
	logSize int
	name    string
	blockForms
	Depth    int // Merkle path length, bits of the query index
	PointLen int // coordinates of the induced-weight point (the level's message log)
	RowLen   int // words of a row: RowWords (level 0) or LaterRowWords
	EqLen    int // entries of the fold's eq table: 64 (level 0) or 8
	// Input column bases (bit i of an element at base + i; K words and E limbs low first).
	Index, Row, Path, Eq, Weight, Point int
	// Output column bases (materialised): the root's 256 bits, the fold term and the
	// induced term (E each).
	Root, Fold, Induced int
	// basis[k][i] is v_k(2^i): the factor W_k(q)/W_k(ω_k) is GF(2)-linear in q.
	basis [][]field.K
	// A block without reveal (docs/recursion.md §6.4, queryLayoutNR) takes the index
	// from its transcript sample: Sample is the sample's 192 bits, Sel a one-hot choice
	// of its PerWord positions (index bit i = sample bit c·Depth + i for the chosen c);
	// every input starts on a word.
	noReveal    bool
	Sample, Sel int
	PerWord     int
}

// QueryLogSize and LaterQueryLogSize are log2 of a level-0 and a later query block's columns.
const (
	QueryLogSize      = 20
	LaterQueryLogSize = 19
)

// NewQueryBlock builds the level-0 block for paths of depth bits and an induced point
// of pointLen coordinates.
func NewQueryBlock(depth, pointLen int) *QueryBlock { return newQueryBlock(true, depth, pointLen) }

// NewLaterQueryBlock builds the block of a later level (rows of 8 E elements).
func NewLaterQueryBlock(depth, pointLen int) *QueryBlock {
	return newQueryBlock(false, depth, pointLen)
}

func newQueryBlock(level0 bool, depth, pointLen int) *QueryBlock {
	qb := queryLayout(level0, depth, pointLen)
	qb.compile()
	return qb
}

// LogSize is log2 of the block's columns.
func (qb *QueryBlock) LogSize() int { return qb.logSize }

// compile builds and compiles the circuit once.
func (qb *QueryBlock) compile() *circuit.Circuit { return qb.compiled(&qb.Circuit) }

// describe sets the block's forms from its name and size.
func (qb *QueryBlock) describe() {
	qb.describeForms(qb.name, qb.logSize, func(ev *circuit.Evaluator) { describeQuery[circuit.EvalWire](ev, qb) },
		func(b *circuit.Builder) { describeQuery[circuit.Wire](b, qb) })
}

// queryLayout computes the block's layout (no rows).
func queryLayout(level0 bool, depth, pointLen int) *QueryBlock {
	if depth < 1 || depth > 30 || pointLen < 1 {
		panic(fmt.Sprintf("recursion: query block of depth %d, point %d", depth, pointLen))
	}
	qb := &QueryBlock{level0: level0, Depth: depth, PointLen: pointLen, RowLen: RowWords, EqLen: RowWords, basis: inducedBasis(pointLen, depth)}
	logSize, name := QueryLogSize, "q0"
	if !level0 {
		qb.RowLen, qb.EqLen, logSize, name = LaterRowWords, LaterRowWords/3, LaterQueryLogSize, "q"
	}
	qb.logSize, qb.name = logSize, fmt.Sprintf("recursion-%s-d%d-m%d", name, depth, pointLen)
	next := 1
	take := func(n int) int {
		base := next
		next += n
		return base
	}
	qb.Index = take(depth)
	qb.Row = take(64 * qb.RowLen)
	qb.Path = take(256 * depth)
	qb.Eq = take(192 * qb.EqLen)
	qb.Weight = take(192)
	qb.Point = take(192 * pointLen)
	// The outputs sit right after the inputs, each on whole words (so that a verifier
	// pins the root with the inputs in one public window and reads the terms as K words).
	align := func(c int) int { return (c + 63) &^ 63 }
	qb.Root = align(next)
	qb.Fold = qb.Root + 256
	qb.Induced = align(qb.Fold + 192)
	qb.describe()
	return qb
}

// describeQuery emits the block's rows on any backend and returns the product rows'
// count.
func describeQuery[W comparable, B circuit.Ops[W]](b B, qb *QueryBlock) int {
	depth, pointLen := qb.Depth, qb.PointLen
	cols := NewCols(1, 1<<qb.logSize)
	in := func(name string, n int) []W { w, _ := input[W](b, cols, name, n); return w }
	var q, row, path, eqBits, wBits, pBits, sample, sel []W
	if qb.noReveal {
		at := func(base int, name string, n int) []W { cols.advance(base); return in(name, n) }
		sample = at(qb.Sample, "sample", 192)
		sel = at(qb.Sel, "sel", qb.PerWord)
		eqBits = at(qb.Eq, "eq", 192*qb.EqLen)
		wBits = at(qb.Weight, "weight", 192)
		pBits = at(qb.Point, "point", 192*pointLen)
		row = at(qb.Row, "row", 64*qb.RowLen)
		path = at(qb.Path, "path", 256*depth)
	} else {
		q = in("index", depth)
		row = in("row", 64*qb.RowLen)
		path = in("path", 256*depth)
		eqBits = in("eq", 192*qb.EqLen)
		wBits = in("weight", 192)
		pBits = in("point", 192*pointLen)
	}
	cols.advance((qb.Induced + 192 + 63) &^ 63)
	start := cols.Next()
	if qb.noReveal {
		// Index bit i is the chosen position's sample bit: Σ_c sel_c·sample[c·Depth + i].
		q = make([]W, depth)
		for i := range q {
			for c := range qb.PerWord {
				q[i] = b.Xor(q[i], circuit.Product(b, cols.take(), sel[c], sample[c*depth+i]))
			}
		}
	}

	// 1. The leaf: BLAKE2s-256 of the row's bytes (512: 8 compressions; 192: 3).
	h := paramIVWords[W](b)
	rowWords := wordsOf(row)
	blocks := len(rowWords) / 16
	for blk := range blocks {
		var m [16]circuit.WordOf[W]
		copy(m[:], rowWords[16*blk:16*blk+16])
		h = compressAt(b, cols, h, m, uint64(64*(blk+1)), blk == blocks-1)
	}
	// 2. The path: at level j the running digest is the left child when bit j is 0.
	cur := flatWords(h[:])
	for j := range depth {
		sib := path[256*j : 256*j+256]
		left, next := circuit.Mux(b, cols.Next(), q[j], cur, sib)
		cols.advance(next)
		right := make([]W, 256)
		for i := range right {
			right[i] = b.Xor(b.Xor(cur[i], sib[i]), left[i])
		}
		var m [16]circuit.WordOf[W]
		copy(m[:8], wordsOf(left))
		copy(m[8:], wordsOf(right))
		out := compressAt(b, cols, paramIVWords[W](b), m, 64, true)
		cur = flatWords(out[:])
	}
	for i, w := range cur {
		circuit.Linear(b, qb.Root+i, w)
	}
	// 3. The fold: Σ_l row_l·eq_l, times the weight.
	weight := eOf(wBits)
	var acc EWiresOf[W]
	for l := range qb.EqLen {
		eq := eOf(eqBits[192*l : 192*l+192])
		if qb.level0 {
			var rl KWiresOf[W]
			copy(rl[:], row[64*l:64*l+64])
			acc = AddE(b, acc, MulEK(b, cols, eq, rl))
		} else {
			acc = AddE(b, acc, MulE(b, cols, eOf(row[192*l:192*l+192]), eq))
		}
	}
	fold := MulE(b, cols, acc, weight)
	materialiseAt(b, qb.Fold, fold)
	// 4. The induced term: weight·Π_k (1 + p_k·(1 + v_k)), v_k linear in the index bits.
	prod := weight
	for k := range pointLen {
		var v KWiresOf[W]
		for bit := range KBits {
			var x W
			for i := range depth {
				if uint64(qb.basis[k][i])>>bit&1 == 1 {
					x = b.Xor(x, q[i])
				}
			}
			v[bit] = x
		}
		v[0] = b.Xor(v[0], b.One()) // 1 + v_k
		f := MulEK(b, cols, eOf(pBits[192*k:192*k+192]), v)
		f[0][0] = b.Xor(f[0][0], b.One())
		prod = MulE(b, cols, prod, f)
	}
	materialiseAt(b, qb.Induced, prod)
	return cols.Next() - start + 256 + 2*192
}

func eOf[W comparable](bits []W) EWiresOf[W] {
	var e EWiresOf[W]
	for l := range e {
		copy(e[l][:], bits[64*l:64*l+64])
	}
	return e
}

// materialiseAt gives x's 192 bits rows at the columns [base, base+192).
func materialiseAt[W comparable, B circuit.Ops[W]](b B, base int, x EWiresOf[W]) {
	for l, k := range x {
		for i, w := range k {
			circuit.Linear(b, base+64*l+i, w)
		}
	}
}

// inducedBasis returns v_k(2^i) for k < pointLen, i < depth: the normalised subspace
// polynomials W_k(q)/W_k(ω_k) at the index bits (open.InducedWeight's factors).
func inducedBasis(pointLen, depth int) [][]field.K {
	roots := ntt.SubspaceRootsK(pointLen)
	out := make([][]field.K, pointLen)
	for k := range out {
		out[k] = make([]field.K, depth)
	}
	for i := range depth {
		w := field.K(1) << i
		for k := range pointLen {
			var inv field.K
			if roots[k] != 0 {
				inv = roots[k].Inv()
			}
			out[k][i] = w.Mul(inv)
			w = w.Square().Add(roots[k].Mul(w))
		}
	}
	return out
}

// QueryInput is one block's inputs.
type QueryInput struct {
	Index  int
	Row    []uint64 // RowWords (level 0) or LaterRowWords words
	Path   []merkle.Digest
	Eq     []field.E // 64 (level 0) or 8 entries
	Weight field.E
	Point  []field.E
}

// QueryTerms computes natively what the block outputs: the root the path climbs to,
// the fold term weight·⟨row, eq⟩ and the induced term weight·Π_k (1 + p_k(1 + v_k)). A
// row of RowWords words is a level-0 row of K lanes; one of LaterRowWords, 8 E elements.
func QueryTerms(in *QueryInput, messageLog int) (merkle.Digest, field.E, field.E) {
	root := merkle.PathRoot(in.Row, in.Index, in.Path)
	var acc field.E
	if len(in.Row) == LaterRowWords {
		for l := range in.Eq {
			e := field.E{C0: field.K(in.Row[3*l]), C1: field.K(in.Row[3*l+1]), C2: field.K(in.Row[3*l+2])}
			acc = acc.Add(in.Eq[l].Mul(e))
		}
	} else {
		for l, w := range in.Row {
			acc = acc.Add(in.Eq[l].MulK(field.K(w)))
		}
	}
	basis := inducedBasis(messageLog, bits.Len(uint(in.Index))+1)
	prod := in.Weight
	for k, p := range in.Point {
		var v field.K
		for i := range basis[k] {
			if in.Index>>i&1 == 1 {
				v ^= basis[k][i]
			}
		}
		prod = prod.Mul(field.One.Add(p.MulK(1 ^ v)))
	}
	return root, acc.Mul(in.Weight), prod
}

// Set writes in into lane j of a bit-sliced witness w (bit j of w[col] is column col
// of instance j); the input columns must be zero in lane j beforehand.
func (qb *QueryBlock) Set(w []uint64, j uint, in *QueryInput) error {
	if len(in.Row) != qb.RowLen || len(in.Path) != qb.Depth || len(in.Eq) != qb.EqLen || len(in.Point) != qb.PointLen {
		return fmt.Errorf("recursion: query input of %d words, %d siblings, %d eq, %d point coordinates for a block of depth %d, point %d",
			len(in.Row), len(in.Path), len(in.Eq), len(in.Point), qb.Depth, qb.PointLen)
	}
	if in.Index < 0 || in.Index>>qb.Depth != 0 {
		return fmt.Errorf("recursion: query index %d outside [0, 2^%d)", in.Index, qb.Depth)
	}
	setBits := func(base int, v uint64, n int) { setLane(w, j, base, v, n) }
	setE := func(base int, e field.E) { setLaneE(w, j, base, e) }
	setBits(qb.Index, uint64(in.Index), qb.Depth)
	for l, x := range in.Row {
		setBits(qb.Row+64*l, x, 64)
	}
	for d, s := range in.Path {
		for k := range 4 {
			setBits(qb.Path+256*d+64*k, binary.LittleEndian.Uint64(s[8*k:]), 64)
		}
	}
	for l, e := range in.Eq {
		setE(qb.Eq+192*l, e)
	}
	setE(qb.Weight, in.Weight)
	for k, e := range in.Point {
		setE(qb.Point+192*k, e)
	}
	return nil
}

// Outputs reads lane j's materialised outputs from a solved witness.
func (qb *QueryBlock) Outputs(w []uint64, j uint) (merkle.Digest, field.E, field.E) {
	get := func(base int) uint64 {
		var v uint64
		for i := range 64 {
			v |= (w[base+i] >> j & 1) << i
		}
		return v
	}
	getE := func(base int) field.E {
		return field.E{C0: field.K(get(base)), C1: field.K(get(base + 64)), C2: field.K(get(base + 128))}
	}
	var root merkle.Digest
	for k := range 4 {
		binary.LittleEndian.PutUint64(root[8*k:], get(qb.Root+64*k))
	}
	return root, getE(qb.Fold), getE(qb.Induced)
}

func (c *Cols) advance(next int) {
	if next > c.end {
		panic(fmt.Sprintf("recursion: gadget out of columns at %d", c.end))
	}
	c.next = next
}

func compressAt[W comparable, B circuit.Ops[W]](b B, cols *Cols, h [8]circuit.WordOf[W], m [16]circuit.WordOf[W], t uint64, final bool) [8]circuit.WordOf[W] {
	out, next := circuit.Compress(b, cols.Next(), h, m, t, final)
	cols.advance(next)
	return out
}

func paramIVWords[W comparable, B circuit.Ops[W]](b B) [8]circuit.WordOf[W] {
	var h [8]circuit.WordOf[W]
	for i, v := range circuit.Blake2sParamIV {
		h[i] = circuit.ConstWord(b, v)
	}
	return h
}

// wordsOf cuts bits (little-endian bytes, bit i of the byte string at i) into 32-bit words.
func wordsOf[W comparable](bits []W) []circuit.WordOf[W] {
	ws := make([]circuit.WordOf[W], len(bits)/32)
	for i := range ws {
		copy(ws[i][:], bits[32*i:])
	}
	return ws
}

func flatWords[W comparable](ws []circuit.WordOf[W]) []W {
	out := make([]W, 0, 32*len(ws))
	for _, w := range ws {
		out = append(out, w[:]...)
	}
	return out
}

package recursion

import (
	"fmt"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
)

// Arithmetic blocks (segment F of docs/recursion.md §6.4): a block of independent E×E
// products z_u = x_u·y_u, u < Products. The operands are inputs and each product is
// materialised, all at word-aligned columns, so that copy claims (flows.CopyClaim) can
// tie an operand to any word of any segment (a transcript block's challenge or stream
// scalar, another product) and linear claims can read a product. The block checks
// nothing else: what the products mean is the wiring's.
//
// Layout (columns): 0 the constant; from 64, product u's x (192 columns: c0, c1, c2,
// low bit first) at 64 + 384·u and y at 64 + 384·u + 192; from Out = 64 + 384·Products,
// z_u at Out + 192·u; then the products' rows (4,374 per MulE).

// ArithBlock is the block circuit with its layout (compiled for a prover on first
// need, described for a verifier, as QueryBlock).
type ArithBlock struct {
	*circuit.Circuit
	blockForms
	logSize  int
	Products int // products per block
	Out      int // first output column
}

// mulERows is the rows of one MulE (six K products of 729 rows).
const mulERows = 6 * 729

// NewArithBlock builds the block of 2^logSize columns holding as many products as
// fit (211 at 2^20).
func NewArithBlock(logSize int) *ArithBlock {
	ab := arithLayout(logSize)
	ab.compile()
	return ab
}

func arithLayout(logSize int) *ArithBlock {
	per := 2*3*KBits + 3*KBits + mulERows
	p := ((1 << logSize) - 64) / per
	if p < 1 {
		panic(fmt.Sprintf("recursion: an arithmetic block of 2^%d columns holds no product", logSize))
	}
	ab := &ArithBlock{logSize: logSize, Products: p, Out: 64 + 2*3*KBits*p}
	ab.describeForms(ab.name(), logSize, func(ev *circuit.Evaluator) { describeArith[circuit.EvalWire](ev, ab) },
		func(b *circuit.Builder) { describeArith[circuit.Wire](b, ab) })
	return ab
}

func (ab *ArithBlock) name() string { return fmt.Sprintf("recursion-arith-%d", ab.logSize) }

// LogSize is log2 of the block's columns.
func (ab *ArithBlock) LogSize() int { return ab.logSize }

func (ab *ArithBlock) compile() *circuit.Circuit { return ab.compiled(&ab.Circuit) }

func describeArith[W comparable, B circuit.Ops[W]](b B, ab *ArithBlock) {
	in := NewCols(64, ab.Out)
	rows := NewCols(ab.Out+3*KBits*ab.Products, 1<<ab.logSize)
	for u := range ab.Products {
		x := InputE[W](b, in, fmt.Sprintf("x%d", u))
		y := InputE[W](b, in, fmt.Sprintf("y%d", u))
		z := MulE(b, rows, x, y)
		for k := range z {
			for i, w := range z[k] {
				circuit.Linear(b, ab.Out+3*KBits*u+KBits*k+i, w)
			}
		}
	}
}

// Words of product u within a block (packed K words: word w holds columns
// [64·w, 64·w+64)); each is the first of three (c0, c1, c2).
func (ab *ArithBlock) XWord(u int) int { return 1 + 6*u }
func (ab *ArithBlock) YWord(u int) int { return 4 + 6*u }
func (ab *ArithBlock) ZWord(u int) int { return ab.Out/64 + 3*u }

// At returns the slot and in-block index of the segment's i-th product.
func (ab *ArithBlock) At(i int) (slot, u int) { return i / ab.Products, i % ab.Products }

// SegmentWord is the column word of in-block word w of slot slot.
func (ab *ArithBlock) SegmentWord(slot, w int) int { return slot<<(ab.logSize-6) + w }

// Slots is the live blocks of a segment of n products.
func (ab *ArithBlock) Slots(n int) int { return max(1, (n+ab.Products-1)/ab.Products) }

// Segment is the prover's segment of the products of operands (x, y) in order.
func (ab *ArithBlock) Segment(operands [][2]field.E) flows.Segment {
	c := ab.compile()
	n := ab.Slots(len(operands))
	return flows.Segment{Circuit: c, N: n,
		Fill: fillSlots(c, n, func(v []uint64, lane uint, s int) error {
			for u := range ab.Products {
				i := s*ab.Products + u
				if i >= len(operands) {
					break
				}
				setLaneE(v, lane, 64+2*3*KBits*u, operands[i][0])
				setLaneE(v, lane, 64+2*3*KBits*u+3*KBits, operands[i][1])
			}
			return nil
		})}
}

// Shape is the verifier's view of a segment of n products.
func (ab *ArithBlock) Shape(n int) flows.SegmentShape {
	return flows.SegmentShape{Circuit: ab.Matrices(), N: ab.Slots(n)}
}

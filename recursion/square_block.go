package recursion

import (
	"fmt"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
)

// Squaring blocks (beside segment F, docs/recursion.md §6.4): independent squares
// x_u² in E, the Frobenius map a verifier needs for the ring switch (GF(2)-linear in
// x's bits, so no product rows: each output bit is a materialised sum of input bits).
// x² = c0² + c2²·y + (c1² + c2²)·y² for x = c0 + c1·y + c2·y² (y³ = y + 1), with c² in
// K the spread of c's bits reduced.
//
// Layout (columns): 0 the constant; from 64, unit u's input (192 columns) at
// 64 + 192·u; from Out = 64 + 192·Units, its square at Out + 192·u.

// SquareBlock is the block circuit with its layout.
type SquareBlock struct {
	*circuit.Circuit
	blockForms
	logSize int
	Units   int // squares per block
	Out     int // first output column
	// names are each square's input names (x<u>.c0, .c1, .c2), made once: a
	// described block declares them on every evaluation.
	names [][3]string
}

// NewSquareBlock builds the block of 2^logSize columns (2,730 squares at 2^20).
func NewSquareBlock(logSize int) *SquareBlock {
	sb := squareLayout(logSize)
	sb.compile()
	return sb
}

func squareLayout(logSize int) *SquareBlock {
	n := ((1 << logSize) - 64) / (2 * 3 * KBits)
	if n < 1 {
		panic(fmt.Sprintf("recursion: a squaring block of 2^%d columns holds no square", logSize))
	}
	sb := &SquareBlock{logSize: logSize, Units: n, Out: 64 + 3*KBits*n, names: make([][3]string, n)}
	for u := range sb.names {
		x := fmt.Sprintf("x%d", u)
		sb.names[u] = [3]string{x + ".c0", x + ".c1", x + ".c2"}
	}
	sb.describeForms(sb.name(), logSize, func(ev *circuit.Evaluator) { describeSquare[circuit.EvalWire](ev, sb) },
		func(b *circuit.Builder) { describeSquare[circuit.Wire](b, sb) })
	return sb
}

func (sb *SquareBlock) name() string { return fmt.Sprintf("recursion-square-%d", sb.logSize) }

// LogSize is log2 of the block's columns.
func (sb *SquareBlock) LogSize() int { return sb.logSize }

func (sb *SquareBlock) compile() *circuit.Circuit { return sb.compiled(&sb.Circuit) }

// squareK is c² in K: bit i of c to bit 2i, reduced (no rows).
func squareK[W comparable, B circuit.Ops[W]](b B, c KWiresOf[W]) KWiresOf[W] {
	var p [2*KBits - 1]W
	for i, w := range c {
		p[2*i] = w
	}
	return reduceK(b, p[:])
}

func describeSquare[W comparable, B circuit.Ops[W]](b B, sb *SquareBlock) {
	in := NewCols(64, sb.Out)
	for u := range sb.Units {
		nm := &sb.names[u]
		x := EWiresOf[W]{InputK[W](b, in, nm[0]), InputK[W](b, in, nm[1]), InputK[W](b, in, nm[2])}
		s0, s1, s2 := squareK(b, x[0]), squareK(b, x[1]), squareK(b, x[2])
		z := EWiresOf[W]{s0, s2, AddK(b, s1, s2)}
		for k := range z {
			for i, w := range z[k] {
				circuit.Linear(b, sb.Out+3*KBits*u+KBits*k+i, w)
			}
		}
	}
}

// InWord and OutWord are unit u's input and output words within a block (the first
// of three each).
func (sb *SquareBlock) InWord(u int) int  { return 1 + 3*u }
func (sb *SquareBlock) OutWord(u int) int { return sb.Out/64 + 3*u }

// At returns the slot and in-block index of the segment's i-th square.
func (sb *SquareBlock) At(i int) (slot, u int) { return i / sb.Units, i % sb.Units }

// SegmentWord is the column word of in-block word w of slot slot.
func (sb *SquareBlock) SegmentWord(slot, w int) int { return slot<<(sb.logSize-6) + w }

// Slots is the live blocks of a segment of n squares.
func (sb *SquareBlock) Slots(n int) int { return max(1, (n+sb.Units-1)/sb.Units) }

// Segment is the prover's segment of the squares of xs in order.
func (sb *SquareBlock) Segment(xs []field.E) flows.Segment {
	c := sb.compile()
	n := sb.Slots(len(xs))
	return flows.Segment{Circuit: c, N: n,
		Fill: fillSlots(c, n, func(v []uint64, lane uint, s int) error {
			for u := range sb.Units {
				i := s*sb.Units + u
				if i >= len(xs) {
					break
				}
				setLaneE(v, lane, 64+3*KBits*u, xs[i])
			}
			return nil
		})}
}

// Shape is the verifier's view of a segment of n squares.
func (sb *SquareBlock) Shape(n int) flows.SegmentShape {
	return flows.SegmentShape{Circuit: sb.Matrices(), N: sb.Slots(n)}
}

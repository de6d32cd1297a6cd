package circuit

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/buffers"
	"github.com/leanpipe/leanpipe/field"
)

// Wire is a value under construction in a Builder: a GF(2)-linear combination of
// committed columns, held symbolically. Zero is the empty combination.
type Wire uint32

// Zero is the wire whose value is always 0.
const Zero Wire = 0

// Opcodes of the straight-line program a Circuit is compiled to.
const (
	opCol uint32 = iota // r[dst] = w[x]
	opXor               // r[dst] = r[x] + r[y]
	opRow               // row dst: A-value r[x], B-value r[y]
)

// step is one program step as the builder records it (value numbers, not yet
// registers). For opRow, dst is the row index.
type step struct {
	op, dst, x, y uint32
}

// instr is one compiled step, packed in 64 bits so that a walk streams half the
// bytes: op in bits 0..1, dst (a register, or the row for opRow) in bits 2..25; for
// opCol the column in bits 26..49; otherwise the registers x in bits 26..44 and y in
// bits 45..63.
type instr uint64

const (
	instrColBits = 24 // columns and rows: LogSize ≤ 24
	instrRegBits = 19 // registers
	maxRegs      = 1 << instrRegBits
)

func packInstr(s step) instr {
	v := uint64(s.op) | uint64(s.dst)<<2
	if s.op == opCol {
		return instr(v | uint64(s.x)<<26)
	}
	return instr(v | uint64(s.x)<<26 | uint64(s.y)<<45)
}

func (in instr) op() uint32  { return uint32(in) & 3 }
func (in instr) dst() uint32 { return uint32(in>>2) & (1<<instrColBits - 1) }
func (in instr) col() uint32 { return uint32(in>>26) & (1<<instrColBits - 1) } // opCol's column
func (in instr) x() uint32   { return uint32(in>>26) & (maxRegs - 1) }
func (in instr) y() uint32   { return uint32(in >> 45) }

// Region names a run of columns of the block (inputs, outputs, gadget products).
type Region struct {
	Name      string
	Base, Len int
}

// Circuit is a compiled Boolean R1CS block (A0, B0, C0 = I) of 2^LogSize rows and
// columns. It is immutable and safe for concurrent use.
type Circuit struct {
	name     string
	logSize  int
	constCol int
	useful   int
	code     []instr
	nregs    int
	isRow    []bool
	inputs   []int
	regions  []Region
	nRows    int
	nonRow   []int32      // the columns without a row, in increasing order
	walks    atomic.Int64 // bilinear walks so far (segments are planned after a few)
	// transposes counts the transposes on two or more workers (TransposeOn and
	// TransposeTensorOn plan the segments after a few).
	transposes atomic.Int64
	segOnce    sync.Once
	segs       []segment   // walk segments of a large program (nil otherwise), planned on first use
	segsReady  atomic.Bool // segs is planned
	readyOnce  sync.Once
	ready      readyPlan                   // the word blocks each chunk of SolveManyStream completes, planned on first use
	vecs       buffers.Shelf[[]field.E]    // column vectors of TransposeOn (see getVec)
	walkers    buffers.Shelf[walkScratch]  // bilinear walkers' storage
	eqs        buffers.Shelf[[2][]field.E] // BilinearTensor's eq tables of the High factors (and the tensor transposes')
	revWalks   buffers.Shelf[revWalk]      // the tensor transposes' backward walkers
}

// Name is the circuit's human-readable name.
func (c *Circuit) Name() string { return c.name }

// LogSize is log2 of the block size: the block has 2^LogSize rows and columns.
func (c *Circuit) LogSize() int { return c.logSize }

// Size is 2^LogSize.
func (c *Circuit) Size() int { return 1 << c.logSize }

// ConstCol is the column pinned to 1 in every instance (the constant wire).
func (c *Circuit) ConstCol() int { return c.constCol }

// Useful is one past the last constrained row: rows (and columns) in
// [Useful, Size) are empty, so the witness, A0·w and B0·w are 0 there.
func (c *Circuit) Useful() int { return c.useful }

// NumRows is the number of non-empty rows.
func (c *Circuit) NumRows() int { return c.nRows }

// IsRow reports whether row (equivalently column, C0 = I) col is constrained.
func (c *Circuit) IsRow(col int) bool { return c.isRow[col] }

// Inputs returns the free input columns in increasing order (shared, do not modify).
func (c *Circuit) Inputs() []int { return c.inputs }

// Regions returns the named column regions (shared, do not modify).
func (c *Circuit) Regions() []Region { return c.regions }

// Region returns the region called name.
func (c *Circuit) Region(name string) (Region, bool) {
	for _, r := range c.regions {
		if r.Name == name {
			return r, true
		}
	}
	return Region{}, false
}

// NumInstr is the length of the compiled program (a cost measure of every walk).
func (c *Circuit) NumInstr() int { return len(c.code) }

// NumRegs is the number of scratch registers a walk uses.
func (c *Circuit) NumRegs() int { return c.nregs }

func (c *Circuit) String() string {
	return fmt.Sprintf("circuit %s: 2^%d columns, %d rows (useful %d), const column %d, %d instructions, %d registers",
		c.name, c.logSize, c.nRows, c.useful, c.constCol, len(c.code), c.nregs)
}

// Builder records a circuit as a straight-line program over wires. Methods panic on
// misuse (a programmer error): reading a column before its row or input exists,
// two rows for one column, or an index outside the block.
type Builder struct {
	name     string
	logSize  int
	constCol int
	// code is the recorded program in blocks of stepBlock steps: a large circuit
	// (tens of millions of steps) then grows without copying, and Compile filters
	// it in place, so building holds about one copy of the program.
	code     [][]step
	steps    int
	compiled bool
	nvals    uint32
	isRow    []bool
	defined  []bool
	inputs   []int
	regions  []Region
	one      Wire
	// checkOnly builders (NewChecker) record no program.
	checkOnly bool
}

// NewChecker is a Builder that records nothing: the circuit's code run on it panics
// where it would on NewBuilder's (a column out of the block, read before its row,
// defined twice), so it tells whether the circuit fits its block without the memory
// and time of recording the program. It cannot Compile.
func NewChecker(name string, logSize, constCol int) *Builder {
	b := NewBuilder(name, logSize, constCol)
	b.checkOnly, b.code, b.steps = true, nil, 0
	return b
}

// NewBuilder starts a circuit of 2^logSize columns whose column constCol is the
// constant 1, enforced by the row A = [constCol], B = [constCol].
func NewBuilder(name string, logSize, constCol int) *Builder {
	if logSize < 1 || logSize > 30 {
		panic(fmt.Sprintf("circuit: logSize %d out of range", logSize))
	}
	n := 1 << logSize
	if constCol < 0 || constCol >= n {
		panic(fmt.Sprintf("circuit: constant column %d outside the block of %d", constCol, n))
	}
	b := &Builder{
		name: name, logSize: logSize, constCol: constCol,
		nvals: 1, isRow: make([]bool, n), defined: make([]bool, n),
	}
	b.defined[constCol] = true
	b.one = b.Col(constCol)
	b.Row(constCol, b.one, b.one)
	return b
}

// One is the constant-1 wire (the constant column).
func (b *Builder) One() Wire { return b.one }

// Const returns One for bit 1 and Zero for bit 0.
func (b *Builder) Const(bit uint) Wire {
	if bit&1 == 1 {
		return b.one
	}
	return Zero
}

// Input declares the n free input columns [base, base+n), each constrained by the
// row A = [col], B = [const] (which only asks the column to be Boolean-consistent),
// and names them.
func (b *Builder) Input(name string, base, n int) {
	b.checkRange(base, n)
	for col := base; col < base+n; col++ {
		if b.defined[col] {
			panic(fmt.Sprintf("circuit: input column %d already defined", col))
		}
		b.defined[col] = true
		b.inputs = append(b.inputs, col)
		b.Row(col, b.Col(col), b.one)
	}
	b.Name(name, base, n)
}

// Name records a named region of columns (for callers: public inputs, outputs).
func (b *Builder) Name(name string, base, n int) {
	b.checkRange(base, n)
	b.regions = append(b.regions, Region{Name: name, Base: base, Len: n})
}

func (b *Builder) checkRange(base, n int) {
	if base < 0 || n < 0 || base+n > len(b.isRow) {
		panic(fmt.Sprintf("circuit: columns [%d, %d) outside the block of %d", base, base+n, len(b.isRow)))
	}
}

func (b *Builder) emit(op, dst, x, y uint32) {
	if b.checkOnly {
		return
	}
	if b.steps&(stepBlock-1) == 0 {
		// A new block (Compile leaves no steps, so a builder used after it
		// comes here too).
		if b.compiled {
			panic("circuit: builder used after Compile")
		}
		b.code = append(b.code, make([]step, 0, stepBlock))
	}
	last := &b.code[len(b.code)-1]
	*last = append(*last, step{op, dst, x, y})
	b.steps++
}

// stepBlock is the number of steps in one block of a Builder's program (16 MiB).
const stepBlock = 1 << 20

// Col returns the wire reading committed column col. The column must be an input,
// the constant, or a row already emitted.
func (b *Builder) Col(col int) Wire {
	b.checkRange(col, 1)
	if !b.defined[col] {
		panic(fmt.Sprintf("circuit: column %d read before its row", col))
	}
	v := b.nvals
	b.nvals++
	b.emit(opCol, v, uint32(col), 0)
	return Wire(v)
}

// Xor returns x + y.
func (b *Builder) Xor(x, y Wire) Wire {
	switch {
	case x == Zero:
		return y
	case y == Zero:
		return x
	case x == y:
		return Zero
	}
	v := b.nvals
	b.nvals++
	b.emit(opXor, v, uint32(x), uint32(y))
	return Wire(v)
}

// Row emits the constraint row a·b = w[row] (C0 = I: the row's output is its own
// column). Afterwards column row may be read.
func (b *Builder) Row(row int, a, bw Wire) {
	b.checkRange(row, 1)
	if b.isRow[row] {
		panic(fmt.Sprintf("circuit: two rows for column %d", row))
	}
	b.isRow[row] = true
	b.defined[row] = true
	b.emit(opRow, uint32(row), uint32(a), uint32(bw))
}

// Product emits the row x·y = w[row] and returns the wire reading it.
func (b *Builder) Product(row int, x, y Wire) Wire {
	b.Row(row, x, y)
	return b.Col(row)
}

// Linear emits the row x·1 = w[row] (a materialised linear value) and returns the
// wire reading it.
func (b *Builder) Linear(row int, x Wire) Wire {
	return b.Product(row, x, b.one)
}

// Compile checks and freezes the circuit: dead steps are dropped and wires are
// assigned to a small set of reusable registers. It consumes the builder: its
// recorded program is overwritten and dropped, and any later use panics.
func (b *Builder) Compile() *Circuit {
	if b.compiled {
		panic("circuit: Compile called twice")
	}
	if b.checkOnly {
		panic("circuit: Compile on a checker")
	}
	b.compiled = true
	defer func() { b.code, b.steps = nil, 0 }()
	// Dead-code elimination: rows are the roots. The passes walk the program's
	// blocks directly (indexing each step through its block cost a fifth of the
	// build).
	live := make([]bool, b.nvals)
	keep := make([]bool, b.steps)
	for bi := len(b.code) - 1; bi >= 0; bi-- {
		blk, base := b.code[bi], bi*stepBlock
		for k := len(blk) - 1; k >= 0; k-- {
			in := blk[k]
			switch in.op {
			case opRow:
				keep[base+k] = true
				live[in.x], live[in.y] = true, true
			case opXor:
				if live[in.dst] {
					keep[base+k] = true
					live[in.x], live[in.y] = true, true
				}
			case opCol:
				keep[base+k] = live[in.dst]
			}
		}
	}
	// The kept steps move to the front of the program, in order (the write
	// cursor never passes the read one), and the last use of every value is
	// noted on the way.
	last := make([]int32, b.nvals)
	for i := range last {
		last[i] = -1
	}
	n, wb, wk := 0, 0, 0
	for bi, blk := range b.code {
		base := bi * stepBlock
		for k, in := range blk {
			if !keep[base+k] {
				continue
			}
			if wk == stepBlock {
				wb, wk = wb+1, 0
			}
			b.code[wb][wk] = in
			wk++
			switch in.op {
			case opXor, opRow:
				last[in.x], last[in.y] = int32(n), int32(n)
			}
			n++
		}
	}
	// Linear-scan register assignment; register 0 stays the constant zero.
	phys := make([]uint32, b.nvals)
	var free []uint32
	nregs := uint32(1)
	out := buffers.MakeUninit[instr](n) // every step is written below; huge pages, as decodeCircuit's copy
	for i := range out {
		if i%stepBlock == 0 {
			wb = i / stepBlock
		}
		in := b.code[wb][i%stepBlock]
		o := in
		if in.op == opXor || in.op == opRow {
			o.x, o.y = phys[in.x], phys[in.y]
			for _, v := range [2]uint32{in.x, in.y} {
				if v != 0 && last[v] == int32(i) {
					last[v] = -2 // free once even when x == y
					free = append(free, phys[v])
				}
			}
		}
		if in.op != opRow {
			var r uint32
			if n := len(free); n > 0 {
				r, free = free[n-1], free[:n-1]
			} else {
				r = nregs
				nregs++
			}
			phys[in.dst] = r
			o.dst = r
		}
		out[i] = packInstr(o)
	}
	if nregs > maxRegs {
		panic(fmt.Sprintf("circuit: %s needs %d registers, the walk encoding holds %d", b.name, nregs, maxRegs))
	}
	c := &Circuit{
		name: b.name, logSize: b.logSize, constCol: b.constCol,
		code: out, nregs: int(nregs),
		isRow: slices.Clone(b.isRow), inputs: slices.Clone(b.inputs), regions: slices.Clone(b.regions),
	}
	slices.Sort(c.inputs)
	c.countRows()
	return c
}

// countRows sets the fields derived from isRow: the rows' count, useful and the
// columns without a row.
func (c *Circuit) countRows() {
	for col, r := range c.isRow {
		if r {
			c.nRows++
			c.useful = col + 1
		} else {
			c.nonRow = append(c.nonRow, int32(col))
		}
	}
}

package circuit

import (
	"fmt"

	"github.com/leanpipe/leanpipe/buffers"
)

// Solving is a SolveMany walk in progress, run a piece of the program at a time
// (Run): once a piece is walked, the words SolvePieces lists for it hold their
// final witness and row values, and another goroutine may read them (PackLanesRange)
// while the walk goes on. Every other word may still change until the walk ends. A
// Solving is used by one goroutine at a time; Close returns its register file.
type Solving struct {
	c              *Circuit
	ws, dstA, dstB [][]uint64
	r              []uint64
	held           *[]uint64
	pc             int
}

// StartSolve prepares SolveMany's walk of ws (entry state as for Solve) and the
// optional row vectors dstA, dstB, without walking any step: every column without
// a row is set (0, the constant column and the inputs excepted) before it returns.
func (c *Circuit) StartSolve(ws, dstA, dstB [][]uint64) *Solving {
	g := len(ws)
	for _, w := range ws {
		c.checkLen("w", len(w))
	}
	for _, d := range [][][]uint64{dstA, dstB} {
		if d != nil && len(d) != g {
			panic(fmt.Sprintf("circuit: SolveMany: %d row vectors for %d witnesses", len(d), g))
		}
		for _, v := range d {
			c.checkLen("dst", len(v))
			for _, col := range c.nonRow { // every row is written by the walk
				v[col] = 0
			}
		}
	}
	// Columns without a row are 0 (the constant column excepted); every row is
	// written in program order before any step reads it, the inputs' rows (x·1)
	// keeping the caller's value, so only those columns are cleared.
	for _, w := range ws {
		for _, col := range c.nonRow {
			if int(col) != c.constCol {
				w[col] = 0
			}
		}
	}
	// Registers are interleaved: register i of vector k at r[i·g + k]. The file
	// (NumRegs·g words, half a MiB at 2^21 columns) is kept between walks, not
	// faulted in afresh by each; it starts zeroed as a fresh one would.
	held := solveRegs.Get()
	*held = buffers.Grow(*held, c.nregs*g)
	r := *held
	clear(r)
	return &Solving{c: c, ws: ws, dstA: dstA, dstB: dstB, r: r, held: held}
}

// Run walks the program's steps from where the walk stands up to step hi
// (≤ NumInstr).
func (s *Solving) Run(hi int) {
	c := s.c
	if hi < s.pc || hi > len(c.code) {
		panic(fmt.Sprintf("circuit: Solving.Run to step %d from %d of %d", hi, s.pc, len(c.code)))
	}
	code, whole := c.code[s.pc:hi], s.pc == 0 && hi == len(c.code)
	s.pc = hi
	// Under the race detector a piece of the walk is walked in Go, whose every
	// access the detector sees: the assembly's accesses are declared whole vectors
	// at a time, which would overlap the words other goroutines read between
	// pieces. A whole walk (SolveMany) keeps the assembly and its declarations.
	if (!raceEnabled || whole) && solveWalkArch(c, code, s.r, s.ws, s.dstA, s.dstB) {
		return
	}
	solveWalkGo(code, s.r, s.ws, s.dstA, s.dstB)
}

// Close ends the walk and returns its register file; s is not used afterwards. A
// walk closed before the program's end (an abandoned proof) leaves the vectors'
// unwalked rows as they were.
func (s *Solving) Close() {
	solveRegs.Put(s.held)
	*s = Solving{}
}

// solveRegs keeps SolveMany's register files, one per walk in flight.
var solveRegs buffers.Shelf[[]uint64]

// solveWalkGo is SolveMany's walk of code in Go, for any number of vectors.
func solveWalkGo(code []instr, r []uint64, ws, dstA, dstB [][]uint64) {
	g := len(ws)
	for _, in := range code {
		d, x, y := int(in.dst())*g, int(in.x())*g, int(in.y())*g
		switch in.op() {
		case opCol:
			for k, w := range ws {
				r[d+k] = w[in.col()]
			}
		case opXor:
			rd, rx, ry := r[d:d+g], r[x:x+g], r[y:y+g]
			for k := range rd {
				rd[k] = rx[k] ^ ry[k]
			}
		default:
			rx, ry := r[x:x+g], r[y:y+g]
			for k, w := range ws {
				w[in.dst()] = rx[k] & ry[k]
			}
			if dstA != nil {
				for k, a := range dstA {
					a[in.dst()] = rx[k]
				}
			}
			if dstB != nil {
				for k, b := range dstB {
					b[in.dst()] = ry[k]
				}
			}
		}
	}
}

// SolvePiece is a piece of the program as SolvePieces cuts it: its walk ends at
// step Hi, after which the 64-column words in Words ([k0, k1) runs, in increasing
// order) hold their final values in a Solving's witness and row vectors.
type SolvePiece struct {
	Hi    int
	Words [][2]int
}

// SolvePieces cuts the program into n pieces of about equal steps and lists, per
// piece, the words whose last row the piece writes (a word without a row is listed
// with the first piece). Every word is listed once.
func (c *Circuit) SolvePieces(n int) []SolvePiece {
	if n < 1 {
		panic("circuit: SolvePieces: no piece")
	}
	done := c.wordsDone()
	steps := len(c.code)
	pieces := make([]SolvePiece, n)
	for i := range pieces {
		pieces[i].Hi = int(int64(steps) * int64(i+1) / int64(n))
	}
	for k := 0; k < len(done); {
		// The piece of word k: the first whose end is at or after the word's last
		// row (cuts are at ⌊steps·(i+1)/n⌋, so i = ⌈done·n/steps⌉ − 1).
		piece := func(k int) int {
			if done[k] == 0 {
				return 0
			}
			return int((int64(done[k])*int64(n)+int64(steps)-1)/int64(steps)) - 1
		}
		p, k1 := piece(k), k+1
		for k1 < len(done) && piece(k1) == p {
			k1++
		}
		pieces[p].Words = append(pieces[p].Words, [2]int{k, k1})
		k = k1
	}
	return pieces
}

// wordsDone returns, per 64-column word, the number of steps after which every
// row in it is written (0 for a word without rows), computed on first use (one
// pass over the program) and kept.
func (c *Circuit) wordsDone() []int {
	c.doneOnce.Do(func() {
		done := make([]int, c.Size()/64)
		for i, in := range c.code {
			if in.op() == opRow {
				done[in.dst()/64] = i + 1 // steps only grow: the last write wins
			}
		}
		c.done = done
	})
	return c.done
}

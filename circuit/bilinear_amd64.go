//go:build !purego

package circuit

import (
	"fmt"
	"unsafe"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
)

// bilinearState is what bilinearAVX2 reads, and pc what it writes back (the
// offsets are fixed in bilinear_amd64.s).
type bilinearState struct {
	code   *instr   // 0: the program
	n      int      // 8: its length
	pc     int      // 16: in, the step to start at; out, the step it stopped at
	regs   *uint64  // 24: register i at words [4i, 4i+4)
	cols   *field.E // 32: the column window
	cbase  int      // 40
	cn     int      // 48
	rowsA  *field.E // 56: the row window
	rowsB  *field.E // 64
	rtag   *int32   // 72
	rbase  int      // 80
	rn     int      // 88
	rcnt   int      // 96: in and out, the rows stored in the row window
	low    *field.E // 104: the fixed column window
	lown   int      // 112
	cols2  *field.E // 120: the back column window
	cbase2 int      // 128
	cn2    int      // 136
	rowsA2 *field.E // 144: the back row window
	rowsB2 *field.E // 152
	rtag2  *int32   // 160
	rbase2 int      // 168
	rn2    int      // 176
	rcnt2  int      // 184: in and out, the rows stored in the back row window
}

// bilinearAVX2 is bilinearGo in assembly (bilinear_amd64.s): it runs the steps
// [pc, n) of code until one falls outside a window, writes that step (or n) to pc,
// adds the rows it stored in the row window to rcnt (in the back row window to
// rcnt2) and returns the exit (walkDone, walkColMiss, walkRowMiss). A register is 32 bytes
// (an E and 8 bytes of padding, which it may overwrite); column and row windows
// hold E values (24 bytes); a column outside the window and below lown is read from
// low, one outside both from cols2 when in [cbase2, cbase2+cn2); a row outside
// the row window goes to the back row window when in [rbase2, rbase2+rn2).
// Preconditions (a compiled program and the walker guarantee them): every
// register the code names is below len(regs)/4, cols holds cn values, low lown
// and cols2 cn2 (each followed by 8 readable bytes), rowsA, rowsB, rtag rn each,
// rowsA2, rowsB2, rtag2 rn2 each, pc ≤ n. No alignment is needed. It needs AVX2.
//
//go:noescape
func bilinearAVX2(st *bilinearState) int

func bilinearKernel(bw *bilinearWalk, code []instr, pc int) (int, int) {
	if Kernels.Level() < cpu.AVX2 || len(code) == 0 {
		return bilinearGo(bw, code, pc)
	}
	st := bilinearState{code: &code[0], n: len(code), pc: pc, regs: &bw.regs[0],
		cols: readWindow(bw.cols), cbase: bw.cbase, cn: len(bw.cols),
		rbase: bw.rbase, rn: len(bw.rowsA), rcnt: bw.rcount,
		low: readWindow(bw.low), lown: len(bw.low),
		cols2: readWindow(bw.cols2), cbase2: bw.cbase2, cn2: len(bw.cols2),
		rbase2: bw.rbase2, rn2: len(bw.rowsA2), rcnt2: bw.rcount2}
	st.rowsA, st.rowsB, st.rtag = rowWindow(bw.rowsA, bw.rowsB, bw.rtag)
	st.rowsA2, st.rowsB2, st.rtag2 = rowWindow(bw.rowsA2, bw.rowsB2, bw.rtag2)
	raceRead(unsafe.Pointer(&code[0]), 8*len(code))
	raceReadWrite(unsafe.Pointer(&bw.regs[0]), 8*len(bw.regs))
	exit := bilinearAVX2(&st)
	bw.rcount, bw.rcount2 = st.rcnt, st.rcnt2
	return st.pc, exit
}

// readWindow returns a column window's first element for bilinearAVX2 (nil when
// the window is empty), telling the race detector that the kernel reads it.
func readWindow(w []field.E) *field.E {
	if len(w) == 0 {
		return nil
	}
	raceRead(unsafe.Pointer(&w[0]), 24*len(w))
	return &w[0]
}

// rowWindow returns a row window's first A value, B value and tag for
// bilinearAVX2 (nils when the window is empty), telling the race detector that
// the kernel writes them.
func rowWindow(a, b []field.E, tag []int32) (*field.E, *field.E, *int32) {
	if len(a) == 0 {
		return nil, nil, nil
	}
	raceWrite(unsafe.Pointer(&a[0]), 24*len(a))
	raceWrite(unsafe.Pointer(&b[0]), 24*len(b))
	raceWrite(unsafe.Pointer(&tag[0]), 4*len(tag))
	return &a[0], &b[0], &tag[0]
}

// flushAccE512 is flushAccGo in assembly (flush_amd64.s): it adds h·a[j] and
// h·b[j] into the unreduced accumulators at acc for j < n. n is a positive
// multiple of 8; a and b point to n E values, acc to n/8·uaccGroupWords words. No
// alignment is needed. It needs AVX-512 F and VPCLMULQDQ on zmm (the avx512-gfni
// level).
//
//go:noescape
func flushAccE512(acc *uint64, a, b *field.E, h *field.E, n int)

// flushAccAVX2 is flushAccE512 with AVX and PCLMULQDQ on xmm (the avx2 level),
// under the same contract (flush_amd64.s).
//
//go:noescape
func flushAccAVX2(acc *uint64, a, b *field.E, h *field.E, n int)

// flushAcc adds h·a[j] and h·b[j] into the unreduced accumulators acc (flush.go).
func flushAcc(acc []uint64, a, b []field.E, h field.E) {
	n := len(a)
	l := Kernels.Level()
	if l < cpu.AVX2 || n == 0 {
		flushAccGo(acc, a, b, h)
		return
	}
	if len(b) != n || n%8 != 0 || len(acc) < n/8*uaccGroupWords {
		panic(fmt.Sprintf("circuit: flushAcc of %d and %d values into %d words, want a multiple of 8 values and %d words",
			n, len(b), len(acc), n/8*uaccGroupWords))
	}
	raceReadWrite(unsafe.Pointer(&acc[0]), 8*n/8*uaccGroupWords)
	raceRead(unsafe.Pointer(&a[0]), 24*n)
	raceRead(unsafe.Pointer(&b[0]), 24*n)
	if l >= cpu.AVX512GFNI {
		flushAccE512(&acc[0], &a[0], &b[0], &h, n)
	} else {
		flushAccAVX2(&acc[0], &a[0], &b[0], &h, n)
	}
}

// uaccFast reports whether the walk's flush runs an unreduced vector kernel: at
// the avx2 level too, where the unreduced products (PCLMULQDQ on xmm) cost much
// less than the dot kernels' inner products of each block with Low.
func uaccFast() bool { return Kernels.Level() >= cpu.AVX2 }

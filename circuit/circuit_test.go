package circuit

import (
	"encoding/hex"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	xb "golang.org/x/crypto/blake2s"

	"github.com/leanpipe/leanpipe/cpu"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/internal/testrand"
	"github.com/leanpipe/leanpipe/internal/vectors"
	"github.com/leanpipe/leanpipe/internal/vectors/hexfield"
	"github.com/leanpipe/leanpipe/par"
)

// KAT decoding (internal/vectors/hexfield).
var (
	parseE = hexfield.E
)

func randE(r *rand.Rand) field.E {
	return field.E{C0: field.K(r.Uint64()), C1: field.K(r.Uint64()), C2: field.K(r.Uint64())}
}

func randVec(r *rand.Rand, n int) []field.E {
	v := make([]field.E, n)
	for i := range v {
		v[i] = randE(r)
	}
	return v
}

func dot(a, b []field.E) field.E {
	var s field.E
	for i := range a {
		s = s.Add(a[i].Mul(b[i]))
	}
	return s
}

type r1csKAT struct {
	Alpha    [3]string   `json:"alpha"`
	Digest   string      `json:"A0w_then_B0w_digest_blake2s"`
	Bilinear [3]string   `json:"bilinear"`
	ERow     [][3]string `json:"e_row_full"`
	WCol     [][3]string `json:"w_col_full"`
}

func TestKATBlake2sR1CS(t *testing.T) {
	var cases []r1csKAT
	vectors.KAT(t, "blake2s_r1cs", &cases)
	if len(cases) == 0 {
		t.Fatal("no blake2s_r1cs cases")
	}
	c := BLAKE2s()
	n := c.Size()
	for ci, kc := range cases {
		if len(kc.ERow) != n || len(kc.WCol) != n {
			t.Fatalf("case %d: vector lengths %d, %d", ci, len(kc.ERow), len(kc.WCol))
		}
		e := make([]field.E, n)
		w := make([]field.E, n)
		for i := range n {
			e[i] = parseE(t, kc.ERow[i])
			w[i] = parseE(t, kc.WCol[i])
		}
		alpha := parseE(t, kc.Alpha)
		a := make([]field.E, n)
		b := make([]field.E, n)
		c.RowValues(a, b, w)
		h, _ := xb.New256(nil)
		for _, v := range [][]field.E{a, b} {
			for _, x := range v {
				bs := x.Bytes()
				h.Write(bs[:])
			}
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != kc.Digest {
			t.Errorf("case %d: A0w‖B0w digest %s, want %s", ci, got, kc.Digest)
		}
		want := parseE(t, kc.Bilinear)
		if got := c.Bilinear(alpha, e, w); got != want {
			t.Errorf("case %d: bilinear %v, want %v", ci, got, want)
		}
		if got := dot(e, a).Add(alpha.Mul(dot(e, b))); got != want {
			t.Errorf("case %d: eᵀ(A0w + αB0w) %v, want %v", ci, got, want)
		}
		m := make([]field.E, n)
		c.Transpose(m, e, alpha)
		if got := dot(m, w); got != want {
			t.Errorf("case %d: ((A0+αB0)ᵀe)ᵀw %v, want %v", ci, got, want)
		}
	}
}

// The backward walk is the adjoint of the forward walk: ⟨(A0+αB0)ᵀe, w⟩ = eᵀ(A0+αB0)w.
func TestTransposeAdjoint(t *testing.T) {
	r := testrand.New(t)
	for _, c := range []*Circuit{BLAKE2s(), randomCircuit(r, 10), randomCircuit(r, 8)} {
		n := c.Size()
		for range 2 {
			e, w, alpha := randVec(r, n), randVec(r, n), randE(r)
			m := make([]field.E, n)
			c.Transpose(m, e, alpha)
			if got, want := dot(m, w), c.Bilinear(alpha, e, w); got != want {
				t.Fatalf("%s: adjoint mismatch %v vs %v", c.Name(), got, want)
			}
			ma, mb := make([]field.E, n), make([]field.E, n)
			c.TransposePair(ma, mb, e)
			va, vb := c.BilinearPair(e, w)
			if dot(ma, w) != va || dot(mb, w) != vb {
				t.Fatalf("%s: pair adjoint mismatch", c.Name())
			}
			for i := range m {
				if m[i] != ma[i].Add(alpha.Mul(mb[i])) {
					t.Fatalf("%s: Transpose ≠ Aᵀe + α·Bᵀe at column %d", c.Name(), i)
				}
			}
			// Empty rows carry no weight: changing e there changes nothing.
			for row := range n {
				if !c.IsRow(row) {
					e[row] = randE(r)
				}
			}
			m2 := make([]field.E, n)
			c.Transpose(m2, e, alpha)
			for i := range m {
				if m[i] != m2[i] {
					t.Fatalf("%s: empty row weight leaked into column %d", c.Name(), i)
				}
			}
		}
	}
}

// randomCircuit builds a small circuit of random XOR/AND gates for the walk tests.
func randomCircuit(r *rand.Rand, logSize int) *Circuit {
	var rows []int
	for row := 64; row < 1<<logSize-5; row++ {
		if r.IntN(4) != 0 {
			rows = append(rows, row)
		}
	}
	return randomGates(r, "random", logSize, rows)
}

// randomGates builds a circuit whose given rows, written in the order given, are
// products of random XORs of its inputs and earlier gates.
func randomGates(r *rand.Rand, name string, logSize int, rows []int) *Circuit {
	b := NewBuilder(name, logSize, 3)
	b.Input("x", 8, 40)
	pool := []Wire{b.One(), Zero}
	for i := range 40 {
		pool = append(pool, b.Col(8+i))
	}
	for _, row := range rows {
		x := b.Xor(pool[r.IntN(len(pool))], pool[r.IntN(len(pool))])
		y := b.Xor(pool[r.IntN(len(pool))], pool[r.IntN(len(pool))])
		pool = append(pool, x, y, b.Product(row, x, y))
		if len(pool) > 200 {
			pool = pool[len(pool)-200:]
		}
	}
	return b.Compile()
}

func TestRowValuesKMatchesE(t *testing.T) {
	r := testrand.New(t)
	c := BLAKE2s()
	n := c.Size()
	wk := make([]field.K, n)
	we := make([]field.E, n)
	for i := range wk {
		wk[i] = field.K(r.Uint64())
		we[i] = field.FromK(wk[i])
	}
	ak, bk := make([]field.K, n), make([]field.K, n)
	c.RowValuesK(ak, bk, wk)
	ae, be := make([]field.E, n), make([]field.E, n)
	c.RowValues(ae, be, we)
	for i := range n {
		if field.FromK(ak[i]) != ae[i] || field.FromK(bk[i]) != be[i] {
			t.Fatalf("row %d: K walk differs from E walk", i)
		}
	}
}

// The rows of BLAKE2s tile exactly the reference layout.
func TestBlake2sLayout(t *testing.T) {
	c := BLAKE2s()
	if c.LogSize() != 14 || c.ConstCol() != 512 || c.Useful() != 16000 {
		t.Fatalf("shape: %v", c)
	}
	want := make([]bool, c.Size())
	for _, rg := range [][2]int{{0, 256}, {256, 256}, {512, 1}, {640, 512}, {1152, 128}, {1280, 80 * 184}} {
		for i := rg[0]; i < rg[0]+rg[1]; i++ {
			want[i] = true
		}
	}
	nr := 0
	for i := range want {
		if c.IsRow(i) != want[i] {
			t.Fatalf("column %d: row %v, want %v", i, c.IsRow(i), want[i])
		}
		if want[i] {
			nr++
		}
	}
	if c.NumRows() != nr || len(c.Inputs()) != 256+512+128 {
		t.Fatalf("rows %d (want %d), inputs %d", c.NumRows(), nr, len(c.Inputs()))
	}
	if rg, ok := c.Region("out"); !ok || rg.Base != 256 || rg.Len != 256 {
		t.Fatalf("out region %v %v", rg, ok)
	}
	t.Log(c)
}

// compress is the BLAKE2s compression function, written plainly for the tests.
func compress(h [8]uint32, m [16]uint32, tc uint64, f0, f1 uint32) [8]uint32 {
	var v [16]uint32
	copy(v[:8], h[:])
	copy(v[8:], Blake2sIV[:])
	v[12] ^= uint32(tc)
	v[13] ^= uint32(tc >> 32)
	v[14] ^= f0
	v[15] ^= f1
	for r := range Blake2sRounds {
		for gi, ln := range Blake2sLanes {
			a, b, c, d := ln[0], ln[1], ln[2], ln[3]
			v[a] += v[b] + m[Blake2sSigma[r][2*gi]]
			v[d] = bits.RotateLeft32(v[d]^v[a], -16)
			v[c] += v[d]
			v[b] = bits.RotateLeft32(v[b]^v[c], -12)
			v[a] += v[b] + m[Blake2sSigma[r][2*gi+1]]
			v[d] = bits.RotateLeft32(v[d]^v[a], -8)
			v[c] += v[d]
			v[b] = bits.RotateLeft32(v[b]^v[c], -7)
		}
	}
	var out [8]uint32
	for i := range out {
		out[i] = h[i] ^ v[i] ^ v[i+8]
	}
	return out
}

func setWord(w []uint64, base int, lane int, v uint32) {
	for i := range 32 {
		w[base+i] |= uint64(v>>i&1) << lane
	}
}

func getWord(w []uint64, base int, lane int) uint32 {
	var v uint32
	for i := range 32 {
		v |= uint32(w[base+i]>>lane&1) << i
	}
	return v
}

// Solve on 64 random instances satisfies the R1CS and its out columns equal the
// compression; a flipped product bit is caught.
func TestSolveBlake2s(t *testing.T) {
	r := testrand.New(t)
	c := BLAKE2s()
	w := make([]uint64, c.Size())
	type inst struct {
		h      [8]uint32
		m      [16]uint32
		tc     uint64
		f0, f1 uint32
	}
	var ins [64]inst
	for j := range ins {
		in := &ins[j]
		for i := range in.h {
			in.h[i] = r.Uint32()
		}
		for i := range in.m {
			in.m[i] = r.Uint32()
		}
		in.tc, in.f0, in.f1 = r.Uint64(), r.Uint32(), r.Uint32()
		if j == 0 { // the pinned padding block: BLAKE2s-256 of 64 zero bytes
			in.h = Blake2sIV
			in.h[0] ^= 0x01010020
			in.m = [16]uint32{}
			in.tc, in.f0, in.f1 = 64, ^uint32(0), 0
		}
		for i := range 8 {
			setWord(w, Blake2sHBase+32*i, j, in.h[i])
		}
		for i := range 16 {
			setWord(w, Blake2sMBase+32*i, j, in.m[i])
		}
		setWord(w, Blake2sTLoBase, j, uint32(in.tc))
		setWord(w, Blake2sTHiBase, j, uint32(in.tc>>32))
		setWord(w, Blake2sF0Base, j, in.f0)
		setWord(w, Blake2sF1Base, j, in.f1)
	}
	w[Blake2sConstCol] = ^uint64(0)
	a, b := make([]uint64, c.Size()), make([]uint64, c.Size())
	c.Solve(w, a, b)
	if row := c.Satisfied(w); row >= 0 {
		t.Fatalf("solved witness violates row %d", row)
	}
	a2, b2 := make([]uint64, c.Size()), make([]uint64, c.Size())
	RowValuesWords(c, a2, b2, w)
	for i := range a {
		if a[i] != a2[i] || b[i] != b2[i] {
			t.Fatalf("Solve's A0w/B0w differ from the walk at row %d", i)
		}
	}
	for j, in := range ins {
		want := compress(in.h, in.m, in.tc, in.f0, in.f1)
		for i := range 8 {
			if got := getWord(w, Blake2sOutBase+32*i, j); got != want[i] {
				t.Fatalf("instance %d out[%d] = %08x, want %08x", j, i, got, want[i])
			}
		}
	}
	sum := xb.Sum256(make([]byte, 64))
	for i := range 8 {
		got := getWord(w, Blake2sOutBase+32*i, 0)
		if got != uint32(sum[4*i])|uint32(sum[4*i+1])<<8|uint32(sum[4*i+2])<<16|uint32(sum[4*i+3])<<24 {
			t.Fatalf("padding block out[%d] is not BLAKE2s-256(0^64)", i)
		}
	}
	for _, col := range []int{Blake2sGBaseOf(79) + Blake2sGA2 + 5, Blake2sGBaseOf(79) + Blake2sGA2 + 36, Blake2sGBaseOf(40) + Blake2sGC2 + 7, Blake2sConstCol, Blake2sOutBase + 3, 600, 16100} {
		w[col] ^= 1 << 17
		if c.Satisfied(w) < 0 {
			t.Fatalf("flipped column %d still satisfies", col)
		}
		w[col] ^= 1 << 17
	}
}

func TestTranspose64(t *testing.T) {
	r := testrand.New(t)
	var m, orig [64]uint64
	for i := range m {
		m[i] = r.Uint64()
	}
	orig = m
	Transpose64(&m)
	for i := range 64 {
		for j := range 64 {
			if m[i]>>j&1 != orig[j]>>i&1 {
				t.Fatalf("bit (%d,%d)", i, j)
			}
		}
	}
	Transpose64(&m)
	if m != orig {
		t.Fatal("transpose is not an involution")
	}
}

func TestPackRows(t *testing.T) {
	r := testrand.New(t)
	// 2^8 columns are 4 words per instance (part of one block of matrices), 2^14
	// are 256 (four whole blocks).
	for _, logSize := range []int{8, 14} {
		c := randomCircuit(r, logSize)
		src := make([]uint64, c.Size())
		for i := range src {
			src[i] = r.Uint64()
		}
		for _, l := range append([]cpu.Level{cpu.Portable}, Kernels.Levels()...) {
			for _, lanes := range []int{64, 5} {
				func() {
					defer cpu.SetLevel(l)()
					dst := make([]field.K, lanes*c.Size()/64)
					c.PackLanes(dst, src, lanes)
					for j := range lanes {
						for col := range c.Size() {
							bit := j*c.Size() + col
							if uint64(dst[bit/64])>>(bit%64)&1 != src[col]>>j&1 {
								t.Fatalf("2^%d columns, level %v, %d lanes: instance %d column %d misplaced", logSize, l, lanes, j, col)
							}
						}
					}
				}()
			}
		}
	}
}

func TestBuilderMisuse(t *testing.T) {
	cases := map[string]func(){
		"read before row": func() { b := NewBuilder("x", 6, 0); b.Col(5) },
		"two rows":        func() { b := NewBuilder("x", 6, 0); b.Row(4, b.One(), b.One()); b.Row(4, Zero, Zero) },
		"out of block":    func() { b := NewBuilder("x", 6, 0); b.Row(64, Zero, Zero) },
		"input twice":     func() { b := NewBuilder("x", 6, 0); b.Input("a", 1, 4); b.Input("b", 4, 1) },
		"const outside":   func() { NewBuilder("x", 6, 64) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// Compile consumes the builder: using it afterwards, or compiling again, panics
// saying so (not with an index error from the dropped program).
func TestBuilderConsumedByCompile(t *testing.T) {
	cases := map[string]func(){
		"builder used after Compile": func() {
			b := NewBuilder("x", 6, 0)
			b.Compile()
			b.Row(1, b.One(), b.One())
		},
		"Compile called twice": func() { b := NewBuilder("x", 6, 0); b.Compile(); b.Compile() },
	}
	for want, f := range cases {
		func() {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.Contains(got, want) {
					t.Errorf("panic %q, want one saying %q", got, want)
				}
			}()
			f()
		}()
	}
}

// A program longer than a few of the builder's step blocks, with dead steps
// between the live ones, compiles to the rows it describes: every row's A value
// is the XOR of the inputs its chain read, computed here directly.
func TestCompileAcrossStepBlocks(t *testing.T) {
	r := testrand.New(t)
	const logSize, rows, chain = 6, 24, 3 * stepBlock / (2 * 24)
	b := NewBuilder("long", logSize, 0)
	b.Input("x", 1, 8)
	n := 1 << logSize
	w := randVec(r, n)
	w[0] = field.One
	want := make([]field.E, n)
	for row := 16; row < 16+rows; row++ {
		acc := b.Col(1 + row%8)
		want[row] = w[1+row%8]
		for k := range chain {
			col := 1 + r.IntN(8)
			b.Xor(acc, b.Col(1+k%8)) // dead
			acc = b.Xor(acc, b.Col(col))
			want[row] = want[row].Add(w[col])
		}
		b.Row(row, acc, b.One())
	}
	emitted := b.steps
	c := b.Compile()
	if emitted < 3*stepBlock || c.NumInstr() >= emitted {
		t.Fatalf("%d steps recorded, %d compiled: the test does not span blocks or drop dead steps", emitted, c.NumInstr())
	}
	a, bv := make([]field.E, n), make([]field.E, n)
	c.RowValues(a, bv, w)
	for row := 16; row < 16+rows; row++ {
		if a[row] != want[row] || bv[row] != field.One {
			t.Fatalf("row %d: A %v B %v, want %v and 1", row, a[row], bv[row], want[row])
		}
	}
}

// BenchmarkPackLanes packs one bit-sliced vector of 64 instances of a 2^21-column
// block (16 MiB in, 16 MiB out), as the xmss-aggregate witness does three times per
// group of 64 signers.
func BenchmarkPackLanes(b *testing.B) {
	c := NewBuilder("pack", 21, 0).Compile()
	r := testrand.New(b)
	src := make([]uint64, c.Size())
	for i := range src {
		src[i] = r.Uint64()
	}
	dst := make([]field.K, c.Size())
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			b.SetBytes(int64(8 * len(src)))
			for b.Loop() {
				c.PackLanes(dst, src, 64)
			}
		})
	}
}

func BenchmarkTranspose(b *testing.B) {
	c := BLAKE2s()
	r := rand.New(rand.NewPCG(1, 2))
	e, dst, alpha := randVec(r, c.Size()), make([]field.E, c.Size()), randE(r)
	for b.Loop() {
		c.Transpose(dst, e, alpha)
	}
}

func BenchmarkBilinear(b *testing.B) {
	c := BLAKE2s()
	r := rand.New(rand.NewPCG(1, 2))
	e, w, alpha := randVec(r, c.Size()), randVec(r, c.Size()), randE(r)
	for b.Loop() {
		c.Bilinear(alpha, e, w)
	}
}

func BenchmarkTranspose64(b *testing.B) {
	var m [64]uint64
	for i := range m {
		m[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	for b.Loop() {
		Transpose64(&m)
	}
}

// The transpose kernel at every level the build and machine have agrees with the
// portable Transpose64 on random matrices, one to eight at a time.
func TestTransposeKernels(t *testing.T) {
	r := testrand.New(t)
	for _, l := range Kernels.Levels() {
		restore := cpu.SetLevel(l)
		for n := 0; n <= 8; n++ {
			var m, want [8][64]uint64
			for i := range m {
				for j := range m[i] {
					m[i][j] = r.Uint64()
				}
			}
			want = m
			for i := range n {
				Transpose64(&want[i])
			}
			transposeMany(&m, n)
			if m != want {
				t.Fatalf("level %v, %d matrices: transpose differs from Transpose64", l, n)
			}
		}
		restore()
	}
}

func BenchmarkTransposeKernels(b *testing.B) {
	var m [8][64]uint64
	for i := range m {
		for j := range m[i] {
			m[i][j] = uint64(i*64+j) * 0x9E3779B97F4A7C15
		}
	}
	for _, l := range Kernels.Levels() {
		b.Run(l.String(), func(b *testing.B) {
			defer cpu.SetLevel(l)()
			for b.Loop() {
				transposeMany(&m, 8)
			}
			b.SetBytes(8 * 512)
		})
	}
}

// A forward walk cut into segments (each run from its cut's slice, on its own
// goroutine) gives the serial walk's values exactly, on the BLAKE2s circuit with the
// segment threshold lowered.
func TestSegmentedBilinear(t *testing.T) {
	oldSteps, oldShare := minSegmentSteps, maxSliceShare
	minSegmentSteps, maxSliceShare = 1<<10, 16 // inside one compression slices are long
	defer func() { minSegmentSteps, maxSliceShare = oldSteps, oldShare }()
	c := buildBlake2s() // a fresh circuit: segments are planned once per circuit
	r := testrand.New(t)
	e, w := make([]field.E, c.Size()), make([]field.E, c.Size())
	for i := range e {
		e[i] = field.E{C0: field.K(r.Uint64()), C1: field.K(r.Uint64()), C2: field.K(r.Uint64())}
		w[i] = field.E{C0: field.K(r.Uint64()), C1: field.K(r.Uint64()), C2: field.K(r.Uint64())}
	}
	steps := func(pre, code []instr) (va, vb field.E) {
		bw := newFullWalk(new(walkScratch), c.nregs, e, w)
		bw.run(pre)
		bw.run(code)
		return bw.sums()
	}
	wa, wb := steps(nil, c.code)
	te, tw := randTensor(r, 6, c.LogSize()), randTensor(r, 6, c.LogSize())
	fe, fw := make([]field.E, c.Size()), make([]field.E, c.Size())
	te.Fill(fe)
	tw.Fill(fw)
	ta, tb := BLAKE2sMatrices().BilinearPair(fe, fw)
	segs := c.segments()
	if len(segs) != walkSegments {
		t.Fatalf("%d segments, want %d", len(segs), walkSegments)
	}
	for k, s := range segs {
		if k > 0 && s.lo != segs[k-1].hi {
			t.Fatalf("segment %d starts at %d, the previous ends at %d", k, s.lo, segs[k-1].hi)
		}
		t.Logf("segment %d: steps [%d, %d), slice %d", k, s.lo, s.hi, len(s.slice))
	}
	// Walks at one worker, then (the segments being planned) at 2 to 4.
	for range serialWalksFirst {
		if a, b := c.BilinearPair(e, w); a != wa || b != wb {
			t.Fatal("a serial walk differs")
		}
	}
	for _, procs := range []int{2, 3, 4} {
		prev := runtime.GOMAXPROCS(procs)
		a, b := c.BilinearPair(e, w)
		a2, b2 := c.BilinearTensor(te, tw)
		runtime.GOMAXPROCS(prev)
		if a != wa || b != wb {
			t.Fatalf("GOMAXPROCS=%d: segmented walk differs from the serial one", procs)
		}
		if a2 != ta || b2 != tb {
			t.Fatalf("GOMAXPROCS=%d: segmented walk at tensor weights differs from the description's value", procs)
		}
	}
	// Each segment alone, from its slice, gives its own share: the shares add up.
	var sa, sb field.E
	for _, s := range segs {
		a, b := steps(s.slice, c.code[s.lo:s.hi])
		sa, sb = sa.Add(a), sb.Add(b)
	}
	if sa != wa || sb != wb {
		t.Fatal("segment shares do not add up to the walk")
	}
}

// A backward walk cut into segments (each worker over a run of them, its residual
// adjoints carried back through its first cut's slice) gives the serial
// transpose exactly, for a general α and for each side alone, at 2 to 4 workers,
// on the BLAKE2s circuit with the segment threshold lowered; its first
// serialWalksFirst walks are serial. Once the transposes have planned the
// segments, the circuit's first forward walks on two cores use them at once.
func TestSegmentedTranspose(t *testing.T) {
	oldSteps, oldShare := minSegmentSteps, maxSliceShare
	minSegmentSteps, maxSliceShare = 1<<10, 16
	defer func() { minSegmentSteps, maxSliceShare = oldSteps, oldShare }()
	c := buildBlake2s()
	r := testrand.New(t)
	n := c.Size()
	e := randVec(r, n)
	for _, co := range []struct{ ca, cb field.E }{{field.One, randE(r)}, {field.One, field.Zero}, {field.Zero, field.One}, {randE(r), randE(r)}} {
		want := make([]field.E, n)
		c.transposeOn(want, e, co.ca, co.cb, par.Serial())
		for _, workers := range []int{2, 2, 3, 4} {
			got := randVec(r, n) // what dst held must not matter
			c.transposeOn(got, e, co.ca, co.cb, par.New(nil, workers))
			if !slices.Equal(got, want) {
				t.Fatalf("%d workers (transpose %d): the transpose differs from the serial walk", workers, c.transposes.Load())
			}
		}
	}
	if c.segs == nil || len(c.segs) != walkSegments {
		t.Fatalf("the segments were not planned (%d)", len(c.segs))
	}
	// The workers' vectors are cleared and summed by column blocks: the test
	// means something only if some segment leaves blocks alone.
	some := false
	for _, s := range c.segs {
		some = some || bits.OnesCount64(s.cols) < colBlocks
	}
	if !some {
		t.Fatal("every segment loads columns of every block: the blocks a worker skips are not exercised")
	}
	// The public method is the (1, α) case.
	alpha := randE(r)
	want, got := make([]field.E, n), make([]field.E, n)
	c.Transpose(want, e, alpha)
	c.TransposeOn(got, e, alpha, par.New(nil, 2))
	if !slices.Equal(got, want) {
		t.Fatal("TransposeOn differs from Transpose")
	}
	prev := runtime.GOMAXPROCS(2)
	w := randVec(r, n)
	wa, wb := c.BilinearPair(e, w)
	runtime.GOMAXPROCS(prev)
	if c.walks.Load() != 0 {
		t.Fatalf("the first forward walk after the transposes planned the segments counted %d serial walks, want none", c.walks.Load())
	}
	bw := newFullWalk(new(walkScratch), c.nregs, e, w)
	bw.run(c.code)
	if a, b := bw.sums(); a != wa || b != wb {
		t.Fatal("the segmented forward walk differs from the serial one")
	}
}

// PackLanesRange at every level gives PackLanes' words for the blocks it is
// given and leaves every other word of dst alone, for destinations at each
// alignment within 32 bytes (the streaming stores take the aligned middle of each
// run), for 64, 5 and 1 lanes, the blocks covered by ranges of 1 to 150 blocks
// in shuffled order.
func TestPackLanesRange(t *testing.T) {
	r := testrand.New(t)
	c := randomCircuit(r, 14)
	words := c.Size() / 64
	src := make([]uint64, c.Size())
	for i := range src {
		src[i] = r.Uint64()
	}
	var ranges [][2]int
	for k0 := 0; k0 < words; {
		k1 := min(words, k0+1+r.IntN(150))
		ranges = append(ranges, [2]int{k0, k1})
		k0 = k1
	}
	r.Shuffle(len(ranges), func(i, j int) { ranges[i], ranges[j] = ranges[j], ranges[i] })
	for _, lanes := range []int{64, 5, 1} {
		want := make([]field.K, lanes*words)
		func() {
			defer cpu.SetLevel(cpu.Portable)()
			c.PackLanes(want, src, lanes)
		}()
		for _, l := range append([]cpu.Level{cpu.Portable}, Kernels.Levels()...) {
			for off := range 4 {
				func() {
					defer cpu.SetLevel(l)()
					back := make([]field.K, lanes*words+4)
					for i := range back {
						back[i] = field.K(^uint64(i))
					}
					dst := back[off : off+lanes*words]
					for _, rg := range ranges[:len(ranges)/2] {
						c.PackLanesRange(dst, src, lanes, rg[0], rg[1])
					}
					done := make([]bool, words)
					for _, rg := range ranges[:len(ranges)/2] {
						for k := rg[0]; k < rg[1]; k++ {
							done[k] = true
						}
					}
					for i, v := range back {
						k := (i - off) % words
						inside := i >= off && i < off+lanes*words
						switch {
						case inside && done[k] && v != want[i-off]:
							t.Fatalf("level %v, %d lanes, offset %d: word %d (instance %d, block %d) is %#x, PackLanes gives %#x", l, lanes, off, i-off, (i-off)/words, k, v, want[i-off])
						case (!inside || !done[k]) && v != field.K(^uint64(i)):
							t.Fatalf("level %v, %d lanes, offset %d: word %d outside the blocks packed was written", l, lanes, off, i-off)
						}
					}
					for _, rg := range ranges[len(ranges)/2:] {
						c.PackLanesRange(dst, src, lanes, rg[0], rg[1])
					}
					if !slices.Equal(dst, want) {
						t.Fatalf("level %v, %d lanes, offset %d: the ranges together differ from PackLanes", l, lanes, off)
					}
				}()
			}
		}
	}
}

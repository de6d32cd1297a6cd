package circuit

import (
	"sync"

	"github.com/leanpipe/leanpipe/blake2s"
)

// Column layout of the BLAKE2s compression block (2^14 columns). Every constrained
// column is the output of exactly one row (C0 = I).
//
//	[0, 256)        h[0..8], the input chaining value (free inputs)
//	[256, 512)      out[0..8] = h[i] ⊕ v[i] ⊕ v[i+8] (linear rows)
//	512             the constant 1
//	[513, 640)      empty
//	[640, 1152)     m[0..16] (free inputs)
//	[1152, 1280)    t_lo, t_hi, f0, f1 (free inputs)
//	[1280, 16000)   80 G blocks of 184 products each
//	[16000, 16384)  empty
//
// One G block (offsets from its base): [0, 61) Add3 a1 = a + b + mx, [61, 92) Add
// c1 = c + d1, [92, 153) Add3 a2 = a1 + b1 + my, [153, 184) Add c2 = c1 + d2.
const (
	Blake2sLogSize   = 14
	Blake2sHBase     = 0
	Blake2sOutBase   = 256
	Blake2sConstCol  = 512
	Blake2sMBase     = 640
	Blake2sTLoBase   = 1152
	Blake2sTHiBase   = 1184
	Blake2sF0Base    = 1216
	Blake2sF1Base    = 1248
	Blake2sGBase     = 1280
	Blake2sGStride   = 2*Add3Bits + 2*AddBits // 184
	Blake2sGA1       = 0
	Blake2sGC1       = Blake2sGA1 + Add3Bits // 61
	Blake2sGA2       = Blake2sGC1 + AddBits  // 92
	Blake2sGC2       = Blake2sGA2 + Add3Bits // 153
	Blake2sRounds    = 10
	Blake2sGPerRound = 8
	Blake2sNumG      = Blake2sRounds * Blake2sGPerRound          // 80
	Blake2sUseful    = Blake2sGBase + Blake2sNumG*Blake2sGStride // 16000
)

// Blake2sIV is the BLAKE2s initialisation vector (the SHA-256 IV).
var Blake2sIV = blake2s.IV

// Blake2sSigma is the BLAKE2s message schedule.
var Blake2sSigma [Blake2sRounds][16]uint8 = blake2s.Sigma

// Blake2sLanes gives the state words (a, b, c, d) of each G of a round: four
// columns, then four diagonals.
var Blake2sLanes = [Blake2sGPerRound][4]uint8{
	{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15},
	{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14},
}

// Blake2sGBaseOf is the first column of G block g (g = 8·round + index in round).
func Blake2sGBaseOf(g int) int { return Blake2sGBase + Blake2sGStride*g }

var blake2sOnce = sync.OnceValue(buildBlake2s)

// BLAKE2s returns the BLAKE2s compression circuit, compress(h, m, t, f0, f1) → out,
// with all ten rounds and the finalisation, in the reference wire layout (see the
// Blake2s* constants). It is built once and shared.
func BLAKE2s() *Circuit { return blake2sOnce() }

func buildBlake2s() *Circuit {
	b := NewBuilder(blake2sName, Blake2sLogSize, Blake2sConstCol)
	describeBlake2s(b)
	return b.Compile()
}

const blake2sName = "blake2s-compress"

var blake2sMatrices = NewDescribed(blake2sName, Blake2sLogSize, Blake2sConstCol, func(ev *Evaluator) {
	describeBlake2s[EvalWire](ev)
})

// BLAKE2sMatrices returns the matrices of BLAKE2s() evaluated from its description
// (no program built).
func BLAKE2sMatrices() *Described { return blake2sMatrices }

// describeBlake2s emits the BLAKE2s compression circuit to b.
func describeBlake2s[W comparable, B Ops[W]](b B) {
	b.Input("h", Blake2sHBase, 8*WordBits)
	b.Input("m", Blake2sMBase, 16*WordBits)
	b.Input("t_lo", Blake2sTLoBase, WordBits)
	b.Input("t_hi", Blake2sTHiBase, WordBits)
	b.Input("f0", Blake2sF0Base, WordBits)
	b.Input("f1", Blake2sF1Base, WordBits)

	var v [16]WordOf[W]
	for i := range 8 {
		v[i] = ColWord(b, Blake2sHBase+WordBits*i)
	}
	for i := range 4 {
		v[8+i] = ConstWord(b, Blake2sIV[i])
	}
	for i, base := range [4]int{Blake2sTLoBase, Blake2sTHiBase, Blake2sF0Base, Blake2sF1Base} {
		v[12+i] = XorWord(b, ConstWord(b, Blake2sIV[4+i]), ColWord(b, base))
	}
	var m [16]WordOf[W]
	for i := range m {
		m[i] = ColWord(b, Blake2sMBase+WordBits*i)
	}
	for r := range Blake2sRounds {
		for gi, ln := range Blake2sLanes {
			base := Blake2sGBaseOf(r*Blake2sGPerRound + gi)
			a, bb, c, d := v[ln[0]], v[ln[1]], v[ln[2]], v[ln[3]]
			mx, my := m[Blake2sSigma[r][2*gi]], m[Blake2sSigma[r][2*gi+1]]
			a1 := Add3(b, a, bb, mx, base+Blake2sGA1)
			d1 := RotR(XorWord(b, d, a1), 16)
			c1 := Add(b, c, d1, base+Blake2sGC1)
			b1 := RotR(XorWord(b, bb, c1), 12)
			a2 := Add3(b, a1, b1, my, base+Blake2sGA2)
			d2 := RotR(XorWord(b, d1, a2), 8)
			c2 := Add(b, c1, d2, base+Blake2sGC2)
			b2 := RotR(XorWord(b, b1, c2), 7)
			v[ln[0]], v[ln[1]], v[ln[2]], v[ln[3]] = a2, b2, c2, d2
		}
	}
	for i := range 8 {
		h := ColWord(b, Blake2sHBase+WordBits*i)
		LinearWord(b, Blake2sOutBase+WordBits*i, XorWord(b, XorWord(b, v[i], v[i+8]), h))
	}
	b.Name("out", Blake2sOutBase, 8*WordBits)
	b.Name("gates", Blake2sGBase, Blake2sNumG*Blake2sGStride)
}

package circuit

import "unsafe"

// Building blocks for circuits that embed BLAKE2s compressions at any column base,
// with message words, chaining value, counter and flags given as wires. They leave
// BLAKE2s() (the reference's fixed 2^14 layout) untouched.

// IsConst reports whether every bit of x is a literal (Zero or the constant wire)
// and returns its value.
func (b *Builder) IsConst(x Word) (uint32, bool) { return IsConst(b, x) }

// AddAuto is the function AddAuto on b.
func (b *Builder) AddAuto(base int, xs ...Word) (Word, int) { return AddAuto(b, base, xs...) }

// Compress is the function Compress on b.
func (b *Builder) Compress(base int, h [8]Word, m [16]Word, t uint64, final bool) ([8]Word, int) {
	return Compress(b, base, h, m, t, final)
}

// Mux is the function Mux on b.
func (b *Builder) Mux(base int, s Wire, x, y []Wire) ([]Wire, int) { return Mux(b, base, s, x, y) }

// IsConst reports whether every bit of x is a literal (the zero wire or b.One())
// and returns its value.
func IsConst[W comparable, B Ops[W]](b B, x WordOf[W]) (uint32, bool) {
	if ev := evaluatorOf[W](b); ev != nil {
		return ev.isConst(asEval(&x))
	}
	var v uint32
	var zero W
	one := b.One()
	for i, w := range x {
		switch w {
		case zero:
		case one:
			v |= 1 << i
		default:
			return 0, false
		}
	}
	return v, true
}

// AddAuto returns the sum of the words mod 2^32 with constants folded: literal words
// are added at build time, and what is left costs 0 (at most one non-literal word
// and no literal), 31 (Add) or 61 (Add3) product columns from base. It returns the
// sum and the next free column.
func AddAuto[W comparable, B Ops[W]](b B, base int, xs ...WordOf[W]) (WordOf[W], int) {
	if ev := evaluatorOf[W](b); ev != nil && len(xs) <= 3 {
		var ps [3]*WordOf[EvalWire]
		for i := range xs {
			ps[i] = asEval(&xs[i])
		}
		var out WordOf[W]
		next := ev.addAuto(asEval(&out), base, ps[:len(xs)]...)
		return out, next
	}
	var k uint32
	// The non-literal words, by index (no copies of the words: an Evaluator's are
	// a kilobyte each).
	var small [4]int
	vars := small[:0]
	for i := range xs {
		if v, ok := IsConst(b, xs[i]); ok {
			k += v
		} else {
			vars = append(vars, i)
		}
	}
	var lit WordOf[W]
	word := func(j int) *WordOf[W] {
		if j < len(vars) {
			return &xs[vars[j]]
		}
		return &lit
	}
	n := len(vars)
	if k != 0 || n == 0 {
		lit = ConstWord(b, k)
		n++
	}
	switch n {
	case 1:
		return *word(0), base
	case 2:
		return Add(b, *word(0), *word(1), base), base + AddBits
	case 3:
		return Add3(b, *word(0), *word(1), *word(2), base), base + Add3Bits
	}
	// More than three words: add pairwise.
	acc, next := AddAuto(b, base, *word(0), *word(1), *word(2))
	for j := 3; j < n; j++ {
		acc, next = AddAuto(b, next, acc, *word(j))
	}
	return acc, next
}

// Blake2sParamIV is the chaining value every unkeyed BLAKE2s-256 hash starts from:
// the IV with word 0 XORed with 0x01010020 (digest length 32, fanout 1, depth 1).
var Blake2sParamIV = func() [8]uint32 {
	h := Blake2sIV
	h[0] ^= 0x01010020
	return h
}()

// Compress emits the BLAKE2s compression F(h, m, t, f0) (f1 = 0, t and f0 literals)
// with its product columns allocated from base upwards, and returns the output
// chaining value (as wires, not materialised) and the next free column. Additions
// whose operands are literals, or whose message word is the literal 0, are folded
// (AddAuto), so a compression costs at most 80·184 = 14,720 product columns and
// fewer when words are constant.
func Compress[W comparable, B Ops[W]](b B, base int, h [8]WordOf[W], m [16]WordOf[W], t uint64, final bool) ([8]WordOf[W], int) {
	if ev := evaluatorOf[W](b); ev != nil {
		// W is EvalWire here (see asEval), so the arrays of words are one type.
		var out [8]WordOf[W]
		col := ev.compress((*[8]WordOf[EvalWire])(unsafe.Pointer(&out)), base,
			(*[8]WordOf[EvalWire])(unsafe.Pointer(&h)), (*[16]WordOf[EvalWire])(unsafe.Pointer(&m)), t, final)
		return out, col
	}
	var v [16]WordOf[W]
	copy(v[:8], h[:])
	var f0 uint32
	if final {
		f0 = 0xFFFFFFFF
	}
	v[8], v[9], v[10], v[11] = ConstWord(b, Blake2sIV[0]), ConstWord(b, Blake2sIV[1]), ConstWord(b, Blake2sIV[2]), ConstWord(b, Blake2sIV[3])
	v[12] = ConstWord(b, Blake2sIV[4]^uint32(t))
	v[13] = ConstWord(b, Blake2sIV[5]^uint32(t>>32))
	v[14] = ConstWord(b, Blake2sIV[6]^f0)
	v[15] = ConstWord(b, Blake2sIV[7])
	col := base
	for r := range Blake2sRounds {
		for gi, ln := range Blake2sLanes {
			a, bb, c, d := v[ln[0]], v[ln[1]], v[ln[2]], v[ln[3]]
			mx, my := m[Blake2sSigma[r][2*gi]], m[Blake2sSigma[r][2*gi+1]]
			var a1, c1, a2, c2 WordOf[W]
			a1, col = AddAuto(b, col, a, bb, mx)
			d1 := RotR(XorWord(b, d, a1), 16)
			c1, col = AddAuto(b, col, c, d1)
			b1 := RotR(XorWord(b, bb, c1), 12)
			a2, col = AddAuto(b, col, a1, b1, my)
			d2 := RotR(XorWord(b, d1, a2), 8)
			c2, col = AddAuto(b, col, c1, d2)
			b2 := RotR(XorWord(b, b1, c2), 7)
			v[ln[0]], v[ln[1]], v[ln[2]], v[ln[3]] = a2, b2, c2, d2
		}
	}
	var out [8]WordOf[W]
	for i := range out {
		out[i] = XorWord(b, XorWord(b, v[i], v[i+8]), h[i])
	}
	return out, col
}

// Mux returns x when s is 0 and y when s is 1, bit by bit, with one product column
// per bit from base ((x ⊕ y)·s, so x ⊕ s·(x ⊕ y)); it returns the next free column.
func Mux[W comparable, B Ops[W]](b B, base int, s W, x, y []W) ([]W, int) {
	if len(x) != len(y) {
		panic("circuit: Mux of unequal widths")
	}
	out := make([]W, len(x))
	for i := range x {
		out[i] = b.Xor(x[i], Product(b, base+i, s, b.Xor(x[i], y[i])))
	}
	return out, base + len(x)
}

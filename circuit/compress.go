package circuit

// Building blocks for circuits that embed BLAKE2s compressions at any column base,
// with message words, chaining value, counter and flags given as wires. They leave
// BLAKE2s() (the reference's fixed 2^14 layout) untouched.

// IsConst reports whether every bit of x is a literal (Zero or the constant wire)
// and returns its value.
func (b *Builder) IsConst(x Word) (uint32, bool) {
	var v uint32
	for i, w := range x {
		switch w {
		case Zero:
		case b.one:
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
func (b *Builder) AddAuto(base int, xs ...Word) (Word, int) {
	var k uint32
	var vars []Word
	for _, x := range xs {
		if v, ok := b.IsConst(x); ok {
			k += v
		} else {
			vars = append(vars, x)
		}
	}
	if k != 0 || len(vars) == 0 {
		vars = append(vars, b.ConstWord(k))
	}
	switch len(vars) {
	case 1:
		return vars[0], base
	case 2:
		return b.Add(vars[0], vars[1], base), base + AddBits
	case 3:
		return b.Add3(vars[0], vars[1], vars[2], base), base + Add3Bits
	}
	// More than three words: add pairwise.
	acc, next := b.AddAuto(base, vars[0], vars[1], vars[2])
	for _, x := range vars[3:] {
		acc, next = b.AddAuto(next, acc, x)
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
func (b *Builder) Compress(base int, h [8]Word, m [16]Word, t uint64, final bool) ([8]Word, int) {
	var v [16]Word
	copy(v[:8], h[:])
	var f0 uint32
	if final {
		f0 = 0xFFFFFFFF
	}
	v[8], v[9], v[10], v[11] = b.ConstWord(Blake2sIV[0]), b.ConstWord(Blake2sIV[1]), b.ConstWord(Blake2sIV[2]), b.ConstWord(Blake2sIV[3])
	v[12] = b.ConstWord(Blake2sIV[4] ^ uint32(t))
	v[13] = b.ConstWord(Blake2sIV[5] ^ uint32(t>>32))
	v[14] = b.ConstWord(Blake2sIV[6] ^ f0)
	v[15] = b.ConstWord(Blake2sIV[7])
	col := base
	for r := range Blake2sRounds {
		for gi, ln := range Blake2sLanes {
			a, bb, c, d := v[ln[0]], v[ln[1]], v[ln[2]], v[ln[3]]
			mx, my := m[Blake2sSigma[r][2*gi]], m[Blake2sSigma[r][2*gi+1]]
			var a1, c1, a2, c2 Word
			a1, col = b.AddAuto(col, a, bb, mx)
			d1 := RotR(b.XorWord(d, a1), 16)
			c1, col = b.AddAuto(col, c, d1)
			b1 := RotR(b.XorWord(bb, c1), 12)
			a2, col = b.AddAuto(col, a1, b1, my)
			d2 := RotR(b.XorWord(d1, a2), 8)
			c2, col = b.AddAuto(col, c1, d2)
			b2 := RotR(b.XorWord(b1, c2), 7)
			v[ln[0]], v[ln[1]], v[ln[2]], v[ln[3]] = a2, b2, c2, d2
		}
	}
	var out [8]Word
	for i := range out {
		out[i] = b.XorWord(b.XorWord(v[i], v[i+8]), h[i])
	}
	return out, col
}

// Mux returns x when s is 0 and y when s is 1, bit by bit, with one product column
// per bit from base ((x ⊕ y)·s, so x ⊕ s·(x ⊕ y)); it returns the next free column.
func (b *Builder) Mux(base int, s Wire, x, y []Wire) ([]Wire, int) {
	if len(x) != len(y) {
		panic("circuit: Mux of unequal widths")
	}
	out := make([]Wire, len(x))
	for i := range x {
		out[i] = b.Xor(x[i], b.Product(base+i, s, b.Xor(x[i], y[i])))
	}
	return out, base + len(x)
}

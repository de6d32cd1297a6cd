package circuit

// WordBits is the width of a Word.
const WordBits = 32

// Word is a 32-bit word of wires of a Builder, bit i at index i.
type Word = WordOf[Wire]

// ColWord reads the 32 columns [base, base+32) as a word.
func (b *Builder) ColWord(base int) Word { return ColWord(b, base) }

// ConstWord is the literal v: set bits read the constant column.
func (b *Builder) ConstWord(v uint32) Word { return ConstWord(b, v) }

// XorWord returns x ⊕ y.
func (b *Builder) XorWord(x, y Word) Word { return XorWord(b, x, y) }

// LinearWord materialises x in the 32 columns [base, base+32) with rows x[i]·1.
func (b *Builder) LinearWord(base int, x Word) Word { return LinearWord(b, base, x) }

// Add returns x + y mod 2^32 (see the function Add).
func (b *Builder) Add(x, y Word, base int) Word { return Add(b, x, y, base) }

// Add3 returns x + y + z mod 2^32 (see the function Add3).
func (b *Builder) Add3(x, y, z Word, base int) Word { return Add3(b, x, y, z, base) }

// ColWord reads the 32 columns [base, base+32) as a word.
func ColWord[W comparable, B Ops[W]](b B, base int) WordOf[W] {
	var w WordOf[W]
	if ev := evaluatorOf[W](b); ev != nil {
		ev.colWord(asEval(&w), base)
		return w
	}
	for i := range w {
		w[i] = b.Col(base + i)
	}
	return w
}

// ConstWord is the literal v: set bits read the constant column.
func ConstWord[W comparable, B Ops[W]](b B, v uint32) WordOf[W] {
	var w WordOf[W]
	if ev := evaluatorOf[W](b); ev != nil {
		ev.constWord(asEval(&w), v)
		return w
	}
	for i := range w {
		w[i] = Const[W](b, uint(v>>i))
	}
	return w
}

// XorWord returns x ⊕ y.
func XorWord[W comparable, B Ops[W]](b B, x, y WordOf[W]) WordOf[W] {
	var w WordOf[W]
	if ev := evaluatorOf[W](b); ev != nil {
		ev.xorWord(asEval(&w), asEval(&x), asEval(&y))
		return w
	}
	for i := range w {
		w[i] = b.Xor(x[i], y[i])
	}
	return w
}

// RotR returns x rotated right by n bits (free: it only renames wires).
func RotR[W comparable](x WordOf[W], n int) WordOf[W] {
	var w WordOf[W]
	for i := range w {
		w[i] = x[(i+n)%WordBits]
	}
	return w
}

// LinearWord materialises x in the 32 columns [base, base+32) with rows x[i]·1.
func LinearWord[W comparable, B Ops[W]](b B, base int, x WordOf[W]) WordOf[W] {
	var w WordOf[W]
	for i := range w {
		w[i] = Linear(b, base+i, x[i])
	}
	return w
}

// AddBits is the number of product columns of Add.
const AddBits = WordBits - 1 // 31

// Add3Bits is the number of product columns of Add3: 31 majorities, 30 ripple carries.
const Add3Bits = (WordBits - 1) + (WordBits - 2) // 61

// Add returns x + y mod 2^32. It owns the 31 columns [base, base+31): column
// base+i is the carry product (x_i + c_i)(y_i + c_i) with c_i = Σ_{j<i} w[base+j]
// the running carry-in, and sum bit i is x_i + y_i + c_i.
func Add[W comparable, B Ops[W]](b B, x, y WordOf[W], base int) WordOf[W] {
	var out WordOf[W]
	if ev := evaluatorOf[W](b); ev != nil {
		ev.add(asEval(&out), asEval(&x), asEval(&y), base)
		return out
	}
	var cin W
	for i := range WordBits {
		left := b.Xor(x[i], cin)
		out[i] = b.Xor(left, y[i])
		if i < AddBits {
			right := b.Xor(y[i], cin)
			cin = b.Xor(cin, Product(b, base+i, left, right))
		}
	}
	return out
}

// Add3 returns x + y + z mod 2^32 with 61 products in [base, base+61).
//
// Majority layer, columns base+i (i < 31): (x_i + z_i)(y_i + z_i), so that
// maj_i = w[base+i] + z_i is the bitwise majority of x, y, z. Then x + y + z is
// p + q with p = x ⊕ y ⊕ z and q = 2·maj (q_0 = 0), added by a ripple layer whose
// bit i (1 ≤ i ≤ 30) owns column base+31+i-1 with product (p_i + c_i)(q_i + c_i);
// bit 0 has no carry-in and bit 31's carry-out is dropped.
func Add3[W comparable, B Ops[W]](b B, x, y, z WordOf[W], base int) WordOf[W] {
	if ev := evaluatorOf[W](b); ev != nil {
		var out WordOf[W]
		ev.add3(asEval(&out), asEval(&x), asEval(&y), asEval(&z), base)
		return out
	}
	var maj [WordBits - 1]W
	for i := range maj {
		p := Product(b, base+i, b.Xor(x[i], z[i]), b.Xor(y[i], z[i]))
		maj[i] = b.Xor(p, z[i])
	}
	rip := base + AddBits
	var out WordOf[W]
	var cin W
	for i := range WordBits {
		var q W
		if i > 0 {
			q = maj[i-1]
		}
		left := b.Xor(b.Xor(b.Xor(x[i], y[i]), z[i]), cin)
		out[i] = b.Xor(left, q)
		if i >= 1 && i <= WordBits-2 {
			cin = b.Xor(cin, Product(b, rip+i-1, left, b.Xor(q, cin)))
		}
	}
	return out
}

package circuit

// WordBits is the width of a Word.
const WordBits = 32

// Word is a 32-bit word of wires, bit i at index i.
type Word [WordBits]Wire

// ColWord reads the 32 columns [base, base+32) as a word.
func (b *Builder) ColWord(base int) Word {
	var w Word
	for i := range w {
		w[i] = b.Col(base + i)
	}
	return w
}

// ConstWord is the literal v: set bits read the constant column.
func (b *Builder) ConstWord(v uint32) Word {
	var w Word
	for i := range w {
		w[i] = b.Const(uint(v >> i))
	}
	return w
}

// XorWord returns x ⊕ y.
func (b *Builder) XorWord(x, y Word) Word {
	var w Word
	for i := range w {
		w[i] = b.Xor(x[i], y[i])
	}
	return w
}

// RotR returns x rotated right by n bits (free: it only renames wires).
func RotR(x Word, n int) Word {
	var w Word
	for i := range w {
		w[i] = x[(i+n)%WordBits]
	}
	return w
}

// LinearWord materialises x in the 32 columns [base, base+32) with rows x[i]·1.
func (b *Builder) LinearWord(base int, x Word) Word {
	var w Word
	for i := range w {
		w[i] = b.Linear(base+i, x[i])
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
func (b *Builder) Add(x, y Word, base int) Word {
	var out Word
	cin := Zero
	for i := range WordBits {
		left := b.Xor(x[i], cin)
		out[i] = b.Xor(left, y[i])
		if i < AddBits {
			right := b.Xor(y[i], cin)
			cin = b.Xor(cin, b.Product(base+i, left, right))
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
func (b *Builder) Add3(x, y, z Word, base int) Word {
	var maj [WordBits - 1]Wire
	for i := range maj {
		p := b.Product(base+i, b.Xor(x[i], z[i]), b.Xor(y[i], z[i]))
		maj[i] = b.Xor(p, z[i])
	}
	rip := base + AddBits
	var out Word
	cin := Zero
	for i := range WordBits {
		q := Zero
		if i > 0 {
			q = maj[i-1]
		}
		left := b.Xor(b.Xor(b.Xor(x[i], y[i]), z[i]), cin)
		out[i] = b.Xor(left, q)
		if i >= 1 && i <= WordBits-2 {
			cin = b.Xor(cin, b.Product(rip+i-1, left, b.Xor(q, cin)))
		}
	}
	return out
}

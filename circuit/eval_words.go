package circuit

import (
	"fmt"
	"unsafe"
)

// Evaluator twins of the word gadgets. A generic gadget called with B = *Evaluator
// runs in the instantiation every pointer type shares, where each b.Xor, b.Row and
// b.Col is an indirect call through the instantiation's dictionary and none
// inlines; a description spends most of its time in these calls. So Product, Add,
// Add3, AddAuto, Compress, XorWord, IsConst, ColWord and ConstWord hand an
// Evaluator to their twins here: the same steps, in the same order, over
// *Evaluator, whose methods inline. The twins take words by pointer: an
// Evaluator's word is a kilobyte, and the generic code copies words by value at
// every call, return and RotR.
// A twin emits the same rows with the same operands and numbers its wires as the
// generic code does (TestEvalTwinsMatchGeneric runs both on the same descriptions).

// evalTwins, when false, keeps an Evaluator on the generic gadgets (tests).
var evalTwins = true

// evaluatorOf returns b when it is an *Evaluator that the twins serve, else nil.
func evaluatorOf[W comparable, B Ops[W]](b B) *Evaluator {
	if !evalTwins {
		return nil
	}
	ev, _ := any(b).(*Evaluator)
	return ev
}

// asEval views a word of W as a word of EvalWire. It is called only with the word
// of a gadget whose b is an *Evaluator, and *Evaluator implements Ops[W] for W =
// EvalWire alone, so the two types are one.
func asEval[W comparable](x *WordOf[W]) *WordOf[EvalWire] {
	return (*WordOf[EvalWire])(unsafe.Pointer(x))
}

// asEvalWire views a wire of W as an EvalWire, as asEval does a word.
func asEvalWire[W comparable](x *W) *EvalWire { return (*EvalWire)(unsafe.Pointer(x)) }

// product is Product on ev. It holds the fast paths of Row (rowSums.add) and Col
// itself, which the compiler does not inline (each has a call on its miss path):
// the word gadgets spend most of their steps here.
func (ev *Evaluator) product(row int, x, y EvalWire) EvalWire {
	s := &ev.rows
	if i := uint(row) & (1<<s.sk - 1); row>>s.sk == s.run && s.set&(1<<i) == 0 {
		s.set |= 1 << i
		s.ak[i], s.bk[i] = x.V, y.V
	} else {
		s.add(row, x.V, y.V)
	}
	if i := row - ev.cbase; uint(i) < uint(len(ev.line)) {
		v := EvalWire{V: ev.line[i], id: ev.next}
		ev.next++
		return v
	}
	return ev.colMiss(row)
}

// xorWord is XorWord on ev, into out.
func (ev *Evaluator) xorWord(out, x, y *WordOf[EvalWire]) {
	for i := range out {
		out[i] = ev.Xor(x[i], y[i])
	}
}

// colWord is ColWord on ev, into out.
func (ev *Evaluator) colWord(out *WordOf[EvalWire], base int) {
	for i := range out {
		out[i] = ev.Col(base + i)
	}
}

// constWord is ConstWord on ev, into out.
func (ev *Evaluator) constWord(out *WordOf[EvalWire], v uint32) {
	for i := range out {
		if v>>i&1 == 1 {
			out[i] = ev.one
		} else {
			out[i] = EvalWire{}
		}
	}
}

// isConst is IsConst on ev.
func (ev *Evaluator) isConst(x *WordOf[EvalWire]) (uint32, bool) {
	var v uint32
	for i, w := range x {
		switch w {
		case EvalWire{}:
		case ev.one:
			v |= 1 << i
		default:
			return 0, false
		}
	}
	return v, true
}

// add is Add on ev, into out (which must not be x or y).
func (ev *Evaluator) add(out, x, y *WordOf[EvalWire], base int) {
	var cin EvalWire
	for i := range WordBits {
		left := ev.Xor(x[i], cin)
		out[i] = ev.Xor(left, y[i])
		if i < AddBits {
			right := ev.Xor(y[i], cin)
			cin = ev.Xor(cin, ev.product(base+i, left, right))
		}
	}
}

// add3 is Add3 on ev, into out (which must not be x, y or z).
func (ev *Evaluator) add3(out, x, y, z *WordOf[EvalWire], base int) {
	var maj [WordBits - 1]EvalWire
	for i := range maj {
		xz := ev.Xor(x[i], z[i])
		yz := ev.Xor(y[i], z[i])
		maj[i] = ev.Xor(ev.product(base+i, xz, yz), z[i])
	}
	rip := base + AddBits
	var cin EvalWire
	for i := range WordBits {
		var q EvalWire
		if i > 0 {
			q = maj[i-1]
		}
		left := ev.Xor(ev.Xor(ev.Xor(x[i], y[i]), z[i]), cin)
		out[i] = ev.Xor(left, q)
		if i >= 1 && i <= WordBits-2 {
			qc := ev.Xor(q, cin)
			cin = ev.Xor(cin, ev.product(rip+i-1, left, qc))
		}
	}
}

// addAuto is AddAuto on ev for at most three words, into out (which must not be
// one of xs unless a single word is left to copy), returning the next free column.
func (ev *Evaluator) addAuto(out *WordOf[EvalWire], base int, xs ...*WordOf[EvalWire]) int {
	var k uint32
	var vars [4]*WordOf[EvalWire]
	n := 0
	for _, x := range xs {
		if v, ok := ev.isConst(x); ok {
			k += v
		} else {
			vars[n] = x
			n++
		}
	}
	var lit WordOf[EvalWire]
	if k != 0 || n == 0 {
		ev.constWord(&lit, k)
		vars[n] = &lit
		n++
	}
	switch n {
	case 1:
		*out = *vars[0]
		return base
	case 2:
		ev.add(out, vars[0], vars[1], base)
		return base + AddBits
	case 3:
		ev.add3(out, vars[0], vars[1], vars[2], base)
		return base + Add3Bits
	}
	panic(fmt.Sprintf("circuit: addAuto of %d words", len(xs)))
}

// xorRot sets out = RotR(x ⊕ y, n), numbering the XORs in the order XorWord does
// (bit i of x ⊕ y lands at out[i − n mod 32]). out must not be x or y.
func (ev *Evaluator) xorRot(out, x, y *WordOf[EvalWire], n int) {
	for i := range x {
		out[(i-n)&(WordBits-1)] = ev.Xor(x[i], y[i])
	}
}

// compressState is the working vector of Compress on an Evaluator: state word j
// is v[j][0] between G steps, and v[j][1] holds its intermediate (a1, b1, c1, d1).
type compressState struct {
	v [16][2]WordOf[EvalWire]
}

// compress is Compress on ev, into out, returning the next free column. Each G
// step writes its intermediates to the words' second slots and its results back
// to the first, so no word is copied.
func (ev *Evaluator) compress(out *[8]WordOf[EvalWire], base int, h *[8]WordOf[EvalWire], m *[16]WordOf[EvalWire], t uint64, final bool) int {
	if ev.cs == nil {
		ev.cs = new(compressState)
	}
	v := &ev.cs.v
	for i := range h {
		v[i][0] = h[i]
	}
	var f0 uint32
	if final {
		f0 = 0xFFFFFFFF
	}
	for i, x := range [8]uint32{Blake2sIV[0], Blake2sIV[1], Blake2sIV[2], Blake2sIV[3],
		Blake2sIV[4] ^ uint32(t), Blake2sIV[5] ^ uint32(t>>32), Blake2sIV[6] ^ f0, Blake2sIV[7]} {
		ev.constWord(&v[8+i][0], x)
	}
	col := base
	for r := range Blake2sRounds {
		for gi, ln := range Blake2sLanes {
			a, b, c, d := &v[ln[0]], &v[ln[1]], &v[ln[2]], &v[ln[3]]
			mx, my := &m[Blake2sSigma[r][2*gi]], &m[Blake2sSigma[r][2*gi+1]]
			col = ev.addAuto(&a[1], col, &a[0], &b[0], mx) // a1
			ev.xorRot(&d[1], &d[0], &a[1], 16)             // d1
			col = ev.addAuto(&c[1], col, &c[0], &d[1])     // c1
			ev.xorRot(&b[1], &b[0], &c[1], 12)             // b1
			col = ev.addAuto(&a[0], col, &a[1], &b[1], my) // a2
			ev.xorRot(&d[0], &d[1], &a[0], 8)              // d2
			col = ev.addAuto(&c[0], col, &c[1], &d[0])     // c2
			ev.xorRot(&b[0], &b[1], &c[0], 7)              // b2
		}
	}
	for i := range out {
		ev.xorWord(&v[i][1], &v[i][0], &v[i+8][0])
		ev.xorWord(&out[i], &v[i][1], &h[i])
	}
	return col
}

package circuit

import "unsafe"

// Evaluator twins of the word gadgets. A generic gadget called with B = *Evaluator
// runs in the instantiation every pointer type shares, where each b.Xor, b.Row and
// b.Col is an indirect call through the instantiation's dictionary and none
// inlines; a description spends most of its time in these calls. So Product, Add,
// Add3, XorWord, IsConst, ColWord and ConstWord hand an Evaluator to their twins
// here: the same steps, in the same order, over *Evaluator, whose methods inline.
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

// product is Product on ev.
func (ev *Evaluator) product(row int, x, y EvalWire) EvalWire {
	ev.Row(row, x, y)
	return ev.Col(row)
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

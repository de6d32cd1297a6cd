package aggregate

import (
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/xmss"
)

// LogSize is log2 of the block: one signature verification per 2^21 columns.
const LogSize = 21

// Slots is the number of chain-step compressions, Σ (7 − x_i) for every valid encoding.
const Slots = xmss.NumChainHashes

// Column layout of the pinned regions (fixed, 2^10-aligned; see doc.go).
const (
	ConstCol   = 0
	PBase      = 1024 // P, 128 bits: bit 8·byte+b of P at PBase+8·byte+b
	MsgBase    = 1152 // the message, 256 bits, same bit order
	EpochBase  = 1408 // the epoch, 32 bits, bit ℓ at EpochBase+ℓ
	RootBase   = 2048 // the computed root, 128 linear columns
	AssertBase = 2176 // the asserted-zero columns (AssertLen of them)
	FreeBase   = 4096 // the first free (prover-chosen) input column

	// Offsets inside the asserted-zero region.
	AssertBit63  = 0                 // bit 63 of d₀
	AssertBit127 = 1                 // bit 63 of d₁
	AssertSum    = 2                 // 9 bits: (Σ x_i) ⊕ 195
	AssertNoWrap = AssertSum + 9     // Slots bits: slot j's position k'_j is 7
	AssertTip    = AssertNoWrap + 99 // 42 bits: chain i's routed end fails its label check
	AssertLen    = AssertTip + xmss.V
)

// Layout locates the free inputs of a signature's block (the prover's witness
// choices). Every field is a first column; widths are in the comments.
type Layout struct {
	Rho       int // 192 bits of ρ
	Start     int // Slots bits s_j (slot 0's is the constant 1, its column unused)
	Chain     int // Slots × 6 bits C_j (the chain a run starting at slot j walks)
	Pos       int // Slots × 3 bits K_j (the position it starts from)
	Value     int // Slots × 128 bits F_j (the value it starts from: the chain tip)
	Route     int // RouteControls bits: the routing network's switch controls
	Free      int // FreeLanes × 128 bits: the free lanes' values (tips of chains with x_i = 7)
	Sibling   int // 32 × 128 bits A_ℓ
	FreeEnd   int // one past the last free input
	GateStart int // the first product column
}

// inputs are the layout's free inputs in column order: each one's name, width and
// base (a field of L).
func (L *Layout) inputs() []struct {
	name string
	n    int
	at   *int
} {
	return []struct {
		name string
		n    int
		at   *int
	}{
		{"rho", 192, &L.Rho}, {"start", Slots, &L.Start}, {"chain", 6 * Slots, &L.Chain}, {"pos", 3 * Slots, &L.Pos},
		{"value", 128 * Slots, &L.Value}, {"route", RouteControls, &L.Route}, {"free", 128 * FreeLanes, &L.Free},
		{"sibling", 128 * xmss.LogLifetime, &L.Sibling},
	}
}

// inputLayout is the circuit's layout: its free inputs from FreeBase, one after
// another, and its gates from the next multiple of 1024.
func inputLayout() Layout {
	var L Layout
	next := FreeBase
	for _, in := range L.inputs() {
		*in.at = next
		next += in.n
	}
	L.FreeEnd = next
	L.GateStart = (next + 1023) &^ 1023
	return L
}

// Circuit is the verification circuit of one XMSS signature.
type Circuit struct {
	*circuit.Circuit
	Layout Layout
}

var build = sync.OnceValue(func() *Circuit {
	c := newCircuit()
	// A build leaves the circuit's encoding for the on-disk cache (about 110 MiB,
	// more with append's growth) as garbage: return it to the system now, so
	// that a process's peak is not those leftovers plus its first proof's
	// buffers (see the flow's FixedBytes).
	debug.FreeOSMemory()
	built.Store(true)
	return c
})

// built reports whether New's circuit is built in this process.
var built atomic.Bool

// New returns the circuit (built once, about a second, and shared).
func New() *Circuit { return build() }

type gen[W comparable, B circuit.Ops[W]] struct {
	b   B
	col int // next free product column
}

func (g *gen[W, B]) product(x, y W) W {
	w := circuit.Product(g.b, g.col, x, y)
	g.col++
	return w
}

// materialise gives each wire a linear row of its own (w[col] = wire, one column
// each from the gate region) and returns the columns' wires. A value read much later
// is then a column, not a long-lived linear form: the program's registers stay few
// and a walk can be cut into segments with short set-up slices.
func (g *gen[W, B]) materialise(ws []W) []W {
	out := make([]W, len(ws))
	for i, w := range ws {
		out[i] = circuit.Linear(g.b, g.col, w)
		g.col++
	}
	return out
}

func (g *gen[W, B]) mux(s W, x, y []W) []W {
	out, next := circuit.Mux(g.b, g.col, s, x, y)
	g.col = next
	return out
}

func (g *gen[W, B]) compress(h [8]circuit.WordOf[W], m [16]circuit.WordOf[W], t uint64, final bool) [8]circuit.WordOf[W] {
	out, next := circuit.Compress(g.b, g.col, h, m, t, final)
	g.col = next
	return out
}

func (g *gen[W, B]) cols(base, n int) []W {
	w := make([]W, n)
	for i := range w {
		w[i] = g.b.Col(base + i)
	}
	return w
}

func toWords[W comparable](bits []W) []circuit.WordOf[W] {
	ws := make([]circuit.WordOf[W], len(bits)/32)
	for i := range ws {
		copy(ws[i][:], bits[32*i:])
	}
	return ws
}

func flat[W comparable](ws ...circuit.WordOf[W]) []W {
	var out []W
	for _, w := range ws {
		out = append(out, w[:]...)
	}
	return out
}

// tweakWords returns message words 0..3 of a tweak whose type and sub-position bits
// are given (sub as 9 wires, higher bits 0) and whose index is idx (32 wires).
func (g *gen[W, B]) tweakWords(typ byte, sub []W, idx []W) [4]circuit.WordOf[W] {
	var w [4]circuit.WordOf[W]
	for i := range 8 {
		w[0][i] = circuit.Const[W](g.b, uint(typ>>i))
	}
	for i, s := range sub {
		w[0][8+i] = s
	}
	for i := range 24 {
		w[1][8+i] = idx[i]
	}
	for i := range 8 {
		w[2][i] = idx[24+i]
	}
	return w
}

func (g *gen[W, B]) constBits(v uint64, n int) []W {
	w := make([]W, n)
	for i := range w {
		w[i] = circuit.Const[W](g.b, uint(v>>i))
	}
	return w
}

// addBits returns x + y as a ripple-carry sum one bit wider than the wider operand
// (one product per full adder: carry = (x ⊕ c)(y ⊕ c) ⊕ c).
func (g *gen[W, B]) addBits(x, y []W) []W {
	n := max(len(x), len(y))
	out := make([]W, n+1)
	var c W
	for i := range n {
		var xi, yi W
		if i < len(x) {
			xi = x[i]
		}
		if i < len(y) {
			yi = y[i]
		}
		out[i] = g.b.Xor(g.b.Xor(xi, yi), c)
		c = g.b.Xor(c, g.product(g.b.Xor(xi, c), g.b.Xor(yi, c)))
	}
	out[n] = c
	return out
}

// andAll returns the product of the wires (len−1 product columns).
func (g *gen[W, B]) andAll(ws []W) W {
	acc := ws[0]
	for _, w := range ws[1:] {
		acc = g.product(acc, w)
	}
	return acc
}

func (g *gen[W, B]) not(w W) W { return g.b.Xor(w, g.b.One()) }

func newCircuit() *Circuit {
	c := circuit.Cached(matrices, func() *circuit.Circuit {
		b := circuit.NewBuilder(circuitName, LogSize, ConstCol)
		describe(b)
		c := b.Compile()
		// The recorded program (about 230 MiB) and the compiler's tables are
		// garbage now but still resident, and the cache's encoding of the circuit
		// (about 110 MiB, grown by appending) comes next: return them to the
		// system first, or the encoding grows the process past the compile's own
		// peak (a child proving 1–64 signers that builds peaked at 555–688 MiB,
		// 447–469 with this; with a runtime.GC here instead, 461–579).
		debug.FreeOSMemory()
		return c
	})()
	return &Circuit{Circuit: c, Layout: inputLayout()}
}

// circuitName is the circuit's name.
const circuitName = "xmss-verify"

// describe emits the circuit to b and returns its layout: on a circuit.Builder it
// records the program newCircuit compiles, on a circuit.Evaluator it evaluates the
// matrices (Matrices). It is the circuit's one definition.
func describe[W comparable, B circuit.Ops[W]](b B) Layout {
	g := &gen[W, B]{b: b}
	b.Input("P", PBase, 128)
	b.Input("message", MsgBase, 256)
	b.Input("epoch", EpochBase, 32)

	L := inputLayout()
	for _, in := range L.inputs() {
		b.Input(in.name, *in.at, in.n)
	}
	g.col = L.GateStart

	P := toWords(g.cols(PBase, 128))
	msg := toWords(g.cols(MsgBase, 256))
	epoch := g.cols(EpochBase, 32)
	iv := [8]circuit.WordOf[W]{}
	for i := range iv {
		iv[i] = circuit.ConstWord(b, circuit.Blake2sParamIV[i])
	}
	zero := circuit.ConstWord(b, 0)
	assert := func(off int, w W) { circuit.Linear(b, AssertBase+off, w) }
	assertProduct := func(off int, x, y W) { b.Row(AssertBase+off, x, y) }

	// Encoding: D = Th(P, tweak(3, 0, e), m ‖ ρ ‖ 0^8), two compressions.
	var m [16]circuit.WordOf[W]
	tw := g.tweakWords(xmss.TweakEncoding, nil, epoch)
	copy(m[0:4], tw[:])
	copy(m[4:8], P)
	copy(m[8:16], msg)
	cv := g.compress(iv, m, 64, false)
	rho := toWords(g.cols(L.Rho, 192))
	m = [16]circuit.WordOf[W]{}
	copy(m[0:6], rho)
	for i := 6; i < 16; i++ {
		m[i] = zero
	}
	dOut := g.compress(cv, m, 96, true)
	d := g.materialise(flat(dOut[0], dOut[1], dOut[2], dOut[3])) // D, bit 8·byte+b
	assert(AssertBit63, d[63])
	assert(AssertBit127, d[127])
	var digit [xmss.V][]W
	for i := range digit {
		off := 3 * i
		if i >= 21 {
			off = 64 + 3*(i-21)
		}
		digit[i] = d[off : off+3]
	}
	// Σ x_i by an adder tree, then (Σ x_i) ⊕ 195 asserted zero (9 bits: Σ ≤ 294).
	level := make([][]W, xmss.V)
	for i := range level {
		level[i] = digit[i]
	}
	for len(level) > 1 {
		var nxt [][]W
		for i := 0; i+1 < len(level); i += 2 {
			nxt = append(nxt, g.addBits(level[i], level[i+1]))
		}
		if len(level)%2 == 1 {
			nxt = append(nxt, level[len(level)-1])
		}
		level = nxt
	}
	sum := level[0]
	for i := range 9 {
		var s W
		if i < len(sum) {
			s = sum[i]
		}
		assert(AssertSum+i, b.Xor(s, circuit.Const[W](b, uint(xmss.TargetSum>>i))))
	}
	// Σ x_i ≤ 294 < 2^9, so any sum bit above the ninth is 0 by range.

	// Chain-step slots.
	type lane struct{ v, c, k, a []W } // value 128, chain 6, position 3, start position 3
	lanes := make([]lane, Slots)
	var prev lane
	for j := range Slots {
		C := g.cols(L.Chain+6*j, 6)
		K := g.cols(L.Pos+3*j, 3)
		F := g.cols(L.Value+128*j, 128)
		var cur lane
		if j == 0 {
			cur = lane{v: F, c: C, k: K, a: K}
		} else {
			s := b.Col(L.Start + j)
			inc := []W{g.not(prev.k[0]), b.Xor(prev.k[1], prev.k[0]), b.Xor(prev.k[2], g.product(prev.k[1], prev.k[0]))}
			cur.v = g.mux(s, prev.v, F)
			cur.c = g.mux(s, prev.c, C)
			cur.k = g.mux(s, inc, K)
			cur.a = g.mux(s, prev.a, K)
		}
		// No step from position 7 (a run cannot wrap its counter).
		assertProduct(AssertNoWrap+j, g.product(cur.k[0], cur.k[1]), cur.k[2])
		sub := append(append([]W{}, cur.k...), cur.c...)
		tw := g.tweakWords(xmss.TweakChain, sub, epoch)
		var m [16]circuit.WordOf[W]
		copy(m[0:4], tw[:])
		copy(m[4:8], P)
		copy(m[8:12], toWords(cur.v))
		for i := 12; i < 16; i++ {
			m[i] = zero
		}
		out := g.compress(iv, m, 48, true)
		lanes[j] = lane{v: g.materialise(flat(out[0], out[1], out[2], out[3])), c: cur.c, k: cur.k, a: cur.a}
		prev = cur
		prev.v = lanes[j].v
	}

	// Chain ends: the routing network takes the slots' lanes and the free lanes
	// (label (63, 0, 0)) to output i, chain i's end; output i must carry label
	// (i, 6, x_i), unless x_i = 7 (then any value is the tip and the end).
	route := make([][]W, RouteLanes)
	for j, ln := range lanes {
		route[j] = append(append(append(append([]W{}, ln.v...), ln.c...), ln.k...), ln.a...)
	}
	for f := range FreeLanes {
		v := g.cols(L.Free+128*f, 128)
		route[Slots+f] = append(append(v, g.constBits(freeChain, 6)...), g.constBits(0, 6)...)
	}
	routed, ctlEnd := g.benesCircuit(route, RouteOutputs, L.Route)
	if ctlEnd != L.Route+RouteControls {
		panic("aggregate: routing network control count")
	}
	var ends [xmss.V][]W
	for i := range ends {
		pick := routed[i]
		v, c, k, a := pick[:128], pick[128:134], pick[134:137], pick[137:140]
		var eq []W
		for t := range 6 {
			eq = append(eq, g.not(b.Xor(c[t], circuit.Const[W](b, uint(i>>t)))))
		}
		for t := range 3 {
			eq = append(eq, g.not(b.Xor(k[t], circuit.Const[W](b, uint(6>>t)))))
			eq = append(eq, g.not(b.Xor(a[t], digit[i][t])))
		}
		ok := g.andAll(eq)
		seven := g.andAll(digit[i])
		assertProduct(AssertTip+i, g.not(ok), g.not(seven))
		ends[i] = v
	}

	// Leaf: Th(P, tweak(1, 0, e), end_0 ‖ … ‖ end_41), 11 compressions.
	var words []circuit.WordOf[W]
	tw = g.tweakWords(xmss.TweakLeaf, nil, epoch)
	words = append(words, tw[:]...)
	words = append(words, P...)
	for i := range ends {
		words = append(words, toWords(ends[i])...)
	}
	cv = iv
	for q := range xmss.LeafBlocks {
		var m [16]circuit.WordOf[W]
		copy(m[:], words[16*q:])
		cv = g.compress(cv, m, uint64(64*(q+1)), q == xmss.LeafBlocks-1)
	}
	node := flat(cv[0], cv[1], cv[2], cv[3])

	// Merkle: level ℓ swaps (node, A_ℓ) on epoch bit ℓ, parent tweak (2, ℓ+1, e >> (ℓ+1)).
	for l := range xmss.LogLifetime {
		sib := g.cols(L.Sibling+128*l, 128)
		left := g.mux(epoch[l], node, sib)
		right := make([]W, 128)
		for t := range right { // right = node ⊕ sib ⊕ left (the swap's second half, free)
			right[t] = b.Xor(b.Xor(node[t], sib[t]), left[t])
		}
		idx := make([]W, 32)
		for t := range idx {
			if l+1+t < 32 {
				idx[t] = epoch[l+1+t]
			}
		}
		tw := g.tweakWords(xmss.TweakMerkle, g.constBits(uint64(l+1), 9), idx)
		var m [16]circuit.WordOf[W]
		copy(m[0:4], tw[:])
		copy(m[4:8], P)
		copy(m[8:12], toWords(left))
		copy(m[12:16], toWords(right))
		out := g.compress(iv, m, 64, true)
		node = flat(out[0], out[1], out[2], out[3])
	}
	for t := range node {
		circuit.Linear(b, RootBase+t, node[t])
	}
	b.Name("root", RootBase, 128)
	b.Name("assert", AssertBase, AssertLen)
	b.Name("gates", L.GateStart, g.col-L.GateStart)
	return L
}

// matrices is the circuit's description run on an evaluator.
var matrices = circuit.NewDescribed(circuitName, LogSize, ConstCol, func(ev *circuit.Evaluator) {
	describe[circuit.EvalWire](ev)
})

// Matrices returns the circuit's fixed matrices A0, B0 evaluated from its
// description (circuit.Described): the same values as New()'s walks, without
// building or compiling the program. A verifier that has not built the circuit
// uses it.
func Matrices() *circuit.Described { return matrices }

// VerifierMatrices is what a verifier evaluates the circuit's matrices with: New()'s
// compiled circuit when this process has built it (its walk is the faster), else
// Matrices (no program built) until a verifier has evaluated them
// circuit.CompileAfter times, which builds New()'s circuit in the background
// (circuit.Lazy). Both give the same values.
func VerifierMatrices() circuit.Matrices { return lazyMatrices.Matrices() }

var lazyMatrices = circuit.NewLazy(matrices, func() *circuit.Circuit { return New().Circuit }, func() *circuit.Circuit {
	if built.Load() {
		return New().Circuit
	}
	return nil
})

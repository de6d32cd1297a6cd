package recursion

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/field"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/stages/lincheck"
)

// Key-table claims (docs/recursion.md §5.2). A child's key claim is on its own key
// table P_c (slot s < n_c holds key s's pinned bits, later slots repeat slot 0). The
// child's keys are the parent's keys at an offset o, so
//
//	P_c(τ, χ) = Σ_{j,t} eq(τ, j)·W(t)·P(j, t),  W(t) = Σ_{s<n_c, o+s=t} eq(χ, s) + [t = o]·Σ_{s≥n_c} eq(χ, s),
//
// a linear claim on the parent's table P with a tensor weight. BatchKeyClaims reduces
// any number of them to one evaluation of P by a sumcheck over its window and slot
// variables; the root evaluates P from its keys (CheckKeyClaim).

// TableClaim is Σ_{j,t} eq(Tau, j)·W(t)·P(j, t) = Value on a parent's key table, for
// the weight W of a child of N keys at Offset whose claim was at slot point Chi.
type TableClaim struct {
	Tau, Chi  []field.E
	Offset, N int
	Value     field.E
}

// LiftKeyClaim expresses a child's key claim (its table of n keys) as a claim on the
// table of a parent that holds those keys at offset.
func LiftKeyClaim(k KeyClaim, offset, n int) TableClaim {
	return TableClaim{Tau: k.Tau, Chi: k.ChiOut, Offset: offset, N: n, Value: k.Value}
}

// weightTable writes W over 2^tBits parent slots.
func (c TableClaim) weightTable(dst []field.E) {
	clear(dst)
	eq := make([]field.E, 1<<len(c.Chi))
	field.EqTable(eq, c.Chi)
	for s, e := range eq {
		t := c.Offset + s
		if s >= c.N {
			t = c.Offset
		}
		dst[t] = dst[t].Add(e)
	}
}

// weightAt is W's multilinear extension at r: Σ_{s<n} eq(χ, s)·eq(r, o+s) plus the
// padding mass times eq(r, o) (offsetWeight).
func (c TableClaim) weightAt(r []field.E) field.E {
	return offsetWeight(c.Chi, r, c.Offset, c.N, fieldRing)
}

// ring is the arithmetic offsetWeight runs on: the field natively, a tape's Lins in a
// circuit.
type ring[T any] struct {
	mul       func(x, y T) T
	add       func(x, y T) T
	zero, one T
}

var fieldRing = ring[field.E]{mul: field.E.Mul, add: field.E.Add, zero: field.E{}, one: field.One}

// offsetWeight is Σ_{s<n} eq(χ, s)·eq(r, o+s) + (Σ_{n≤s<2^|χ|} eq(χ, s))·eq(r, o), the
// bits of o+s past r's dropped, in O(|r|) products: one walk over the bits from the
// lowest, whose state is the carry of o+s and whether s is below n so far, instead of
// a sum over the 2^|χ| slots (a parent's circuit evaluates it for every key claim it
// replays, whose slots are the signers below).
func offsetWeight[T any](chi, r []T, o, n int, a ring[T]) T {
	nb := max(len(chi), len(r), bits.Len(uint(n)), bits.Len(uint(o)))
	eqBit := func(x T, b int) T {
		if b == 1 {
			return x
		}
		return a.add(a.one, x)
	}
	// v[c][lt]: the sum over the low bits of s taking the walk to carry c and to
	// s < n (lt = 1) or not on those bits; g[lt] the same without r (Σ eq(χ, s)). An
	// entry is read only once live: on a tape a product with a zero constant would
	// still cost a unit.
	var v [2][2]T
	var g [2]T
	v[0][0], g[0] = a.one, a.one
	live := [2][2]bool{{true, false}, {false, false}}
	gLive := [2]bool{true, false}
	put := func(dst *T, isLive *bool, term T) {
		if *isLive {
			*dst = a.add(*dst, term)
		} else {
			*dst, *isLive = term, true
		}
	}
	for i := range nb {
		var nv [2][2]T
		var ng [2]T
		var nLive [2][2]bool
		var ngLive [2]bool
		ni := n >> i & 1
		for s := range 2 {
			if s == 1 && i >= len(chi) {
				break
			}
			fc := a.one
			if i < len(chi) {
				fc = eqBit(chi[i], s)
			}
			ltOf := func(lt int) int {
				switch {
				case s < ni:
					return 1
				case s > ni:
					return 0
				}
				return lt
			}
			for lt := range 2 {
				if gLive[lt] {
					l2 := ltOf(lt)
					put(&ng[l2], &ngLive[l2], a.mul(g[lt], fc))
				}
			}
			for c := range 2 {
				sum := o>>i&1 + s + c
				f := fc
				if i < len(r) {
					f = a.mul(fc, eqBit(r[i], sum&1))
				}
				for lt := range 2 {
					if live[c][lt] {
						c2, l2 := sum>>1, ltOf(lt)
						put(&nv[c2][l2], &nLive[c2][l2], a.mul(v[c][lt], f))
					}
				}
			}
		}
		v, g, live, gLive = nv, ng, nLive, ngLive
	}
	total := a.zero
	for c := range 2 {
		if live[c][1] {
			total = a.add(total, v[c][1])
		}
	}
	// The padding slots' mass: every slot's eq sums to one, so it is 1 + Σ_{s<n} eq(χ, s).
	pad := a.one
	if gLive[1] {
		pad = a.add(pad, g[1])
	}
	eqO := a.one
	for k, x := range r {
		eqO = a.mul(eqO, eqBit(x, o>>k&1))
	}
	return a.add(total, a.mul(pad, eqO))
}

// eqIndex is eq(r, bits of t), low bit first.
func eqIndex(r []field.E, t int) field.E {
	out := field.One
	for k, x := range r {
		if t>>k&1 == 1 {
			out = out.Mul(x)
		} else {
			out = out.Mul(field.One.Add(x))
		}
	}
	return out
}

// KeyTable is a parent's key table: its window log and rows (lincheck.Table), over
// 2^SlotBits slots.
type KeyTable struct {
	T        *lincheck.Table
	SlotBits int
}

// KeyTableOf returns st's key table (an xmss-aggregate statement's), slots padded to
// max(3, ⌈log2 N⌉) bits as a leaf's are.
func KeyTableOf(st flows.Statement) (KeyTable, error) {
	bind, err := aggregate.Bind(st)
	if err != nil {
		return KeyTable{}, err
	}
	t, ok := bind.Public.(*lincheck.Table)
	if !ok {
		return KeyTable{}, fmt.Errorf("recursion: the statement's public term is not a table")
	}
	return KeyTable{T: t, SlotBits: max(3, bits.Len(uint(st.N-1)))}, nil
}

// rowBits calls fn(j) for each set bit j < 2^Log of slot t's row (slots past the
// rows repeat slot 0).
func (kt KeyTable) rowBits(t int, fn func(j int)) {
	n := 1 << kt.T.W.Log
	row := kt.T.Rows[0]
	if t < len(kt.T.Rows) {
		row = kt.T.Rows[t]
	}
	for k, word := range row[:min(len(row), (n+63)/64)] {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			if j := 64*k + b; j < n {
				fn(j)
			}
		}
	}
}

// masked zeroes the entries of v (2^Log) outside the window's mask.
func (kt KeyTable) masked(v []field.E) {
	if m := kt.T.W.Mask; m != nil {
		for j := range v {
			if m[j/64]>>(j%64)&1 == 0 {
				v[j] = field.Zero
			}
		}
	}
}

// windowSums returns Q(j) = Σ_t w[t]·P(j, t) for j < 2^Log, for slot weights w over
// the 2^SlotBits slots.
func (kt KeyTable) windowSums(w []field.E) []field.E {
	q := make([]field.E, 1<<kt.T.W.Log)
	// The slots past the rows repeat slot 0: their weights join its.
	w0 := w[0]
	for t := len(kt.T.Rows); t < len(w); t++ {
		w0 = w0.Add(w[t])
	}
	for t := range min(len(w), len(kt.T.Rows)) {
		wt := w[t]
		if t == 0 {
			wt = w0
		}
		if wt.IsZero() {
			continue
		}
		kt.rowBits(t, func(j int) { q[j] = q[j].Add(wt) })
	}
	kt.masked(q)
	return q
}

// slotEvals returns P(r, t) = Σ_j eq(r, j)·P(j, t) for the 2^SlotBits slots t.
func (kt KeyTable) slotEvals(r []field.E) []field.E {
	eq := make([]field.E, 1<<kt.T.W.Log)
	field.EqTable(eq, r)
	kt.masked(eq)
	out := make([]field.E, 1<<kt.SlotBits)
	for t := range out {
		if t > 0 && t >= len(kt.T.Rows) {
			out[t] = out[0]
			continue
		}
		var s field.E
		kt.rowBits(t, func(j int) { s = s.Add(eq[j]) })
		out[t] = s
	}
	return out
}

// ErrKeyClaims reports a key-claim batch that does not hold.
var ErrKeyClaims = errors.New("recursion: key-table claims do not hold")

func checkTableClaims(kt KeyTable, claims []TableClaim) error {
	if len(claims) == 0 {
		return fmt.Errorf("%w: no claims", ErrClaimShape)
	}
	for i, c := range claims {
		if len(c.Tau) != kt.T.W.Log || len(c.Chi) > 20 || c.N < 1 || c.N > 1<<len(c.Chi) || c.Offset < 0 || c.Offset+c.N > 1<<kt.SlotBits {
			return fmt.Errorf("%w: key claim %d (%d keys at %d, %d and %d coordinates) on a table of 2^%d slots",
				ErrClaimShape, i, c.N, c.Offset, len(c.Tau), len(c.Chi), kt.SlotBits)
		}
	}
	return nil
}

func observeTableClaims(observe func(field.E), sample func() field.E, claims []TableClaim) []field.E {
	for _, c := range claims {
		for _, x := range c.Tau {
			observe(x)
		}
		for _, x := range c.Chi {
			observe(x)
		}
		observe(field.FromK(field.K(c.Offset)))
		observe(field.FromK(field.K(c.N)))
		observe(c.Value)
	}
	lambda := make([]field.E, len(claims))
	for i := range lambda {
		lambda[i] = sample()
	}
	return lambda
}

// BatchKeyClaims proves that claims on the table kt reduce to the returned point and
// value P(point): a sumcheck over the window's then the slots' variables of
// Σ_c λ_c·eq(τ_c, j)·W_c(t)·P(j, t). No table over both is formed: the window
// rounds run on eq(τ_c, ·) and Q_c(j) = Σ_t W_c(t)·P(j, t) (2^Log entries per
// claim, from the rows' set bits), the slot rounds on P(r_j, ·) and
// Σ_c λ_c·eq(τ_c, r_j)·W_c (2^SlotBits entries).
func BatchKeyClaims(tr ClaimsProver, kt KeyTable, claims []TableClaim) ([]field.E, field.E, error) {
	if err := checkTableClaims(kt, claims); err != nil {
		return nil, field.Zero, err
	}
	lambda := observeTableClaims(tr.Observe, tr.Sample, claims)
	log := kt.T.W.Log
	eqT := make([][]field.E, len(claims))
	q := make([][]field.E, len(claims))
	w := make([][]field.E, len(claims))
	for c, cl := range claims {
		eqT[c] = make([]field.E, 1<<log)
		field.EqTable(eqT[c], cl.Tau)
		w[c] = make([]field.E, 1<<kt.SlotBits)
		cl.weightTable(w[c])
		q[c] = kt.windowSums(w[c])
	}
	point := make([]field.E, log+kt.SlotBits)
	proveProductRounds(tr, point[:log], eqT, q, lambda)
	p := kt.slotEvals(point[:log])
	g := make([]field.E, len(p))
	for c := range claims {
		field.AddScaledE(g, w[c], lambda[c].Mul(eqT[c][0]))
	}
	fs, gs := [][]field.E{p}, [][]field.E{g}
	proveProductRounds(tr, point[log:], fs, gs, nil)
	v := fs[0][0]
	tr.Send(v)
	return point, v, nil
}

// VerifyKeyClaims replays BatchKeyClaims against a table of window log windowLog and
// 2^slotBits slots and returns the point and the value P must have there.
func VerifyKeyClaims(tr ClaimsVerifier, windowLog, slotBits int, claims []TableClaim) ([]field.E, field.E, error) {
	kt := KeyTable{T: &lincheck.Table{W: lincheck.Window{Log: windowLog}}, SlotBits: slotBits}
	if err := checkTableClaims(kt, claims); err != nil {
		return nil, field.Zero, err
	}
	lambda := observeTableClaims(tr.Observe, tr.Sample, claims)
	var running field.E
	for c, cl := range claims {
		running = running.Add(lambda[c].Mul(cl.Value))
	}
	point, running, err := verifyProductRounds(tr, windowLog+slotBits, running, "key batch")
	if err != nil {
		return nil, field.Zero, err
	}
	v, err := tr.Receive()
	if err != nil {
		return nil, field.Zero, fmt.Errorf("recursion: key batch value: %w", err)
	}
	rj, rt := point[:windowLog], point[windowLog:]
	var weight field.E
	for c, cl := range claims {
		weight = weight.Add(lambda[c].Mul(field.EqEval(cl.Tau, rj)).Mul(cl.weightAt(rt)))
	}
	if v.Mul(weight) != running {
		return nil, field.Zero, ErrKeyClaims
	}
	return point, v, nil
}

// CheckTableEval evaluates kt at point natively and compares with value.
func CheckTableEval(kt KeyTable, point []field.E, value field.E) error {
	if len(point) != kt.T.W.Log+kt.SlotBits {
		return fmt.Errorf("%w: a point of %d coordinates", ErrClaimShape, len(point))
	}
	log := kt.T.W.Log
	eq := make([]field.E, 1<<kt.SlotBits)
	field.EqTable(eq, point[log:])
	if field.InnerProduct(eq, kt.slotEvals(point[:log])) != value {
		return ErrClaim
	}
	return nil
}

// checkKeyClaimOf is CheckKeyClaim on a statement already decoded: the key table of
// ag's keys evaluated at the claim's point.
func checkKeyClaimOf(ag aggregate.Aggregate, k KeyClaim) error {
	t := ag.PublicTable()
	w := t.Window()
	if len(k.Tau) != w.Log || len(k.ChiOut) < 3 || len(k.ChiOut) > 20 {
		return fmt.Errorf("%w: key claim at %d and %d coordinates", ErrClaimShape, len(k.Tau), len(k.ChiOut))
	}
	if t.Eval(k.Tau, k.ChiOut) != k.Value {
		return ErrClaim
	}
	return nil
}
